/**
 * The playground page: a CodeMirror 6 editor whose text is checked on every change by engine.ts, with
 * the diagnostics drawn at their ranges (CodeMirror's lint integration) and listed with their related
 * locations (the path a diagnostic such as PB700 walks), the graph, the IR, `check --format json`'s
 * output and, a moment after typing stops, `explore`'s bound.
 */
import { defaultKeymap, history as undoHistory, historyKeymap, indentWithTab } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import {
  bracketMatching,
  defaultHighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from '@codemirror/language';
import { lintGutter, setDiagnostics } from '@codemirror/lint';
import type { Diagnostic as EditorDiagnostic } from '@codemirror/lint';
import { EditorSelection, EditorState } from '@codemirror/state';
import { EditorView, drawSelection, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import type { Diagnostic } from '@kairoku-playbook/compiler';
import { StepGraph } from '@kairoku-playbook/panel/graph';
import type { GraphLayout } from '@kairoku-playbook/panel/layout';
import type { GraphLoop } from '@kairoku-playbook/protocol';
import { Fragment, h, render } from 'preact';
import { EXAMPLES } from '#examples';
import { boundOf, checkText } from './engine.js';
import type { Checked } from './engine.js';
import { decodeShared, encodeShared, isFileName } from './share.js';

const EXPLORE_AFTER_MS = 400;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const fileInput = $<HTMLInputElement>('file');
const exampleSelect = $<HTMLSelectElement>('example');
const shareButton = $<HTMLButtonElement>('share');
const status = $<HTMLElement>('status');
const problems = $<HTMLOListElement>('problems');
const summary = $<HTMLElement>('summary');
const graphBox = $<HTMLElement>('graph');
const irBox = $<HTMLElement>('ir');
const jsonBox = $<HTMLElement>('check-json');
const boundBox = $<HTMLElement>('bound');

let checked: Checked | undefined;
let pending = 0;
let exploring = 0;
/** bumped by every check: the page's tests and bench/playground.mjs wait for it */
let generation = 0;

function say(message: string, kind: 'info' | 'error' = 'info'): void {
  status.textContent = message;
  status.dataset.kind = kind;
}

// ------------------------------------------------------------------------------------ examples

for (const example of EXAMPLES) {
  const option = document.createElement('option');
  option.value = example.origin;
  option.textContent = `${example.origin}${example.origin.endsWith(example.file) ? '' : ` (${example.file})`}`;
  exampleSelect.append(option);
}

// ------------------------------------------------------------------------------------ the editor

const view = new EditorView({
  parent: $('editor'),
  state: EditorState.create({
    doc: '',
    extensions: [
      lineNumbers(),
      undoHistory(),
      drawSelection(),
      highlightActiveLine(),
      indentOnInput(),
      bracketMatching(),
      syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
      yaml(),
      lintGutter(),
      // (half a page wide: long prompts wrap rather than scroll the editor sideways)
      EditorView.lineWrapping,
      keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
      EditorView.contentAttributes.of({ 'aria-label': 'Playbook' }),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) schedule();
      }),
    ],
  }),
});

function schedule(): void {
  // Typing faster than a check coalesces: one check for the text as it is when the page is free.
  if (!pending) pending = window.setTimeout(runCheck, 0);
}

function load(file: string, text: string): void {
  fileInput.value = file;
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
  runCheck();
}

// ------------------------------------------------------------------------------------ checking

function runCheck(): void {
  window.clearTimeout(pending);
  pending = 0;
  const file = fileName();
  const text = view.state.doc.toString();
  const result = checkText(file, text);
  checked = result;
  generation++;
  view.dispatch(
    setDiagnostics(
      view.state,
      result.diagnostics.map((d) => toEditor(d, text.length)),
    ),
  );
  showProblems(result);
  jsonBox.textContent = result.json;
  irBox.textContent =
    result.irText ?? 'No IR: the playbook has errors (the IR is emitted only from a playbook without them).';
  showGraph(result);
  document.body.dataset.generation = String(generation);
  window.clearTimeout(exploring);
  boundBox.dataset.state = 'waiting';
  exploring = window.setTimeout(showBound, EXPLORE_AFTER_MS);
}

function fileName(): string {
  const name = fileInput.value.trim();
  return isFileName(name) ? name : 'playbook.yml';
}

function clamp(offset: number, length: number): number {
  return Math.max(0, Math.min(Number.isFinite(offset) ? offset : 0, length));
}

function toEditor(d: Diagnostic, length: number): EditorDiagnostic {
  const from = clamp(Math.min(d.range.start, d.range.end), length);
  const to = clamp(Math.max(d.range.start, d.range.end), length);
  return { from, to, severity: d.severity, source: d.code, message: d.message };
}

function showProblems(result: Checked): void {
  const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = result.diagnostics.filter((d) => d.severity === 'warning').length;
  summary.textContent =
    result.diagnostics.length === 0
      ? `${result.file}: no problems`
      : `${result.file}: ${count(errors, 'error')}, ${count(warnings, 'warning')}` +
        (result.diagnostics.length > errors + warnings
          ? `, ${count(result.diagnostics.length - errors - warnings, 'note')}`
          : '');
  const items = result.diagnostics.map((d) => {
    const item = document.createElement('li');
    item.className = `problem ${d.severity}`;
    item.dataset.code = d.code;
    item.dataset.from = String(d.range.start);
    item.dataset.to = String(d.range.end);
    item.append(jump(d.range, `${where(result, d.range.start)}`, 'at'));
    const code = document.createElement('span');
    code.className = 'code';
    code.textContent = d.code;
    const message = document.createElement('span');
    message.className = 'message';
    message.textContent = d.message;
    item.append(' ', code, ' ', message);
    if (d.related?.length) {
      // a diagnostic's related locations: for PB700, one ungated path, a hop each
      const related = document.createElement('ol');
      related.className = 'related';
      for (const r of d.related) {
        const hop = document.createElement('li');
        if (r.file === result.file) hop.append(jump(r.range, where(result, r.range.start), 'at'), ' ');
        else hop.append(`${r.file} `);
        hop.append(r.message);
        related.append(hop);
      }
      item.append(related);
    }
    return item;
  });
  problems.replaceChildren(...items);
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function where(result: Checked, offset: number): string {
  const at = result.source.positionAt(clamp(offset, result.text.length));
  return `${at.line + 1}:${at.character + 1}`;
}

/** A button that selects a range of the text and shows it. */
function jump(range: { start: number; end: number }, label: string, className: string): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = className;
  button.textContent = label;
  button.addEventListener('click', () => {
    const length = view.state.doc.length;
    const selection = EditorSelection.range(clamp(range.start, length), clamp(range.end, length));
    view.dispatch({ selection, effects: EditorView.scrollIntoView(selection, { y: 'center' }) });
    view.focus();
  });
  return button;
}

// ------------------------------------------------------------------------------------ the graph

/** The last graph drawn: kept (greyed) while the playbook has errors. */
let lastGraph: { layout: GraphLayout<GraphLoop>; title: string } | undefined;

/** The playbook's graph: the one step graph of the panel; a step opens its line in the editor. */
function PlaygroundGraph(props: { layout: GraphLayout<GraphLoop>; title: string; stale: boolean }) {
  const { layout, title, stale } = props;
  const note = stale ? 'The playbook has errors: this is the graph of its last version without them.' : null;
  const after = layout.after.length
    ? `After the run: ${layout.after.map((a) => `${a.name} (${a.detail})`).join(', ')}`
    : null;
  return h(
    Fragment,
    null,
    note && h('p', { class: 'graph-note' }, note),
    h(StepGraph<GraphLoop>, {
      layout,
      label: `Steps of ${title}`,
      onOpen: (node) => revealLine(node.line, node.character),
    }),
    after && h('p', { class: 'graph-note' }, after),
  );
}

/** Puts the cursor at a 1-based line and column of the text and shows it. */
function revealLine(line: number, column: number): void {
  const doc = view.state.doc;
  const at = doc.line(Math.min(Math.max(1, line), doc.lines)).from + column - 1;
  const selection = EditorSelection.cursor(clamp(at, doc.length));
  view.dispatch({ selection, effects: EditorView.scrollIntoView(selection, { y: 'center' }) });
  view.focus();
}

function showGraph(result: Checked): void {
  if (result.graph) lastGraph = { layout: result.graph, title: result.ir?.title ?? result.file };
  graphBox.dataset.state = result.graph ? 'current' : 'stale';
  if (!lastGraph) {
    render(
      h('p', { class: 'graph-note' }, 'The playbook has errors: its graph is drawn once it has none.'),
      graphBox,
    );
    return;
  }
  render(h(PlaygroundGraph, { ...lastGraph, stale: !result.graph }), graphBox);
}

// ------------------------------------------------------------------------------------ the bound

function showBound(): void {
  const result = checked;
  if (!result) return;
  if (!result.ir) {
    boundBox.dataset.state = 'none';
    boundBox.replaceChildren(paragraph('No bound: the playbook has errors (explore runs on its IR).'));
    return;
  }
  const { exploration, failure } = boundOf(result.ir);
  if (!exploration) {
    boundBox.dataset.state = 'failed';
    boundBox.replaceChildren(paragraph(`The explorer could not run here: ${failure}`));
    return;
  }
  const atLeast = exploration.complete ? '' : 'at least ';
  const lines = [
    `${exploration.states.toLocaleString('en-US')} states explored (${exploration.transitions.toLocaleString('en-US')} transitions)` +
      (exploration.complete
        ? ''
        : `; the page's budget ran out, so the numbers are lower bounds (kairoku-playbook explore ${result.file} goes further)`),
  ];
  const table = document.createElement('table');
  const head = table.createTHead().insertRow();
  for (const h of ['step', 'kind', 'most attempts']) {
    const cell = document.createElement('th');
    cell.scope = 'col';
    cell.textContent = h;
    head.append(cell);
  }
  const body = table.createTBody();
  for (const unit of exploration.units) {
    const row = body.insertRow();
    row.dataset.step = unit.name;
    const attempts = unit.manual
      ? 'started by hand'
      : unit.maxAttempts === Infinity
        ? 'unbounded'
        : `${atLeast}${unit.maxAttempts}${unit.started ? '' : ' (never runs)'}`;
    for (const text of [unit.name, unit.kind, attempts]) row.insertCell().textContent = text;
  }
  const turns = exploration.worstTurns === Infinity ? 'unbounded' : `${atLeast}${exploration.worstTurns}`;
  const endings = exploration.endings.length ? exploration.endings.join(' or ') : 'never';
  const end = exploration.cycle
    ? 'some run never ends: it can go round forever'
    : exploration.stuck.length
      ? `runs end ${endings}, but some get stuck (PB311)`
      : exploration.complete
        ? `every run ends: ${endings}`
        : `runs end ${endings} in the states explored`;
  boundBox.dataset.state = exploration.complete ? 'complete' : 'partial';
  boundBox.replaceChildren(
    paragraph(lines[0]!),
    table,
    paragraph(`most agent turns in one run: ${turns}`),
    paragraph(end),
    ...exploration.notes.map((note) => paragraph(`note: ${note}`)),
  );
}

function paragraph(text: string): HTMLParagraphElement {
  const p = document.createElement('p');
  p.textContent = text;
  return p;
}

// ------------------------------------------------------------------------------------ tabs

const tabs = [...document.querySelectorAll<HTMLButtonElement>('[role="tab"]')];
for (const tab of tabs)
  tab.addEventListener('click', () => {
    for (const other of tabs) {
      const selected = other === tab;
      other.setAttribute('aria-selected', String(selected));
      other.tabIndex = selected ? 0 : -1;
      $(other.getAttribute('aria-controls')!).hidden = !selected;
    }
  });

// ------------------------------------------------------------------------------------ sharing

shareButton.addEventListener('click', () => {
  void share(); // (it catches its own failure and says it in the status line)
});

async function share(): Promise<void> {
  let fragment: string;
  try {
    fragment = await encodeShared({ file: fileName(), text: view.state.doc.toString() });
  } catch (error) {
    say(`No link: this browser could not compress the playbook (${String(error)}).`, 'error');
    return;
  }
  history.replaceState(null, '', fragment);
  const link = location.href;
  try {
    await navigator.clipboard.writeText(link);
    say('The link to this playbook is in the address bar and on the clipboard.');
  } catch {
    say('The link to this playbook is in the address bar: copy it from there.');
  }
}

exampleSelect.addEventListener('change', () => {
  const example = EXAMPLES.find((e) => e.origin === exampleSelect.value);
  if (!example) return;
  load(example.file, example.text);
  history.replaceState(null, '', location.pathname + location.search);
  say(`Loaded ${example.origin}.`);
});

fileInput.addEventListener('change', runCheck);

async function openFromLocation(): Promise<void> {
  let decoded: Awaited<ReturnType<typeof decodeShared>>;
  try {
    decoded = await decodeShared(location.hash);
  } catch (error) {
    decoded = { kind: 'bad', message: `the link could not be read (${String(error)})` };
  }
  if (decoded.kind === 'shared') {
    load(decoded.shared.file, decoded.shared.text);
    say(`Opened the playbook the link carries (${decoded.shared.file}).`);
    return;
  }
  const first = EXAMPLES[0];
  if (first) {
    exampleSelect.value = first.origin;
    load(first.file, first.text);
  }
  if (decoded.kind === 'bad')
    say(`${decoded.message}. Showing ${first?.origin ?? 'an empty playbook'} instead.`, 'error');
}

// (openFromLocation catches its own failures and says them in the status line)
window.addEventListener('hashchange', () => void openFromLocation());
void openFromLocation(); // (as above)
