/**
 * Incremental analysis: the analysis of a file after one edit, from the analysis before it, with exactly the
 * diagnostics `analyzeFile` gives the new text (compiler/test/incremental.test.ts compares them after every
 * edit of hundreds). Pure, as `analyzeFile`.
 *
 * The fast path is an edit inside the text of one template (a prompt, a command, a title, a feedback, …):
 * the YAML entry holding it (the step, or the playbook's own key) is parsed again alone, and when that
 * template is still one scalar of the same style, starting where it started and ending where the edit
 * moved its end, the rest of the file parses as before, only moved. Then the document, the model and the
 * semantic model move with the edit (every offset past it shifted), that one template is bound again in
 * its scope, and the checks (which read the bound model, a few per cent of a full analysis) run. The needs
 * graph, the scope provider, the types and every other template's binding are kept. Anything else (an edit
 * across a key, a name, `needs`, an output's declaration, a `when:`, a file with YAML errors, aliases or
 * a lone CR) is a full analysis.
 */
import { isMap, isNode, isPair, isScalar, isSeq, parseDocument } from 'yaml';
import type { Node, Pair, Scalar } from 'yaml';
import { rebindTemplate } from './bind/bind.js';
import { NameInExpression } from './bind/references.js';
import type { ExpressionReference, SymbolReference } from './bind/references.js';
import { ScalarLocator, SemanticModel } from './bind/semantic-model.js';
import type { BoundTemplate } from './bind/template.js';
import { analyzeFile, boundSource, finishBound, policyOf } from './compile.js';
import type { FileAnalysis } from './compile.js';
import type { OffsetRange } from './diagnostic.js';
import type { Place } from './bind/scope-provider.js';
import type { PlaybookModel } from './model/model.js';

/** One edit of a file's text: the characters [start, end) of the previous text become `text`. */
export interface TextChange {
  start: number;
  end: number;
  text: string;
}

/**
 * How an analysis made on the fast path came from the previous one (`templateEditOf`): the previous text,
 * the change, and the place of the one template that holds it. The rest of the file moved by
 * `change.text.length - (change.end - change.start)` past `change.end`, nothing else of it changed, so what
 * is derived from the rest (the language server's exploration, lsp/src/service/explore.ts) can be moved too.
 */
export interface TemplateEdit {
  before: string;
  change: TextChange;
  place: Place;
}

/** The fast path's edits, by the analysis they made (analyses are never changed after they are made). */
const templateEdits = new WeakMap<FileAnalysis, TemplateEdit>();

/** How `analysis` came from the previous text by an edit inside one template; undefined for any other. */
export function templateEditOf(analysis: FileAnalysis): TemplateEdit | undefined {
  return templateEdits.get(analysis);
}

export interface EditAnalysis {
  analysis: FileAnalysis;
  /** whether the edit was analysed incrementally (false: the whole file was analysed again) */
  incremental: boolean;
}

/**
 * Analyses a file after `change`, reusing `previous` (the analysis of the text before it) when the change
 * is confined to one template. `previous` is taken over: its document, model and semantic model move to the
 * new analysis, so it must not be read afterwards (its diagnostics stay as they were).
 */
export function analyzeChange(previous: FileAnalysis, change: TextChange): EditAnalysis {
  const text = previous.text.slice(0, change.start) + change.text + previous.text.slice(change.end);
  const analysis = incrementally(previous, change, text);
  return analysis
    ? { analysis, incremental: true }
    : { analysis: analyzeFile(previous.file, text, { policy: policyOf(previous) }), incremental: false };
}

/**
 * The analysis of a file's new text from the analysis of its previous text (taken over, as by
 * `analyzeChange`): the edit is the span where the texts differ. What an editor calls after each change.
 */
export function analyzeEdited(previous: FileAnalysis, text: string): FileAnalysis {
  if (previous.text === text) return previous;
  return analyzeChange(previous, changeBetween(previous.text, text)).analysis;
}

/** The one change that makes `after` of `before`: what lies between their common start and common end. */
export function changeBetween(before: string, after: string): TextChange {
  const shorter = Math.min(before.length, after.length);
  let start = 0;
  while (start < shorter && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let tail = 0;
  while (
    tail < shorter - start &&
    before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)
  )
    tail++;
  return { start, end: before.length - tail, text: after.slice(start, after.length - tail) };
}

function incrementally(previous: FileAnalysis, change: TextChange, text: string): FileAnalysis | undefined {
  const yaml = boundSource(previous);
  const semantic = previous.semantic;
  const model = previous.model;
  const document = yaml?.document;
  if (!yaml || !semantic || !model || !document) return undefined;
  if (!fastPathFits(yaml, previous.text, change, text)) return undefined;

  // The one template whose scalar holds the edit.
  const held = semantic.templates.filter((t) => holds(t.text.node, change));
  if (held.length !== 1) return undefined;
  const template = held[0]!;
  const node = template.text.node;
  if (template.place === 'when' || template.tagMistake || node.tag || node.anchor) return undefined;
  if (typeof node.value !== 'string') return undefined;

  // Parse the entry holding it again, alone, at its own columns.
  const entry = entryOf(document.contents, node);
  if (!entry) return undefined;
  const delta = change.text.length - (change.end - change.start);
  const reparsed = reparse(previous.text, text, entry, node, delta);
  if (!reparsed) return undefined;
  const locator = semantic.locator;
  if (!(locator instanceof ScalarLocator)) return undefined;

  // Everything past the edit moves by `delta`; the edited scalar takes the new parse's value.
  const shift = new Shift(change.end, delta);
  shift.document(document.contents, node);
  node.value = reparsed.value;
  node.source = reparsed.source;
  node.comment = reparsed.comment;
  node.srcToken = reparsed.srcToken;
  node.range = [node.range![0], node.range![1] + delta, node.range![2] + delta];
  const whole = (document as { range: [number, number, number] }).range;
  for (let i = 0; i < 3; i++) if (whole[i]! >= change.end) whole[i]! += delta;
  template.text.value = reparsed.value as string;
  if (!setPlainValue(yaml.value, document.contents, node, reparsed.value)) return undefined;
  shift.model(model);

  // The semantic model: the templates and references kept (their ranges moved), the edited one bound again.
  locator.moveTo(text);
  const rebound: ExpressionReference[] = [];
  const fresh = rebindTemplate(template, text, semantic.scopes, locator, rebound);
  const templates: BoundTemplate[] = [];
  for (const t of semantic.templates) {
    if (t === template) {
      templates.push(fresh);
      continue;
    }
    if (t.tagMistake) shift.range(t.tagMistake.range);
    // (its names of expressions are in the reference index too, forgotten below: only the others move here)
    for (const reference of t.references)
      if (!(reference instanceof NameInExpression)) shift.range(reference.range);
    templates.push(t);
  }
  const references = referencesAfter(semantic.references, { template, fresh, rebound }, templates, shift);
  yaml.text = text;
  yaml.parsedText = text;
  const next = new SemanticModel(
    previous.file,
    text,
    model,
    document,
    semantic.graph,
    semantic.scopes,
    templates,
    references,
    semantic.typeExpressions,
    locator,
  );
  const analysis = finishBound(previous.file, text, yaml, model, next, policyOf(previous));
  templateEdits.set(analysis, { before: previous.text, change, place: template.place });
  return analysis;
}

/**
 * What the fast path does not move: a file with YAML mistakes, aliases, keys that are not names, a lone CR
 * (duplicate gate choices too: the plain value holds the first choice, the edit may be in the second), or an
 * edit that writes or erases a suppression comment.
 */
function fastPathFits(
  yaml: NonNullable<ReturnType<typeof boundSource>>,
  before: string,
  change: TextChange,
  text: string,
): boolean {
  if (
    yaml.diagnostics.length ||
    yaml.damaged.length ||
    yaml.aliases.size ||
    yaml.keysNotNames.length ||
    yaml.duplicateChoices.length
  )
    return false;
  if (yaml.parsedText !== before || text.includes('\r')) return false;
  const removed = before.slice(change.start, change.end);
  // (a suppression comment is read from the text; one written or erased is not the template's business)
  if (/playbook-ignore/.test(removed + change.text)) return false;
  if (
    before.includes('playbook-ignore') &&
    /playbook-ignore/.test(text.slice(Math.max(0, change.start - 16), change.start + change.text.length + 16))
  )
    return false;
  return true;
}

/** The reference index after the edit: the edited template's references bound again, the others moved. */
function referencesAfter(
  previous: readonly SymbolReference[],
  edited: { template: BoundTemplate; fresh: BoundTemplate; rebound: ExpressionReference[] },
  templates: readonly BoundTemplate[],
  shift: Shift,
): SymbolReference[] {
  const { template, fresh, rebound } = edited;
  const references: SymbolReference[] = [];
  let placed = false;
  for (const reference of previous) {
    if ('template' in reference && reference.template === template) {
      if (!placed) for (const r of rebound) references.push(r);
      placed = true;
      continue;
    }
    forget(reference, shift);
    references.push(reference);
  }
  // (a template without references before the edit: its new ones go where binding would put them)
  if (!placed && rebound.length) {
    const order = new Map(templates.map((t, i) => [t, i]));
    const at = references.findIndex(
      (r) => 'template' in r && (order.get(r.template) ?? -1) > (order.get(fresh) ?? 0),
    );
    references.splice(at < 0 ? references.length : at, 0, ...rebound);
  }
  return references;
}

/** Whether an edit lies inside a scalar's text: after its first character, not past its value's end. */
function holds(node: Scalar, change: TextChange): boolean {
  const range = node.range;
  return range !== null && range !== undefined && range[0] < change.start && change.end <= range[1];
}

/** The pair to parse again: the step (or after-task) holding the node, else the top-level pair holding it. */
function entryOf(contents: unknown, node: Scalar): Pair | undefined {
  if (!isMap(contents)) return undefined;
  const top = contents.items.find((pair) => within(pair, node));
  if (!top) return undefined;
  const key = isScalar(top.key) ? top.key.value : undefined;
  if ((key === 'steps' || key === 'after') && isMap(top.value)) {
    const step = top.value.items.find((pair) => within(pair, node));
    if (step) return step;
  }
  return top;
}

function within(pair: Pair, node: Scalar): boolean {
  const key = pair.key as Node | null;
  const value = pair.value as Node | null;
  const start = key?.range?.[0];
  const end = value?.range?.[2];
  return start !== undefined && end !== undefined && start <= node.range![0] && node.range![2] <= end;
}

/**
 * The edited scalar as the entry's text parses alone, when it is still the same kind of scalar from the same
 * start to its old end moved by `delta` (then the file around it parses as before); undefined otherwise.
 */
function reparse(
  before: string,
  after: string,
  entry: Pair,
  node: Scalar,
  delta: number,
): Scalar | undefined {
  const start = (entry.key as Node).range![0];
  const end = (entry.value as Node).range![2] + delta;
  const lineStart = before.lastIndexOf('\n', start - 1) + 1;
  // (only spaces before the key on its line: a key of a block mapping)
  if (before.slice(lineStart, start).trim() !== '') return undefined;
  const column = start - lineStart;
  const base = start - column;
  const parsed = parseDocument(' '.repeat(column) + after.slice(start, end), {
    keepSourceTokens: false, // (as readYaml parses: the same scalar maps)
    prettyErrors: false,
    uniqueKeys: false,
    strict: true,
  });
  if (parsed.errors.length || parsed.warnings.length) return undefined;
  const path = pathTo(entry, node);
  if (!path || !isMap(parsed.contents) || parsed.contents.items.length !== 1) return undefined;
  let found: unknown = parsed.contents.items[0];
  for (const step of path) {
    if (step === 'value') found = isPair(found) ? found.value : undefined;
    else if (isMap(found)) found = found.items[step];
    else if (isSeq(found)) found = found.items[step];
    else return undefined;
  }
  if (!isScalar(found) || found.type !== node.type || found.tag || found.anchor) return undefined;
  if (typeof found.value !== 'string') return undefined;
  const range = found.range!;
  const old = node.range!;
  if (range[0] + base !== old[0] || range[1] + base !== old[1] + delta || range[2] + base !== old[2] + delta)
    return undefined;
  return found;
}

/** The way from a pair down to a node: `value` for a pair's value, an index for a collection's item. */
function pathTo(entry: Pair, node: Scalar): ('value' | number)[] | undefined {
  const walk = (at: unknown, path: ('value' | number)[]): ('value' | number)[] | undefined => {
    if (at === node) return path;
    if (isPair(at)) return at.key === node ? undefined : walk(at.value, [...path, 'value']);
    if (isMap(at) || isSeq(at)) {
      const items = at.items as unknown[];
      for (let i = 0; i < items.length; i++) {
        const item = items[i] as { range?: unknown } | Pair;
        if (!holdsNode(item, node)) continue;
        return walk(item, [...path, i]);
      }
    }
    return undefined;
  };
  return walk(entry, []);
}

function holdsNode(item: unknown, node: Scalar): boolean {
  if (item === node) return true;
  if (isPair(item)) return item.value === node || within(item, node);
  if (isNode(item)) {
    const range = item.range;
    return range !== null && range !== undefined && range[0] <= node.range![0] && node.range![2] <= range[2];
  }
  return false;
}

/** Sets the edited scalar's value in the plain value the schema check reads (the document without aliases mirrors it). */
function setPlainValue(value: unknown, contents: unknown, node: Scalar, next: unknown): boolean {
  let plain = value;
  let at: unknown = contents;
  for (;;) {
    if (isMap(at)) {
      const pair = at.items.find((p) => p.value === node || holdsNode(p.value, node) || p.key === node);
      if (!pair || pair.key === node || !isScalar(pair.key)) return false;
      const key = String(pair.key.value);
      if (!plain || typeof plain !== 'object' || !Object.prototype.hasOwnProperty.call(plain, key))
        return false;
      if (pair.value === node) {
        (plain as Record<string, unknown>)[key] = next;
        return true;
      }
      plain = (plain as Record<string, unknown>)[key];
      at = pair.value;
    } else if (isSeq(at)) {
      const index = at.items.findIndex((item) => item === node || holdsNode(item, node));
      if (index < 0 || !Array.isArray(plain)) return false;
      if (at.items[index] === node) {
        plain[index] = next;
        return true;
      }
      plain = plain[index];
      at = at.items[index];
    } else return false;
  }
}

/** A name in an expression works its range out again; any other reference's range moves. */
function forget(reference: SymbolReference, shift: Shift): void {
  if (reference instanceof NameInExpression) reference.forgetRange();
  else shift.range(reference.range);
}

/**
 * Moves every offset at or past `from` by `delta`, each range once. (Walks without a set of the objects
 * seen: the document has no aliases here, so it is a tree, and the model is one but for the steps listed
 * twice and the ranges some of its parts share, which `range` moves once.)
 */
class Shift {
  private readonly moved = new Set<OffsetRange>();

  constructor(
    private readonly from: number,
    private readonly delta: number,
  ) {}

  range(range: OffsetRange): void {
    if (range.end < this.from || this.moved.has(range)) return;
    this.moved.add(range);
    if (range.start >= this.from) range.start += this.delta;
    range.end += this.delta;
  }

  /** The YAML nodes' ranges (all but `skip`, which takes its new parse's); a part ending before the edit is left. */
  document(contents: unknown, skip: Scalar): void {
    const { from, delta } = this;
    const stack: unknown[] = [contents];
    while (stack.length) {
      const node = stack.pop();
      if (!node || typeof node !== 'object') continue;
      if (isPair(node)) {
        stack.push(node.key, node.value);
        continue;
      }
      if (!isNode(node)) continue;
      const r = node.range;
      if (r) {
        if (r[2] < from) continue;
        if (node !== skip) {
          if (r[0] >= from) r[0] += delta;
          if (r[1] >= from) r[1] += delta;
          r[2] += delta;
        }
      }
      if (isMap(node) || isSeq(node)) for (const item of node.items as unknown[]) stack.push(item);
    }
  }

  /** The model's ranges: every object with a numeric `start` and `end` (YAML nodes and types are not walked). */
  model(model: PlaybookModel): void {
    const stack: unknown[] = [];
    for (const key of Object.keys(model) as (keyof PlaybookModel)[])
      if (key !== 'stepByName') stack.push(model[key]);
    while (stack.length) {
      const item = stack.pop();
      if (!item || typeof item !== 'object') continue;
      if (Array.isArray(item)) {
        for (const entry of item) stack.push(entry);
        continue;
      }
      if (item instanceof Map) {
        for (const entry of item.values()) stack.push(entry);
        continue;
      }
      const record = item as Record<string, unknown>;
      if (typeof record.start === 'number' && typeof record.end === 'number') {
        this.range(record as unknown as OffsetRange);
        continue;
      }
      for (const key in record) {
        if (key === 'node' || key === 'type') continue;
        const entry = record[key];
        if (entry && typeof entry === 'object') stack.push(entry);
      }
    }
  }
}
