/**
 * The script of the VS Code extension's graph view (dist/graph.js, copied into the extension): it draws the
 * playbook's graph that the page carries (`<script type="application/json" id="graph-data">`, the
 * language server's answer) with the one step graph, and turns clicks into messages to the extension: a
 * step or anything with `data-line` reveals that place in the playbook, a `data-run` button opens the run in
 * the Playbooks view. The page's HTML (CSP, header, loops, after-tasks, runs) is the extension's own.
 */
import { render } from 'preact';
import type { PlaybookGraph } from '@kairoku-playbook/protocol';
import { layoutGraph } from '../layout/index.js';
import { StepGraph } from './step-graph.js';

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** The messages the extension understands (graph-panel.ts checks their shape again). */
export type GraphViewMessage =
  { type: 'reveal'; line: number; column: number } | { type: 'open-run'; run: string };

function start(): void {
  const vscode = acquireVsCodeApi();
  const post = (message: GraphViewMessage) => vscode.postMessage(message);
  document.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const run = target?.closest<HTMLElement>('[data-run]');
    if (run?.dataset.run) return post({ type: 'open-run', run: run.dataset.run });
    const place = target?.closest<HTMLElement>('[data-line]');
    if (place)
      post({ type: 'reveal', line: Number(place.dataset.line), column: Number(place.dataset.column) });
  });
  const data = document.getElementById('graph-data');
  const box = document.getElementById('graph');
  if (!data || !box) return;
  const graph = JSON.parse(data.textContent ?? 'null') as PlaybookGraph;
  const layout = layoutGraph(graph);
  render(
    <StepGraph
      layout={layout}
      label={`Steps of ${graph.title}`}
      onOpen={(node) => post({ type: 'reveal', line: node.line, column: node.character })}
    />,
    box,
  );
}

start();
