import type { Ir, IrAfterTask, IrBounds, IrStep } from '@kairoku-playbook/compiler';

/**
 * The worst case of a run, before it runs (issue 26): the most agent turns, gate decisions, the
 * longest chain of agent turns and the longest wall clock. Exact counts from the explorer's state
 * graph when it was explored to the end; otherwise a sound static bound from the IR alone (`static`).
 * README.md beside this file, "Bounds of a run", says why each number is sound.
 */

/** The worst case of a run: the IR's own contract (`compile` writes it there), defined once. */
export type RunBounds = IrBounds;

/**
 * A run's bounds as the start form and the graph view say them (the protocol's `RunBounds`): without the
 * per-input and per-step parts that hover and `check --explore` read.
 */
export function headlineBounds(
  bounds: RunBounds,
): Pick<RunBounds, 'explored' | 'agentTurns' | 'gateDecisions' | 'chainTurns' | 'longestMs'> {
  const { explored, agentTurns, gateDecisions, chainTurns, longestMs } = bounds;
  return { explored, agentTurns, gateDecisions, chainTurns, longestMs };
}

/** The part of the explorer's state graph the bounds read (explore.ts builds it). */
export interface BoundsGraph {
  nodes: number;
  edgeStart: number[];
  edgeEnd: number[];
  edgeTo: number[];
  /** the units each edge starts (null: none) */
  edgeStarted: (number[] | null)[];
}

type Unit = IrStep | IrAfterTask;

function unitsOf(ir: Ir): Unit[] {
  return [...ir.steps, ...ir.after];
}

/**
 * The longest path from node 0 over the acyclic graph (`order`: children before parents), an edge
 * weighing `weight(started)`; per edge of node 0 (the input variants) too.
 */
export function longestPath(
  graph: BoundsGraph,
  order: readonly number[],
  weight: (started: readonly number[]) => number,
): { best: number; perRootEdge: number[] } {
  const { edgeStart, edgeEnd, edgeTo, edgeStarted } = graph;
  const dp = new Float64Array(graph.nodes);
  const edgeValue = (edge: number) => {
    const list = edgeStarted[edge];
    return (list ? weight(list) : 0) + dp[edgeTo[edge]!]!;
  };
  for (const node of order) {
    let best = 0;
    for (let edge = edgeStart[node]!; edge < edgeEnd[node]!; edge++) best = Math.max(best, edgeValue(edge));
    dp[node] = best;
  }
  const perRootEdge: number[] = [];
  for (let edge = edgeStart[0] ?? 0; edge < (edgeEnd[0] ?? 0); edge++) perRootEdge.push(edgeValue(edge));
  return { best: dp[0]!, perRootEdge };
}

interface LoopFacts {
  counter: string;
  target: number;
  max: number;
  /** the reset region as the IR keeps it: inclusive ranges of step indices, ascending */
  reset: readonly [number, number][];
}

function inRegion(loop: LoopFacts, index: number): boolean {
  return loop.reset.some(([first, last]) => first <= index && index <= last);
}

function loopsOf(ir: Ir): LoopFacts[] {
  const loops: LoopFacts[] = [];
  for (const step of ir.steps)
    for (const outcome of step.outcomes) {
      const t = outcome.transition;
      if (t.kind === 'loop') loops.push({ counter: t.counter, target: t.target, max: t.max, reset: t.reset });
    }
  // A loop's counter is set back only by a loop whose target is strictly above its own (below).
  return loops.sort((a, b) => a.target - b.target);
}

/**
 * The most times each loop can fire in a run, from the IR (in the order of `loops`): `max` per round of
 * its counter, and a new round each time a loop whose region holds its target (and aims elsewhere)
 * fires and sets it back.
 */
function loopFirings(loops: readonly LoopFacts[]): number[] {
  const firings: number[] = [];
  loops.forEach((loop, i) => {
    let rounds = 1;
    for (let j = 0; j < i; j++) {
      const other = loops[j]!;
      if (other.target !== loop.target && inRegion(other, loop.target)) rounds += firings[j]!;
    }
    firings.push(loop.max * rounds);
  });
  return firings;
}

/** Loops named in a step's "why"; the others are counted. */
const SHOWN_LOOPS = 3;

/** Per unit: the static most attempts and why (used for the hover's "why" in both cases). */
export function staticAttempts(ir: Ir): { maxAttempts: number; why: string }[] {
  const loops = loopsOf(ir);
  const firings = loopFirings(loops);
  const n = ir.steps.length;
  // per step: the firings of the loops that restart it, and the first few of them by name (a sum per
  // step, not a difference array: past 2^53 subtracting would lose what small loops add)
  const restarts = new Float64Array(n);
  const named: string[][] = ir.steps.map(() => []);
  const more = new Int32Array(n);
  loops.forEach((loop, i) => {
    const fired = firings[i]!;
    const reason = `loop ${loop.counter} (max ${loop.max}${fired !== loop.max ? `, up to ${fired} times` : ''})`;
    for (const [first, last] of loop.reset) {
      for (let index = first; index <= last; index++) {
        restarts[index]! += fired;
        if (named[index]!.length < SHOWN_LOOPS) named[index]!.push(reason);
        else more[index]!++;
      }
    }
  });
  return unitsOf(ir).map((unit, index) => {
    const tries = unit.retries + 1;
    const retries = unit.retries ? `retries: ${unit.retries}` : '';
    if (index >= n) {
      const task = unit as IrAfterTask;
      if (task.trigger === 'manual') return { maxAttempts: 0, why: 'a manual after-task: started by hand' };
      return { maxAttempts: tries, why: retries || 'once, when the run ends' };
    }
    const others = more[index] ? [`${more[index]} more loops`] : [];
    const why = [retries, ...named[index]!, ...others].filter(Boolean).join('; ');
    return { maxAttempts: tries * (1 + restarts[index]!), why: why || 'once: no retries, in no loop' };
  });
}

/** The static bound of a run (for a playbook whose exploration was cut off). */
export function staticBounds(ir: Ir): RunBounds {
  const attempts = staticAttempts(ir);
  const units = unitsOf(ir);
  let agentTurns = 0;
  let gateDecisions = 0;
  let ms = 0;
  units.forEach((unit, index) => {
    const most = attempts[index]!.maxAttempts;
    if (unit.kind === 'agent') agentTurns += most;
    if (unit.kind === 'gate') gateDecisions += most;
    else ms += most * unit.timeoutMs;
  });
  return {
    explored: false,
    agentTurns,
    gateDecisions,
    chainTurns: agentTurns,
    longestMs: capped(ir, ms),
    perInput: [],
    units: units.map((unit, index) => ({ name: nameOf(ir, index), kind: unit.kind, ...attempts[index]! })),
  };
}

function capped(ir: Ir, ms: number): number {
  return ir.limits.timeoutMs ? Math.min(ir.limits.timeoutMs, ms) : ms;
}

function nameOf(ir: Ir, index: number): string {
  const n = ir.steps.length;
  return index < n ? ir.steps[index]!.name : `after.${ir.after[index - n]!.name}`;
}

/**
 * The bounds from a complete exploration: longest paths over its state graph. `maxAttempts`: the
 * explorer's per unit; `inputs`: its input variants (node 0's edges, in order).
 */
export function exploredBounds(
  ir: Ir,
  graph: BoundsGraph,
  order: readonly number[],
  maxAttempts: readonly number[],
  inputs: readonly Record<string, unknown>[],
): RunBounds {
  const units = unitsOf(ir);
  const count = (kind: Unit['kind']) => (started: readonly number[]) => {
    let total = 0;
    for (const unit of started) if (units[unit]!.kind === kind) total++;
    return total;
  };
  const turns = longestPath(graph, order, count('agent'));
  const gates = longestPath(graph, order, count('gate'));
  // A chain's turns start at distinct moves (each after the report of the one before): one per move.
  const chain = longestPath(graph, order, (started) => (count('agent')(started) > 0 ? 1 : 0));
  const clock = longestPath(graph, order, (started) => {
    let most = 0;
    for (const unit of started)
      if (units[unit]!.kind !== 'gate') most = Math.max(most, units[unit]!.timeoutMs);
    return most;
  });
  const why = staticAttempts(ir);
  return {
    explored: true,
    agentTurns: turns.best,
    gateDecisions: gates.best,
    chainTurns: chain.best,
    longestMs: capped(ir, clock.best),
    perInput:
      inputs.length > 1
        ? inputs.map((values, variant) => ({
            inputs: values,
            agentTurns: turns.perRootEdge[variant] ?? 0,
            gateDecisions: gates.perRootEdge[variant] ?? 0,
          }))
        : [],
    units: units.map((unit, index) => ({
      name: nameOf(ir, index),
      kind: unit.kind,
      maxAttempts: maxAttempts[index] ?? 0,
      why: why[index]!.why,
    })),
  };
}
