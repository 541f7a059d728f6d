import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compilePlaybook } from '@kairoku-playbook/compiler';
import { PlaybookLanguageService } from '@kairoku-playbook/lsp';
import { renderGraphPage } from '../src/graph-page.js';
import { isGraphAnswer } from '../src/graph-protocol.js';
import type { GraphAnswer, PlaybookGraph } from '@kairoku-playbook/protocol';
import { escapeHtml, renderGraphHtml, renderMessageHtml } from '../src/graph-view.js';

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

const ASSETS = {
  cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
  script: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/panel/graph.js',
  style: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/panel/graph.css',
};
const OPTIONS = { nonce: NONCE, assets: ASSETS };

/** The graph the page carries for graph.js to draw. */
function carried(html: string): unknown {
  const json = /<script type="application\/json" id="graph-data">([^<]*)<\/script>/.exec(html)?.[1];
  return json === undefined ? undefined : JSON.parse(json);
}

// How the graph is drawn (rows, lines, lanes, widths, clicks) is the panel's step graph's, tested in
// Chromium by graph-view-browser.test.ts; here, the page around it.
describe('renderGraphHtml: playbooks/pr.yml', () => {
  const ir = graphOf('playbooks/pr.yml');
  const html = renderGraphHtml(ir, { ...OPTIONS, file: 'playbooks/pr.yml' });

  it("carries the server's graph for the panel's step graph to draw, and loads its script and style", () => {
    expect(carried(html)).toEqual(ir);
    expect(html).toContain(`<script type="module" src="${ASSETS.script}"></script>`);
    expect(html).toContain(`<link rel="stylesheet" href="${ASSETS.style}">`);
    expect(html).toContain('<main id="graph"></main>');
  });

  it('lists the loops, each a button to its step, and the after-tasks', () => {
    const loops = elements(html, 'button', 'loop-link');
    expect(loops.map((l) => l['data-line'])).toHaveLength(3);
    expect(html).toContain('qa: fail ×3 → implement, then fail');
    expect(html).toContain('<h2>After the run</h2>');
    expect(html).toContain(
      '<strong>summarize</strong> <span class="muted">agent · researcher · auto on completed, failed</span>',
    );
    const qa = ir.steps.find((s) => s.name === 'qa')!;
    expect(loops[0]).toMatchObject({ 'data-line': String(qa.line), 'data-column': String(qa.character) });
  });

  it('says the worst case of a run once the server has explored the playbook', () => {
    const bounds = {
      explored: true,
      agentTurns: 17,
      gateDecisions: 3,
      chainTurns: 17,
      longestMs: 14_400_000,
    };
    expect(renderGraphHtml({ ...ir, bounds }, OPTIONS)).toContain(
      '<p class="bound"><strong>Worst case</strong> At most 17 agent turns and 3 decisions by a person; at most 4 h by the timeouts.</p>',
    );
    expect(html).not.toContain('class="bound"');
    expect(isGraphAnswer({ ...ir, bounds })).toBe(true);
    expect(isGraphAnswer({ ...ir, bounds: { ...bounds, agentTurns: -1 } })).toBe(false);
  });

  it('says a playbook without steps has none instead of an empty graph', () => {
    const empty = renderGraphHtml({ ...ir, steps: [], edges: [], loops: [], rows: 0 }, OPTIONS);
    expect(empty).toContain('This playbook has no steps.');
    expect(carried(empty)).toBeUndefined();
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
  const html = renderGraphHtml(ir, { ...OPTIONS, file: 'evil/"><script>.playbook.yml' });

  it("has a strict Content-Security-Policy: the extension's files and the page's own style, nothing else", () => {
    // as the browser reads the attribute
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/
      .exec(html)![1]!
      .replace(/&#39;/g, "'");
    expect(csp.split('; ')).toEqual([
      "default-src 'none'",
      `style-src ${ASSETS.cspSource} 'nonce-${NONCE}'`,
      `script-src ${ASSETS.cspSource}`,
      "img-src 'none'",
      "font-src 'none'",
      "connect-src 'none'",
      "form-action 'none'",
      "base-uri 'none'",
    ]);
    // No script runs but graph.js: the other script element is JSON (never executed). The page's own
    // style carries the nonce; no inline style attributes or handlers (the CSP would drop them).
    const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]!.trim());
    expect(scripts).toEqual([
      `type="module" src="${ASSETS.script}"`,
      'type="application/json" id="graph-data"',
    ]);
    expect([...html.matchAll(/<style\b([^>]*)>/g)].every((m) => m[1]!.includes(`nonce="${NONCE}"`))).toBe(
      true,
    );
    expect(html).not.toMatch(/\sstyle="/);
    expect(html).not.toMatch(/\son\w+="/);
  });

  it('escapes every text from the playbook, in the HTML and in the JSON it carries', () => {
    expect(html.match(/<script\b/g)).toHaveLength(2);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('</title><script>');
    expect(html).toContain('evil/&quot;&gt;&lt;script&gt;.playbook.yml');
    expect(html).toContain('plan: again ×2 → plan, then fail');
    expect(carried(html)).toEqual(ir);
  });

  it('refuses a nonce or a CSP source that could break out of its attribute or loosen the policy', () => {
    expect(() => renderGraphHtml(ir, { ...OPTIONS, nonce: `${NONCE}" onload="x` })).toThrow(/nonce/);
    expect(() => renderGraphHtml(ir, { ...OPTIONS, nonce: 'short' })).toThrow(/nonce/);
    expect(() => renderMessageHtml('<b>', { ...OPTIONS, nonce: 'short' })).toThrow(/nonce/);
    for (const cspSource of ["'unsafe-inline'", 'https://x; script-src *', `'nonce-${NONCE}'`])
      expect(() => renderGraphHtml(ir, { ...OPTIONS, assets: { ...ASSETS, cspSource } })).toThrow(
        /CSP source/,
      );
    expect(renderMessageHtml('<b>', OPTIONS)).toContain('&lt;b&gt;');
  });

  it('escapes all five HTML specials', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
});

describe('renderGraphPage', () => {
  it('draws the graph of a playbook without errors', () => {
    const page = renderGraphPage(answerOf('playbooks/pr.yml'), OPTIONS);
    expect(page.errors).toBe(0);
    expect(page.steps).toEqual(['plan', 'implement', 'qa', 'review', 'ship']);
    expect(carried(page.html)).toMatchObject({ kind: 'graph', id: 'pr' });
  });

  it('shows the error count and the first problems of a broken playbook', () => {
    const text = readFileSync(repo('playbooks/pr.yml'), 'utf8').replace('needs: [qa]', 'needs: [qaa]');
    const page = renderGraphPage(answerOf('playbooks/pr.yml', text), OPTIONS);
    const { diagnostics } = compilePlaybook('playbooks/pr.yml', text);
    const errors = diagnostics.filter((d) => d.severity === 'error');
    expect(page.errors).toBe(errors.length);
    expect(page.errors).toBeGreaterThan(0);
    expect(page.steps).toEqual([]);
    expect(carried(page.html)).toBeUndefined();
    expect(page.html).toContain(`${errors.length} error${errors.length === 1 ? '' : 's'}`);
    const first = errors[0]!;
    expect(page.html).toContain(`<code>${first.code}</code> ${escapeHtml(first.message)}`);
    const line = text.slice(0, first.range.start).split('\n').length;
    expect(page.html).toContain(`data-line="${line}"`);
  });

  it('says why there is no graph when the server has none (a playbook test, a document it does not have)', () => {
    const page = renderGraphPage({ kind: 'none', message: 'Not <open>.' }, OPTIONS);
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
      ...OPTIONS,
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
    // graph.js posts { type: 'open-run', run } for such a button (graph-view-browser.test.ts clicks one).
  });

  it('is not there without active runs', () => {
    expect(renderGraphHtml(pr, OPTIONS)).not.toContain('class="run-link"');
    expect(renderGraphHtml(pr, { ...OPTIONS, runs: [] })).not.toContain('Active runs');
  });
});
