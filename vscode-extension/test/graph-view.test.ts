import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compilePlaybook } from '@kairoku-playbook/compiler';
import { PlaybookLanguageService } from '@kairoku-playbook/lsp';
import { layoutGraph } from '@kairoku-playbook/panel/layout';
import { renderGraphPage } from '../src/graph-page.js';
import { isGraphAnswer } from '../src/graph-protocol.js';
import type { GraphAnswer, PlaybookGraph } from '@kairoku-playbook/protocol';
import { GRAPH_METRICS, escapeHtml, renderGraphHtml, renderMessageHtml } from '../src/graph-view.js';

const NONCE = 'dGVzdC1ub25jZS0xMjM0NTY=';
const repo = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/**
 * What the language server answers `kairoku-playbook/graph` for a document holding `text`: the language
 * service's answer (no connection, no disk), through JSON as it travels.
 */
function answerOf(file: string, text = readFileSync(repo(file), 'utf8')): GraphAnswer {
  const service = new PlaybookLanguageService({
    readFile: () => ({ problem: 'missing', message: 'no such file' }),
    readDirectory: () => [],
  });
  const uri = `file:///workspace/${file}`;
  service.setFolders([{ uri: 'file:///workspace', name: 'workspace' }]);
  service.openDocument(uri, text, 1);
  const answer: unknown = JSON.parse(JSON.stringify(service.graph(uri)));
  if (!isGraphAnswer(answer)) throw new Error(`not a graph answer: ${JSON.stringify(answer)}`);
  return answer;
}

function graphOf(file: string, text?: string): PlaybookGraph {
  const answer = answerOf(file, text);
  if (answer.kind !== 'graph') throw new Error(`${file} has no graph: ${JSON.stringify(answer)}`);
  return answer;
}

/** The opening tags of the elements with class `name`, as attribute maps. */
function elements(html: string, tag: string, className: string): Record<string, string>[] {
  const found: Record<string, string>[] = [];
  for (const match of html.matchAll(new RegExp(`<${tag}\\s([^>]*)>`, 'g'))) {
    const attributes: Record<string, string> = {};
    for (const a of match[1]!.matchAll(/([\w:-]+)="([^"]*)"/g)) attributes[a[1]!] = a[2]!;
    if ((attributes.class ?? '').split(' ').includes(className)) found.push(attributes);
  }
  return found;
}

const rowsOf = (html: string) => {
  const rows = new Map<number, string[]>();
  for (const node of elements(html, 'button', 'node'))
    rows.set(Number(node['data-row']), [...(rows.get(Number(node['data-row'])) ?? []), node['data-step']!]);
  return [...rows].sort((a, b) => a[0] - b[0]).map(([, steps]) => steps);
};

/** Each step's depth: one more than its deepest need. */
function depths(graph: PlaybookGraph): number[] {
  const depth: number[] = [];
  for (const step of graph.steps) depth[step.index] = Math.max(-1, ...step.needs.map((n) => depth[n]!)) + 1;
  return depth;
}

describe('renderGraphHtml: playbooks/pr.yml', () => {
  const ir = graphOf('playbooks/pr.yml');
  const html = renderGraphHtml(ir, { nonce: NONCE, file: 'playbooks/pr.yml' });

  it('puts each step one row below its deepest need', () => {
    expect(rowsOf(html)).toEqual([['plan'], ['implement'], ['qa'], ['review'], ['ship']]);
    const depth = depths(ir);
    for (const node of layoutGraph(ir).nodes) expect(node.row).toBe(depth[node.index]);
  });

  it('draws a connector line from each need to its step', () => {
    const lines = elements(html, 'line', 'need').map((l) => `${l['data-from']}→${l['data-to']}`);
    expect(lines).toEqual(['plan→implement', 'implement→qa', 'qa→review', 'review→ship']);
    // x in percent (follows the width), y in pixels: from the bottom of a row to the top of the next.
    const first = elements(html, 'line', 'need')[0]!;
    expect(first).toMatchObject({ x1: '50%', x2: '50%', y1: String(GRAPH_METRICS.nodeHeight) });
    expect(Number(first.y2)).toBeCloseTo(GRAPH_METRICS.nodeHeight + GRAPH_METRICS.rowGap, -1);
  });

  it('shows loops as dashed lanes back up the graph, labelled with outcome and maximum', () => {
    const lanes = [...html.matchAll(/<g class="loop" ([^>]*)>(.*?)<\/g>/g)].map((m) => ({
      attributes: m[1]!,
      body: m[2]!,
    }));
    expect(lanes).toHaveLength(3);
    const fail = lanes.find((l) => l.attributes.includes('data-from="qa"'))!;
    expect(fail.attributes).toContain('data-to="implement"');
    expect(fail.body).toMatch(/<path d="M0 [\d.]+ H[\d.]+ V[\d.]+ H2" stroke-dasharray="5 4"/);
    expect(fail.body).toContain('>fail ×3</text>');
    expect(fail.body).toContain('<title>qa: fail → back to implement (max 3, then fail)</title>');
    expect(lanes.map((l) => /<text[^>]*>([^<]*)<\/text>/.exec(l.body)![1])).toEqual([
      'fail ×3',
      'changes_requested ×3',
      'revise ×2',
    ]);
    // The path goes up: from the looping step's row to its target's.
    const [, out, , back] = /M0 ([\d.]+) H([\d.]+) V([\d.]+)/.exec(fail.body)!.map(Number);
    expect(back!).toBeLessThan(out!);
    // Lanes have room of their own beside the node tracks.
    expect(html).toContain(`repeat(3, ${GRAPH_METRICS.laneWidth}px)`);
    expect(html).toContain('<li><button type="button" data-line=');
  });

  it('widens nodes with the panel from 132 to 240 px', () => {
    // Two half-slot tracks per node, less the gap between parallel nodes.
    const [, min, max] = /repeat\(2, minmax\((\d+)px, (\d+)px\)\)/.exec(html)!.map(Number);
    expect(2 * min! - GRAPH_METRICS.nodeGap).toBe(132);
    expect(2 * max! - GRAPH_METRICS.nodeGap).toBe(240);
    expect(html).toContain('justify-content: safe center');
    expect(html).toContain('overflow-x: auto');
  });

  it('labels steps like kairoku-playbook graph, with their condition, and lists the after-tasks', () => {
    const review = elements(html, 'button', 'node').find((n) => n['data-step'] === 'review')!;
    expect(review.title).toContain('agent · security-reviewer');
    expect(review.title).toContain('when: inputs.strict || inputs.reviewers &gt; 1');
    expect(html).toContain('<span class="detail when">when inputs.strict || inputs.reviewers &gt; 1</span>');
    expect(elements(html, 'button', 'gate').map((n) => n['data-step'])).toEqual(['ship']);
    expect(elements(html, 'button', 'check').map((n) => n['data-step'])).toEqual(['qa']);
    expect(html).toContain('<h2>After the run</h2>');
    expect(html).toContain(
      '<strong>summarize</strong> <span class="muted">agent · researcher · auto on completed, failed</span>',
    );
  });

  it('lets a click reveal the step: its line and column in the file', () => {
    const plan = elements(html, 'button', 'node').find((n) => n['data-step'] === 'plan')!;
    const step = ir.steps.find((s) => s.name === 'plan')!;
    expect([Number(plan['data-line']), Number(plan['data-column'])]).toEqual([step.line, step.character]);
    expect(html).toContain("vscode.postMessage({ type: 'reveal'");
    expect(renderGraphHtml(ir, { nonce: NONCE, interactive: false })).not.toContain('<script');
  });
});

describe('renderGraphHtml: playbooks/research.yml', () => {
  const ir = graphOf('playbooks/research.yml');
  const html = renderGraphHtml(ir, { nonce: NONCE });

  it('puts parallel steps side by side in one row, centred under their need', () => {
    expect(rowsOf(html)).toEqual([['scope'], ['docs', 'ecosystem', 'codebase', 'prior-art'], ['synthesize']]);
    const layout = layoutGraph(ir);
    expect(layout.width).toBe(4);
    const centres = Object.fromEntries(layout.nodes.map((n) => [n.name, n.center]));
    expect(centres).toEqual({
      scope: 0.5,
      docs: 0.125,
      ecosystem: 0.375,
      codebase: 0.625,
      'prior-art': 0.875,
      synthesize: 0.5,
    });
    expect(html).toContain(
      `.graph > .s${layout.nodes.find((n) => n.name === 'codebase')!.index} { grid-row: 3; grid-column: 5 / span 2; }`,
    );
  });

  it('draws every need, and no loop lanes', () => {
    expect(elements(html, 'line', 'need')).toHaveLength(8);
    expect(html).not.toContain('class="loop"');
    expect(html).not.toContain('class="lanes"');
  });

  it('shows titles as labels and the names beside the kind', () => {
    const docs = elements(html, 'button', 'node').find((n) => n['data-step'] === 'docs')!;
    expect(docs.title).toMatch(/^Official documentation \(docs\)\nagent · web-researcher/);
    expect(html).toContain(
      '<span class="label">Official documentation</span><span class="detail">docs · agent · web-researcher</span>',
    );
  });
});

describe('the graph page is safe', () => {
  const hostile = `version: 1
id: hostile
title: '</title><script>alert(1)</script>'
steps:
  plan:
    title: "<script>alert('x')</script> & <img src=x onerror=alert(2)>"
    role: planner
    prompt: Plan it.
    outcomes:
      done: next
      again: { loop: plan, max: 2 }
  "build":
    needs: [plan]
    run: ['echo "<b>"']
`;
  const ir = graphOf('evil/"><script>.playbook.yml', hostile);
  const html = renderGraphHtml(ir, { nonce: NONCE, file: 'evil/"><script>.playbook.yml' });

  it('has a strict Content-Security-Policy and loads nothing', () => {
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)![1]!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`style-src 'nonce-${NONCE}'`);
    expect(csp).toContain(`script-src 'nonce-${NONCE}'`);
    expect(csp).not.toContain('unsafe');
    expect(html).not.toMatch(/https?:|\ssrc="|<link|@import|url\((?!#)/);
    // Every style and script carries the nonce; no inline style attributes (the CSP would drop them).
    expect(
      [...html.matchAll(/<(style|script)\b([^>]*)>/g)].every((m) => m[2]!.includes(`nonce="${NONCE}"`)),
    ).toBe(true);
    expect(html).not.toMatch(/\sstyle="/);
    expect(html).not.toMatch(/\son\w+="/);
  });

  it('escapes every text from the playbook', () => {
    expect(html.match(/<script\b/g)).toHaveLength(1);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('</title><script>');
    expect(html).toContain(
      '&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(2)&gt;',
    );
    expect(html).toContain('evil/&quot;&gt;&lt;script&gt;.playbook.yml');
    expect(html).toContain('again ×2');
  });

  it('refuses a nonce that could break out of its attribute', () => {
    expect(() => renderGraphHtml(ir, { nonce: `${NONCE}" onload="x` })).toThrow(/nonce/);
    expect(() => renderGraphHtml(ir, { nonce: 'short' })).toThrow(/nonce/);
    expect(() => renderMessageHtml('<b>', { nonce: 'short' })).toThrow(/nonce/);
    expect(renderMessageHtml('<b>', { nonce: NONCE })).toContain('&lt;b&gt;');
  });

  it('escapes all five HTML specials', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
});

describe('renderGraphPage', () => {
  it('draws the graph of a playbook without errors', () => {
    const page = renderGraphPage(answerOf('playbooks/pr.yml'), { nonce: NONCE });
    expect(page.errors).toBe(0);
    expect(page.steps).toEqual(['plan', 'implement', 'qa', 'review', 'ship']);
    expect(page.html).toContain('class="graph"');
  });

  it('shows the error count and the first problems of a broken playbook', () => {
    const text = readFileSync(repo('playbooks/pr.yml'), 'utf8').replace('needs: [qa]', 'needs: [qaa]');
    const page = renderGraphPage(answerOf('playbooks/pr.yml', text), { nonce: NONCE });
    const { diagnostics } = compilePlaybook('playbooks/pr.yml', text);
    const errors = diagnostics.filter((d) => d.severity === 'error');
    expect(page.errors).toBe(errors.length);
    expect(page.errors).toBeGreaterThan(0);
    expect(page.steps).toEqual([]);
    expect(page.html).not.toContain('class="graph"');
    expect(page.html).toContain(`${errors.length} error${errors.length === 1 ? '' : 's'}`);
    const first = errors[0]!;
    expect(page.html).toContain(`<code>${first.code}</code> ${escapeHtml(first.message)}`);
    const line = text.slice(0, first.range.start).split('\n').length;
    expect(page.html).toContain(`data-line="${line}"`);
  });

  it('says why there is no graph when the server has none (a playbook test, a document it does not have)', () => {
    const page = renderGraphPage({ kind: 'none', message: 'Not <open>.' }, { nonce: NONCE });
    expect(page).toMatchObject({ errors: 0, warnings: 0, steps: [] });
    expect(page.html).toContain('Not &lt;open&gt;.');
  });
});

describe('an answer from the server', () => {
  it('is drawn only when it has the shape of a graph answer', () => {
    const graph = graphOf('playbooks/pr.yml');
    expect(isGraphAnswer(graph)).toBe(true);
    expect(isGraphAnswer({ kind: 'none', message: 'no' })).toBe(true);
    // Numbers place nodes in the page's style sheet: only whole numbers are taken.
    const step = graph.steps[0]!;
    for (const broken of [
      { ...graph, steps: [{ ...step, row: '1; } body { display: none' }, ...graph.steps.slice(1)] },
      { ...graph, steps: [{ ...step, index: -1 }, ...graph.steps.slice(1)] },
      { ...graph, steps: [...graph.steps].reverse() },
      { ...graph, edges: [{ from: 0.5, to: 1 }] },
      { ...graph, kind: 'other' },
      { kind: 'problems', file: 'x', errors: 1, warnings: 0, problems: [{ line: 1 }] },
      null,
      'graph',
    ])
      expect(isGraphAnswer(broken)).toBe(false);
  });
});

describe('the link to an active run', () => {
  const pr = graphOf('playbooks/pr.yml');

  it('lists each active run with a button that posts its id (the extension opens it in the Playbooks view)', () => {
    const html = renderGraphHtml(pr, {
      nonce: NONCE,
      runs: [
        { id: 'pr-1a2b3c', status: 'running', waiting: 1 },
        { id: 'pr-"><b>', status: 'paused', waiting: 0 },
      ],
    });
    expect(elements(html, 'button', 'run-link').map((b) => b['data-run'])).toEqual([
      'pr-1a2b3c',
      'pr-&quot;&gt;&lt;b&gt;',
    ]);
    expect(html).toContain(
      'Open run pr-1a2b3c in the Playbooks view</button> <span class="muted">running · 1 waiting</span>',
    );
    expect(html).not.toContain('<b>');
    // The page's one script posts { type: 'open-run', run } for such a button, before the reveal of a step.
    expect(html).toMatch(/closest\('\[data-run\]'\)[\s\S]*type: 'open-run', run: run\.dataset\.run/);
  });

  it('is not there without active runs', () => {
    expect(renderGraphHtml(pr, { nonce: NONCE })).not.toContain('class="run-link"');
    expect(renderGraphHtml(pr, { nonce: NONCE, runs: [] })).not.toContain('Active runs');
  });
});
