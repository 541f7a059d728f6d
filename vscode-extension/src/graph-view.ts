/**
 * The graph webview's document, as a string from the server's graph: no `vscode` here, so it is unit-tested.
 *
 * The graph itself is the one step graph of the panel (`@kairoku-playbook/panel`, src/graph/step-graph.tsx),
 * the same component the Playbooks panel and the playground draw: the page carries the server's graph as
 * JSON (`<script type="application/json">`, never executed) and loads the panel's graph.js and graph.css
 * from the extension's files (dist/panel/), which draws it and turns clicks into messages. The rest (the
 * header, the active runs, the loops and after-tasks as lists, a broken playbook's problems) is HTML here.
 *
 * Strict Content-Security-Policy: scripts and style sheets from the extension's files only, the page's own
 * style by nonce, nothing else, no network; every text from the playbook is escaped.
 */
import { boundText, layoutGraph } from '@kairoku-playbook/panel/layout';
import type { GraphLayout as Layout } from '@kairoku-playbook/panel/layout';
import type { GraphLoop as ServerLoop, GraphProblem, PlaybookGraph } from '@kairoku-playbook/protocol';

/** The server's graph laid out; its loops keep what the server says of them (`exhausted`). */
type GraphLayout = Layout<ServerLoop>;

/** What the page loads from the extension's files, as the webview names them. */
export interface GraphViewAssets {
  /** the webview's `cspSource` */
  cspSource: string;
  /** the webview URIs of dist/panel/graph.js and dist/panel/graph.css */
  script: string;
  style: string;
}

export interface GraphViewOptions {
  /** a fresh random value per panel: the page's own style carries it */
  nonce: string;
  assets: GraphViewAssets;
  /** the file as shown to the user (relative to the workspace); default: as the server names it */
  file?: string;
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

/**
 * A webview's `cspSource` ("https://*.vscode-cdn.net", or "'self' https://…" in a browser), refused when it
 * holds anything that would end the directive or loosen it.
 */
export function checkCspSource(cspSource: string): string {
  if (/[;,"<>\r\n]|unsafe-|nonce-|sha\d+-/i.test(cspSource))
    throw new Error(`not a CSP source: ${cspSource}`);
  return cspSource;
}

/** JSON inside a `<script type="application/json">`: no `<` can end the element early. */
function jsonInHtml(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

const BASE_STYLE = `
body { margin: 0; padding: 16px 20px 24px; font-family: var(--vscode-font-family, sans-serif);
  font-size: var(--vscode-font-size, 13px); color: var(--vscode-foreground, #333);
  background: var(--vscode-editor-background, #fff); }
header h1 { font-size: 1.25em; font-weight: 600; margin: 0 0 2px; }
header p { margin: 0 0 16px; color: var(--vscode-descriptionForeground, #777); }
.bound { margin: -8px 0 16px; color: var(--vscode-descriptionForeground, #777); }
.bound strong { color: var(--vscode-foreground, #333); }
#graph { min-height: 56px; }
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

/** The page's Content-Security-Policy: the extension's files, the page's own style, nothing else. */
export function graphPageCsp(options: GraphViewOptions): string {
  const nonce = checkNonce(options.nonce);
  const source = checkCspSource(options.assets.cspSource);
  return [
    "default-src 'none'",
    `style-src ${source} 'nonce-${nonce}'`,
    `script-src ${source}`,
    "img-src 'none'",
    "font-src 'none'",
    "connect-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}

function page(title: string, body: string, options: GraphViewOptions): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(graphPageCsp(options))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${escapeHtml(options.assets.style)}">
<style nonce="${options.nonce}">${BASE_STYLE}</style>
<script type="module" src="${escapeHtml(options.assets.script)}"></script>
</head>
<body>
${body}
</body>
</html>
`;
}

function header(title: string, lines: string[]): string {
  return `<header><h1>${escapeHtml(title)}</h1><p>${lines.map(escapeHtml).join(' · ')}</p></header>`;
}

function loopsSection(layout: GraphLayout): string {
  if (!layout.loops.length) return '';
  const byIndex = new Map(layout.nodes.map((n) => [n.index, n]));
  const items = layout.loops.map((loop) => {
    const from = byIndex.get(loop.from);
    const to = byIndex.get(loop.to);
    const text = `${from?.name ?? loop.from}: ${loop.label} → ${to?.name ?? loop.to}, then ${loop.exhausted}`;
    return from
      ? `<li><button type="button" class="loop-link" data-line="${from.line}" data-column="${from.character}">${escapeHtml(text)}</button></li>`
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
  // the worst case of a run, once the server has explored this text (the start form says the same)
  const bound = graph.bounds
    ? `<p class="bound"><strong>Worst case</strong> ${escapeHtml(boundText(graph.bounds))}</p>`
    : '';
  // Drawn by graph.js from the JSON beside it (the one step graph of the panel).
  const graphHtml = layout.nodes.length
    ? `<main id="graph"></main><script type="application/json" id="graph-data">${jsonInHtml(graph)}</script>`
    : `<p class="muted">This playbook has no steps.</p>`;
  const body = [
    header(graph.title, facts),
    bound,
    runsSection(options.runs),
    graphHtml,
    loopsSection(layout),
    afterSection(layout),
  ].join('\n');
  return page(`${graph.title}: graph`, body, options);
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
