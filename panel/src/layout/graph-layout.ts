/**
 * The step graph laid out as the Playbooks panel draws it (seed "The Playbooks panel"): top to bottom,
 * each step one row below its deepest need, parallel steps side by side and centred, loops as lanes to
 * the right of the graph, innermost the shortest. Geometry only, in abstract units: a row index, and
 * half-slots across the widest row (a node spans two half-slots). Pixels are geometry.ts's business.
 */
import { stepCaption, loopLabel, loopLanes, placeSteps } from './rows.js';

export type StepKind = 'agent' | 'check' | 'gate';

export type LayoutOutcome =
  | { name: string; transition: 'next' | 'fail' | 'end' | 'retry' }
  | { name: string; transition: 'loop'; target: number; max: number; exhausted: 'next' | 'fail' | 'end' };

/** A step to lay out: the language server's graph step, or a run's step with its needs as indices. */
export interface LayoutStep {
  index: number;
  name: string;
  kind: StepKind;
  /** the step's title as written, or null */
  title?: string | null;
  role?: string | null;
  /** the `when:` condition as written, or null */
  when?: string | null;
  needs: readonly number[];
  outcomes?: readonly LayoutOutcome[];
  /** the row and column when already computed (else computed from needs) */
  row?: number;
  column?: number;
  /** 1-based line and UTF-16 column of the step in its file */
  line?: number;
  character?: number;
}

export interface LayoutLoopInput {
  from: number;
  to: number;
  outcome: string;
  max: number;
}

export interface LayoutAfterInput {
  name: string;
  kind: 'agent' | 'check';
  role?: string | null;
  trigger: 'auto' | 'manual';
  on: readonly string[];
  line?: number;
  character?: number;
}

export interface LayoutInput<L extends LayoutLoopInput = LayoutLoopInput> {
  steps: readonly LayoutStep[];
  /** needs as edges; derived from the steps' needs when absent */
  edges?: readonly { from: number; to: number }[];
  loops: readonly L[];
  after?: readonly LayoutAfterInput[];
}

export interface GraphNode {
  index: number;
  name: string;
  kind: StepKind;
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
  /** 1-based line and UTF-16 column of the step in its file (0 when unknown) */
  line: number;
  character: number;
  tooltip: string;
}

export interface GraphEdge {
  from: number;
  to: number;
}

export type GraphLoop<L extends LayoutLoopInput = LayoutLoopInput> = L & {
  /** `fail ×3`, as `kairoku-playbook graph` labels it */
  label: string;
  /** 0 is the lane nearest the graph */
  lane: number;
};

export interface GraphAfterTask {
  name: string;
  detail: string;
  line: number;
  character: number;
}

export interface GraphLayout<L extends LayoutLoopInput = LayoutLoopInput> {
  rows: number;
  /** steps in the widest row: the graph is twice as many half-slots wide */
  width: number;
  nodes: GraphNode[];
  edges: GraphEdge[];
  loops: GraphLoop<L>[];
  after: GraphAfterTask[];
}

function tooltipOf(steps: readonly LayoutStep[], step: LayoutStep, label: string): string {
  const nameOf = (index: number) => steps[index]?.name ?? index;
  const lines = [label === step.name ? step.name : `${label} (${step.name})`, stepCaption(step)];
  if (step.when) lines.push(`when: ${step.when}`);
  if (step.needs.length) lines.push(`needs: ${step.needs.map(nameOf).join(', ')}`);
  for (const outcome of step.outcomes ?? []) {
    const target =
      outcome.transition === 'loop'
        ? `loop to ${nameOf(outcome.target)} (max ${outcome.max}, then ${outcome.exhausted})`
        : outcome.transition;
    lines.push(`${outcome.name} → ${target}`);
  }
  return lines.join('\n');
}

export function layoutGraph<L extends LayoutLoopInput>(graph: LayoutInput<L>): GraphLayout<L> {
  const places = placeSteps(graph.steps);
  const byRow = new Map<number, number[]>();
  places.forEach((place, i) => byRow.set(place.row, [...(byRow.get(place.row) ?? []), i]));
  const rows = places.length ? Math.max(...places.map((p) => p.row)) + 1 : 0;
  const width = Math.max(1, ...[...byRow.values()].map((steps) => steps.length));

  const nodes: GraphNode[] = [];
  for (const [row, members] of [...byRow].sort((a, b) => a[0] - b[0])) {
    const ordered = [...members].sort((a, b) => places[a]!.column - places[b]!.column);
    ordered.forEach((i, column) => {
      const step = graph.steps[i]!;
      const slot = width - ordered.length + 2 * column;
      const title = step.title ? step.title.trim() : '';
      const label = title || step.name;
      nodes.push({
        index: step.index,
        name: step.name,
        kind: step.kind,
        label,
        detail: stepCaption(step),
        when: step.when ?? null,
        row,
        column,
        slot,
        center: (slot + 1) / (2 * width),
        line: step.line ?? 0,
        character: step.character ?? 0,
        tooltip: tooltipOf(graph.steps, step, label),
      });
    });
  }
  nodes.sort((a, b) => a.row - b.row || a.column - b.column);

  const rowOf = (index: number) => places[index]?.row ?? 0;
  const lanes = loopLanes(graph.loops, rowOf);
  const loops = graph.loops
    .map((loop, i) => ({ ...loop, label: loopLabel(loop), lane: lanes[i]! }))
    .sort((a, b) => a.lane - b.lane);

  const after: GraphAfterTask[] = (graph.after ?? []).map((task) => ({
    name: task.name,
    detail: `${stepCaption(task)} · ${task.trigger}${task.trigger === 'auto' ? ` on ${task.on.join(', ')}` : ''}`,
    line: task.line ?? 0,
    character: task.character ?? 0,
  }));

  const edges =
    graph.edges?.map(({ from, to }) => ({ from, to })) ??
    graph.steps.flatMap((step) => step.needs.map((need) => ({ from: need, to: step.index })));
  return { rows, width, nodes, edges, loops, after };
}
