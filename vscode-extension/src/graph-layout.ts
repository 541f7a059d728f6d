/**
 * The playbook graph laid out as the Playbooks panel draws it (seed "The Playbooks panel"): top to
 * bottom, each step one row below its deepest need (the IR's `layout.row`), parallel steps side by side
 * and centred, loops as lanes to the right of the graph, innermost the shortest. Geometry only, in
 * abstract units: a row index, and half-slots across the widest row (a node spans two half-slots).
 */
import type { Ir, IrStep } from '@kairoku-playbook/compiler';
import { expressionText, templateText } from './template-text.js';

export interface GraphNode {
  index: number;
  name: string;
  kind: IrStep['kind'];
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

export interface GraphLoop {
  /** the step whose outcome loops */
  from: number;
  /** the step it goes back to */
  to: number;
  outcome: string;
  max: number;
  exhausted: 'next' | 'fail' | 'end';
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

export function describeStep(step: Pick<IrStep, 'kind' | 'role'>): string {
  if (step.kind === 'agent') return step.role ? `agent · ${step.role}` : 'agent';
  return step.kind;
}

function tooltipOf(ir: Ir, step: IrStep, label: string): string {
  const lines = [label === step.name ? step.name : `${label} (${step.name})`, describeStep(step)];
  if (step.when) lines.push(`when: ${expressionText(step.when.expr)}`);
  if (step.needs.length) lines.push(`needs: ${step.needs.map((n) => ir.steps[n]?.name ?? n).join(', ')}`);
  for (const outcome of step.outcomes) {
    const t = outcome.transition;
    const target =
      t.kind === 'loop'
        ? `loop to ${ir.steps[t.target]?.name ?? t.target} (max ${t.max}, then ${t.exhausted})`
        : t.kind;
    lines.push(`${outcome.name} → ${target}`);
  }
  return lines.join('\n');
}

export function layoutGraph(ir: Ir): GraphLayout {
  const byRow = new Map<number, IrStep[]>();
  for (const step of ir.steps) byRow.set(step.layout.row, [...(byRow.get(step.layout.row) ?? []), step]);
  const rows = ir.steps.length ? Math.max(...ir.steps.map((s) => s.layout.row)) + 1 : 0;
  const width = Math.max(1, ...[...byRow.values()].map((steps) => steps.length));

  const nodes: GraphNode[] = [];
  for (const [row, steps] of [...byRow].sort((a, b) => a[0] - b[0])) {
    const ordered = [...steps].sort((a, b) => a.layout.column - b.layout.column);
    ordered.forEach((step, column) => {
      const slot = width - ordered.length + 2 * column;
      const title = step.title ? templateText(step.title).trim() : '';
      const label = title || step.name;
      nodes.push({
        index: step.index,
        name: step.name,
        kind: step.kind,
        label,
        detail: describeStep(step),
        when: step.when ? expressionText(step.when.expr) : null,
        row,
        column,
        slot,
        center: (slot + 1) / (2 * width),
        line: step.at[0],
        character: step.at[1],
        tooltip: tooltipOf(ir, step, label),
      });
    });
  }
  nodes.sort((a, b) => a.row - b.row || a.column - b.column);

  const edges: GraphEdge[] = ir.steps.flatMap((step) =>
    step.needs.map((need) => ({ from: need, to: step.index })),
  );

  const rowOf = (index: number) => ir.steps[index]?.layout.row ?? 0;
  const found: Omit<GraphLoop, 'lane'>[] = [];
  for (const step of ir.steps) {
    for (const outcome of step.outcomes) {
      const t = outcome.transition;
      if (t.kind !== 'loop') continue;
      found.push({
        from: step.index,
        to: t.target,
        outcome: outcome.name,
        max: t.max,
        exhausted: t.exhausted,
        label: `${outcome.name} ×${t.max}`,
      });
    }
  }
  // Shorter loops nearer the graph, so lanes nest instead of crossing.
  const loops = found
    .map((loop, order) => ({ loop, order, span: rowOf(loop.from) - rowOf(loop.to) }))
    .sort((a, b) => a.span - b.span || rowOf(a.loop.from) - rowOf(b.loop.from) || a.order - b.order)
    .map(({ loop }, lane) => ({ ...loop, lane }));

  const after: GraphAfterTask[] = ir.after.map((task) => ({
    name: task.name,
    detail: `${describeStep({ kind: task.kind, role: task.role })} · ${task.trigger}${
      task.trigger === 'auto' ? ` on ${task.on.join(', ')}` : ''
    }`,
    line: task.at[0],
    character: task.at[1],
  }));

  return { rows, width, nodes, edges, loops, after };
}
