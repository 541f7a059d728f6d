/**
 * The graph webview's document, as a string from the server's graph: no `vscode` here, so it is unit-tested.
 *
 * Nodes are HTML buttons on a CSS grid whose half-slot tracks are 74–128 px, so a node (two tracks less
 * its 16 px gap) is 132–240 px wide and widens with the panel; the page scrolls sideways only when the
 * nodes do not fit. Behind the nodes an SVG spans the node tracks: connector lines have their x in
 * percent of the graph's width and their y in pixels (rows have fixed heights), so they follow the
 * nodes at any width without stretching anything. Loops run in fixed-width lanes to the right.
 *
 * Strict Content-Security-Policy: nothing but this document's own nonce-tagged style and script, no
 * remote or local resources; every text from the playbook is escaped.
 *
 * The layout is the one of `@kairoku-playbook/panel/layout` (the panel and `kairoku-playbook graph` draw
 * it too): pure geometry that imports nothing of the playbook packages, so the extension still knows
 * nothing of playbooks but what its server tells it.
 */
import { layoutGraph } from '@kairoku-playbook/panel/layout';
import type {
  GraphLayout as Layout,
  GraphLoop as LaidOutLoop,
  GraphNode,
} from '@kairoku-playbook/panel/layout';
import type { GraphLoop as ServerLoop, GraphProblem, PlaybookGraph } from '@kairoku-playbook/protocol';

/** The server's graph laid out; its loops keep what the server says of them (`exhausted`). */
type GraphLayout = Layout<ServerLoop>;
type GraphLoop = LaidOutLoop<ServerLoop>;

export interface GraphViewOptions {
  /** a fresh random value per panel: the only style and script the page may run carry it */
  nonce: string;
  /** the file as shown to the user (relative to the workspace); default: as the server names it */
  file?: string;
  /** click a node to reveal its step (a small script posting `{ type: 'reveal', line, column }`); default true */
  interactive?: boolean;
  /**
   * the playbook's active runs (from the workspace's serve): each gets a button that posts
   * `{ type: 'open-run', run }`, and the extension opens it in the Playbooks view
   */
  runs?: GraphRunLink[];
}

export interface GraphRunLink {
  id: string;
  status: string;
  /** open gates and permission requests */
  waiting: number;
}

/** A problem as the page lists it (1-based line and UTF-16 column). */
export type ProblemLine = GraphProblem;

export interface ProblemsView {
  /** the file as shown to the user */
  file: string;
  errors: number;
  warnings: number;
  /** the first few problems, shown under the count */
  problems: ProblemLine[];
}

/** Geometry, in CSS pixels. */
export const GRAPH_METRICS = {
  nodeMinWidth: 132,
  nodeMaxWidth: 240,
  /** horizontal space between parallel nodes */
  nodeGap: 16,
  nodeHeight: 56,
  /** vertical space between rows, where the connector lines run */
  rowGap: 40,
  laneWidth: 28,
} as const;

const M = GRAPH_METRICS;

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

function checkNonce(nonce: string): string {
  if (!/^[A-Za-z0-9+/_=-]{16,}$/.test(nonce))
    throw new Error('the nonce must be 16 or more base64 characters');
  return nonce;
}

/** Numbers as SVG attributes: at most two decimals, no exponent. */
function num(value: number): string {
  return String(Math.round(value * 100) / 100);
}

const pct = (fraction: number) => `${num(fraction * 100)}%`;

const rowTop = (row: number) => row * (M.nodeHeight + M.rowGap);

const BASE_STYLE = `
:root { color-scheme: light dark; }
body { margin: 0; padding: 16px 20px 24px; font-family: var(--vscode-font-family, sans-serif);
  font-size: var(--vscode-font-size, 13px); color: var(--vscode-foreground, #333);
  background: var(--vscode-editor-background, #fff); }
header h1 { font-size: 1.25em; font-weight: 600; margin: 0 0 2px; }
header p { margin: 0 0 16px; color: var(--vscode-descriptionForeground, #777); }
.scroller { overflow-x: auto; padding-bottom: 8px; }
.graph { display: grid; width: 100%; min-width: min-content; justify-content: safe center; }
.graph > svg { width: 100%; height: 100%; overflow: visible; }
.graph > svg.edges { pointer-events: none; }
.edges line { stroke: var(--vscode-editorIndentGuide-activeBackground1, var(--vscode-descriptionForeground, #999));
  stroke-width: 1.5; fill: none; }
.edges marker path { fill: var(--vscode-editorIndentGuide-activeBackground1, var(--vscode-descriptionForeground, #999)); }
.loop line, .loop path, .edges line.loop { stroke: var(--vscode-charts-orange, #d18616); stroke-width: 1.5; fill: none; }
.lanes marker path { fill: var(--vscode-charts-orange, #d18616); }
.loop text { fill: var(--vscode-charts-orange, #d18616); font-size: 11px; font-family: inherit; }
.node { position: relative; z-index: 1; box-sizing: border-box; height: ${M.nodeHeight}px;
  width: calc(100% - ${M.nodeGap}px); margin: 0 auto; min-width: 0; padding: 6px 10px; display: flex; flex-direction: column; justify-content: center; gap: 2px;
  text-align: left; font: inherit; color: inherit; cursor: pointer;
  background: var(--vscode-editorWidget-background, #f3f3f3);
  border: 1px solid var(--vscode-editorWidget-border, var(--vscode-panel-border, #ccc));
  border-left: 4px solid var(--vscode-charts-purple, #8a63d2); border-radius: 6px; }
.node:hover { border-color: var(--vscode-focusBorder, #0078d4); }
.node:focus-visible { outline: 1px solid var(--vscode-focusBorder, #0078d4); outline-offset: 1px; }
.node.check { border-left-color: var(--vscode-charts-blue, #1a85ff); }
.node.gate { border-left-color: var(--vscode-charts-yellow, #e2a300); border-style: dashed; border-left-style: solid; }
.node .label, .node .detail { overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
.node .label { font-weight: 600; }
.node .detail { font-size: 0.85em; color: var(--vscode-descriptionForeground, #777); }
.node .when { font-style: italic; }
section { margin-top: 20px; }
section h2 { font-size: 1em; font-weight: 600; margin: 0 0 6px; }
section ul { margin: 0; padding: 0; list-style: none; display: flex; flex-direction: column; gap: 4px; }
section li button { font: inherit; color: inherit; background: none; border: none; padding: 0; cursor: pointer;
  text-align: left; }
section li button:hover { text-decoration: underline; }
.runs { margin: 0 0 16px; }
.runs button.run-link { color: var(--vscode-textLink-foreground, #006ab1); text-decoration: underline; }
.after li { border: 1px solid var(--vscode-panel-border, #ccc); border-radius: 6px; padding: 6px 10px; max-width: 480px; }
.muted { color: var(--vscode-descriptionForeground, #777); }
.problems .error { color: var(--vscode-errorForeground, #e51400); }
.problems .warning { color: var(--vscode-editorWarning-foreground, #bf8803); }
.problems code { font-family: var(--vscode-editor-font-family, monospace); }
`;

/** Clicking anything with `data-line` asks the extension to reveal that place in the playbook. */
const SCRIPT = `
const vscode = acquireVsCodeApi();
document.addEventListener('click', (event) => {
  const run = event.target instanceof Element ? event.target.closest('[data-run]') : null;
  if (run) {
    vscode.postMessage({ type: 'open-run', run: run.dataset.run });
    return;
  }
  const target = event.target instanceof Element ? event.target.closest('[data-line]') : null;
  if (!target) return;
  vscode.postMessage({ type: 'reveal', line: Number(target.dataset.line), column: Number(target.dataset.column) });
});
`;

function page(title: string, body: string, options: GraphViewOptions, extraStyle = ''): string {
  const nonce = checkNonce(options.nonce);
  const csp = `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src 'none'; font-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'`;
  const script = options.interactive === false ? '' : `<script nonce="${nonce}">${SCRIPT}</script>\n`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${BASE_STYLE}${extraStyle}</style>
</head>
<body>
${body}
${script}</body>
</html>
`;
}

function header(title: string, lines: string[]): string {
  return `<header><h1>${escapeHtml(title)}</h1><p>${lines.map(escapeHtml).join(' · ')}</p></header>`;
}

function placementStyle(layout: GraphLayout): string {
  const rows = Array.from({ length: layout.rows }, (_, r) =>
    r === 0 ? `${M.nodeHeight}px` : `${M.rowGap}px ${M.nodeHeight}px`,
  ).join(' ');
  const half = `minmax(${(M.nodeMinWidth + M.nodeGap) / 2}px, ${(M.nodeMaxWidth + M.nodeGap) / 2}px)`;
  const lanes = layout.loops.length ? ` repeat(${layout.loops.length}, ${M.laneWidth}px)` : '';
  const rules = [
    `.graph { grid-template-columns: repeat(${2 * layout.width}, ${half})${lanes}; grid-template-rows: ${rows}; }`,
    `.graph > svg.edges { grid-column: 1 / span ${2 * layout.width}; grid-row: 1 / -1; }`,
  ];
  if (layout.loops.length)
    rules.push(`.graph > svg.lanes { grid-column: ${2 * layout.width + 1} / -1; grid-row: 1 / -1; }`);
  // Placement from numbers only: nothing from the playbook reaches the style sheet.
  for (const node of layout.nodes)
    rules.push(
      `.graph > .s${node.index} { grid-row: ${2 * node.row + 1}; grid-column: ${node.slot + 1} / span 2; }`,
    );
  return `\n${rules.join('\n')}\n`;
}

function nodeHtml(node: GraphNode): string {
  const when = node.when ? `<span class="detail when">when ${escapeHtml(node.when)}</span>` : '';
  const detail = node.label === node.name ? node.detail : `${node.name} · ${node.detail}`;
  return (
    `<button type="button" class="node ${node.kind} s${node.index}" data-step="${escapeHtml(node.name)}" ` +
    `data-row="${node.row}" data-line="${node.line}" data-column="${node.character}" ` +
    `title="${escapeHtml(node.tooltip)}" aria-label="${escapeHtml(node.tooltip)}">` +
    `<span class="label">${escapeHtml(node.label)}</span><span class="detail">${escapeHtml(detail)}</span>${when}</button>`
  );
}

/** Where a loop leaves its step (below the middle) and comes back into its target (above it). */
function loopYs(loop: GraphLoop, layout: GraphLayout): { out: number; back: number } {
  const rowOf = (index: number) => layout.nodes.find((n) => n.index === index)?.row ?? 0;
  const middle = (row: number) => rowTop(row) + M.nodeHeight / 2;
  return { out: middle(rowOf(loop.from)) + 8, back: middle(rowOf(loop.to)) - 8 };
}

function edgesSvg(layout: GraphLayout): string {
  const byIndex = new Map(layout.nodes.map((n) => [n.index, n]));
  const lines: string[] = [];
  for (const edge of layout.edges) {
    const from = byIndex.get(edge.from);
    const to = byIndex.get(edge.to);
    if (!from || !to) continue;
    lines.push(
      `<line class="need" data-from="${escapeHtml(from.name)}" data-to="${escapeHtml(to.name)}" ` +
        `x1="${pct(from.center)}" y1="${num(rowTop(from.row) + M.nodeHeight)}" ` +
        `x2="${pct(to.center)}" y2="${num(rowTop(to.row) - 2)}" marker-end="url(#kp-need-arrow)"/>`,
    );
  }
  // Each loop's stubs from its steps' centres (hidden under the nodes) out to the lanes.
  for (const loop of layout.loops) {
    const from = byIndex.get(loop.from);
    const to = byIndex.get(loop.to);
    if (!from || !to) continue;
    const { out, back } = loopYs(loop, layout);
    lines.push(
      `<line class="loop" x1="${pct(from.center)}" y1="${num(out)}" x2="100%" y2="${num(out)}" stroke-dasharray="5 4"/>`,
      `<line class="loop" x1="100%" y1="${num(back)}" x2="${pct(to.center)}" y2="${num(back)}" stroke-dasharray="5 4"/>`,
    );
  }
  return (
    `<svg class="edges" aria-hidden="true" focusable="false">` +
    arrowMarker('kp-need-arrow') +
    lines.join('') +
    `</svg>`
  );
}

/** The arrowhead that the lines of one svg end with (`marker-end="url(#id)"`). */
function arrowMarker(id: string): string {
  return (
    `<defs><marker id="${id}" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="8" markerHeight="8" ` +
    `markerUnits="userSpaceOnUse" orient="auto"><path d="M0 0 L8 4 L0 8 z"/></marker></defs>`
  );
}

function lanesSvg(layout: GraphLayout): string {
  if (!layout.loops.length) return '';
  const names = new Map(layout.nodes.map((n) => [n.index, n.name]));
  const groups = layout.loops.map((loop) => {
    const { out, back } = loopYs(loop, layout);
    const x = loop.lane * M.laneWidth + 8;
    const from = names.get(loop.from) ?? String(loop.from);
    const to = names.get(loop.to) ?? String(loop.to);
    const title = `${from}: ${loop.outcome} → back to ${to} (max ${loop.max}, then ${loop.exhausted})`;
    const labelY = (out + back) / 2;
    return (
      `<g class="loop" data-from="${escapeHtml(from)}" data-to="${escapeHtml(to)}" data-outcome="${escapeHtml(loop.outcome)}">` +
      `<title>${escapeHtml(title)}</title>` +
      `<path d="M0 ${num(out)} H${num(x)} V${num(back)} H2" stroke-dasharray="5 4" marker-end="url(#kp-loop-arrow)"/>` +
      `<text transform="translate(${num(x + 14)} ${num(labelY)}) rotate(-90)" text-anchor="middle">${escapeHtml(loop.label)}</text>` +
      `</g>`
    );
  });
  return (
    `<svg class="lanes" role="img" aria-label="loops">` +
    arrowMarker('kp-loop-arrow') +
    groups.join('') +
    `</svg>`
  );
}

function loopsSection(layout: GraphLayout): string {
  if (!layout.loops.length) return '';
  const byIndex = new Map(layout.nodes.map((n) => [n.index, n]));
  const items = layout.loops.map((loop) => {
    const from = byIndex.get(loop.from);
    const to = byIndex.get(loop.to);
    const text = `${from?.name ?? loop.from}: ${loop.label} → ${to?.name ?? loop.to}, then ${loop.exhausted}`;
    return from
      ? `<li><button type="button" data-line="${from.line}" data-column="${from.character}">${escapeHtml(text)}</button></li>`
      : `<li>${escapeHtml(text)}</li>`;
  });
  return `<section class="loops"><h2>Loops</h2><ul>${items.join('')}</ul></section>`;
}

function afterSection(layout: GraphLayout): string {
  if (!layout.after.length) return '';
  const items = layout.after.map(
    (task) =>
      `<li><button type="button" data-line="${task.line}" data-column="${task.character}">` +
      `<strong>${escapeHtml(task.name)}</strong> <span class="muted">${escapeHtml(task.detail)}</span></button></li>`,
  );
  return `<section class="after"><h2>After the run</h2><ul>${items.join('')}</ul></section>`;
}

/** The playbook's active runs, each a button to open it in the Playbooks view. */
function runsSection(runs: GraphRunLink[] | undefined): string {
  if (!runs?.length) return '';
  const items = runs.map((run) => {
    const state = `${run.status}${run.waiting ? ` · ${run.waiting} waiting` : ''}`;
    return (
      `<li><button type="button" class="run-link" data-run="${escapeHtml(run.id)}">` +
      `Open run ${escapeHtml(run.id)} in the Playbooks view</button> <span class="muted">${escapeHtml(state)}</span></li>`
    );
  });
  return `<section class="runs" aria-label="Active runs"><h2>Active runs</h2><ul>${items.join('')}</ul></section>`;
}

/** The graph of a playbook that checks without errors. */
export function renderGraphHtml(graph: PlaybookGraph, options: GraphViewOptions): string {
  const layout = layoutGraph(graph);
  const facts = [
    graph.id,
    options.file ?? graph.file,
    `${graph.steps.length} step${graph.steps.length === 1 ? '' : 's'}`,
  ];
  if (graph.warnings) facts.push(`${graph.warnings} warning${graph.warnings === 1 ? '' : 's'}`);
  const graphHtml = layout.nodes.length
    ? `<main class="scroller"><div class="graph" role="group" aria-label="${escapeHtml(`Steps of ${graph.title}`)}">` +
      edgesSvg(layout) +
      lanesSvg(layout) +
      layout.nodes.map(nodeHtml).join('') +
      `</div></main>`
    : `<p class="muted">This playbook has no steps.</p>`;
  const body = [
    header(graph.title, facts),
    runsSection(options.runs),
    graphHtml,
    loopsSection(layout),
    afterSection(layout),
  ].join('\n');
  return page(`${graph.title}: graph`, body, options, placementStyle(layout));
}

/** A playbook with errors: the count, and the first problems to click through to. */
export function renderProblemsHtml(view: ProblemsView, options: GraphViewOptions): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const counts = [plural(view.errors, 'error')];
  if (view.warnings) counts.push(plural(view.warnings, 'warning'));
  const items = view.problems.map(
    (p) =>
      `<li><button type="button" data-line="${p.line}" data-column="${p.column}">` +
      `<span class="${p.severity}">${escapeHtml(p.severity)}</span> <code>${escapeHtml(p.code)}</code> ` +
      `${escapeHtml(p.message)} <span class="muted">${p.line}:${p.column}</span></button></li>`,
  );
  const more = view.errors + view.warnings - view.problems.length;
  const body = [
    header(view.file, [counts.join(', ')]),
    `<p>The graph appears when the playbook checks without errors (the Problems panel lists them all).</p>`,
    `<section class="problems"><ul>${items.join('')}</ul>${more > 0 ? `<p class="muted">and ${more} more</p>` : ''}</section>`,
  ].join('\n');
  return page(`${view.file}: ${counts.join(', ')}`, body, options);
}

/** No playbook to show (nothing open, or the file is not a playbook). */
export function renderMessageHtml(message: string, options: GraphViewOptions): string {
  return page('Playbook graph', `<p class="muted">${escapeHtml(message)}</p>`, options);
}
