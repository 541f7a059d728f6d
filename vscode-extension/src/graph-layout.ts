/**
 * The playbook graph laid out as the Playbooks panel draws it (seed "The Playbooks panel"): top to
 * bottom, each step one row below its deepest need (the server's `row`, the IR's layout), parallel steps
 * side by side and centred, loops as lanes to the right of the graph, innermost the shortest. Geometry
 * only, in abstract units: a row index, and half-slots across the widest row (a node spans two
 * half-slots). The graph itself comes from the language server (graph-protocol.ts).
 */
import type { GraphStep, GraphLoop as ServerLoop, PlaybookGraph } from './graph-protocol.js';

export interface GraphNode {
  index: number;
  name: string;
  kind: GraphStep['kind'];
  /** the step's title when it has one, else its name */
  label: string;
  /** `agent · role`, `check`, `gate` (as `kairoku-playbook graph` prints it) */
  detail: string;
  /** the `when:` condition, as written */
  when: string | null;
  row: number;
  /** position in its row, left to right */
  column: number;
  /** first half-slot (0-based) of the node; it spans two */
  slot: number;
  /** where the node's centre sits across the graph: 0 the left edge, 1 the right edge */
  center: number;
  /** 1-based line and UTF-16 column of the step in its file */
  line: number;
  character: number;
  tooltip: string;
}

export interface GraphEdge {
  from: number;
  to: number;
}

export interface GraphLoop extends ServerLoop {
  /** `fail ×3`, as `kairoku-playbook graph` labels it */
  label: string;
  /** 0 is the lane nearest the graph */
  lane: number;
}

export interface GraphAfterTask {
  name: string;
  detail: string;
  line: number;
  character: number;
}

export interface GraphLayout {
  rows: number;
  /** steps in the widest row: the graph is twice as many half-slots wide */
  width: number;
  nodes: GraphNode[];
  edges: GraphEdge[];
  loops: GraphLoop[];
  after: GraphAfterTask[];
}

export function stepCaption(step: Pick<GraphStep, 'kind' | 'role'>): string {
  if (step.kind === 'agent') return step.role ? `agent · ${step.role}` : 'agent';
  return step.kind;
}

function tooltipOf(graph: PlaybookGraph, step: GraphStep, label: string): string {
  const nameOf = (index: number) => graph.steps[index]?.name ?? index;
  const lines = [label === step.name ? step.name : `${label} (${step.name})`, stepCaption(step)];
  if (step.when) lines.push(`when: ${step.when}`);
  if (step.needs.length) lines.push(`needs: ${step.needs.map(nameOf).join(', ')}`);
  for (const outcome of step.outcomes) {
    const target =
      outcome.transition === 'loop'
        ? `loop to ${nameOf(outcome.target)} (max ${outcome.max}, then ${outcome.exhausted})`
        : outcome.transition;
    lines.push(`${outcome.name} → ${target}`);
  }
  return lines.join('\n');
}

export function layoutGraph(graph: PlaybookGraph): GraphLayout {
  const byRow = new Map<number, GraphStep[]>();
  for (const step of graph.steps) byRow.set(step.row, [...(byRow.get(step.row) ?? []), step]);
  const rows = graph.rows;
  const width = Math.max(1, ...[...byRow.values()].map((steps) => steps.length));

  const nodes: GraphNode[] = [];
  for (const [row, steps] of [...byRow].sort((a, b) => a[0] - b[0])) {
    const ordered = [...steps].sort((a, b) => a.column - b.column);
    ordered.forEach((step, column) => {
      const slot = width - ordered.length + 2 * column;
      const title = step.title ? step.title.trim() : '';
      const label = title || step.name;
      nodes.push({
        index: step.index,
        name: step.name,
        kind: step.kind,
        label,
        detail: stepCaption(step),
        when: step.when,
        row,
        column,
        slot,
        center: (slot + 1) / (2 * width),
        line: step.line,
        character: step.character,
        tooltip: tooltipOf(graph, step, label),
      });
    });
  }
  nodes.sort((a, b) => a.row - b.row || a.column - b.column);

  const rowOf = (index: number) => graph.steps[index]?.row ?? 0;
  // Shorter loops nearer the graph, so lanes nest instead of crossing.
  const loops = graph.loops
    .map((loop, order) => ({ loop, order, span: rowOf(loop.from) - rowOf(loop.to) }))
    .sort((a, b) => a.span - b.span || rowOf(a.loop.from) - rowOf(b.loop.from) || a.order - b.order)
    .map(({ loop }, lane) => ({ ...loop, label: `${loop.outcome} ×${loop.max}`, lane }));

  const after: GraphAfterTask[] = graph.after.map((task) => ({
    name: task.name,
    detail: `${stepCaption(task)} · ${task.trigger}${task.trigger === 'auto' ? ` on ${task.on.join(', ')}` : ''}`,
    line: task.line,
    character: task.character,
  }));

  return { rows, width, nodes, edges: graph.edges.map(({ from, to }) => ({ from, to })), loops, after };
}
