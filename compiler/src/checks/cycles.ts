import type { Check } from '../check-context.js';
import { shown } from '../diagnostic.js';

/** The most steps of a cycle its message names before the last one. */
const CYCLE_SHOWN = 8;

/** PB300: a dependency cycle, reported once per cycle with each edge as a related location. */
export const checkCycles: Check = (context) => {
  const { graph, model } = context;
  if (graph.onCycle.size === 0) return;
  const seen = new Set<number>();
  for (const start of [...graph.onCycle].sort((a, b) => a - b)) {
    if (seen.has(start)) continue;
    const cycle = findCycleFrom(start, graph.needs, graph.onCycle);
    if (!cycle) continue;
    // All steps on the same strongly connected part are one mistake: mark the whole part seen.
    for (const i of reachableWithin(start, graph.needs, graph.onCycle)) {
      if (reachableWithin(i, graph.needs, graph.onCycle).has(start)) seen.add(i);
    }
    const steps = cycle.map((i) => model.steps[i]!);
    // (a generated cycle can run through thousands of steps: the message names a few, the related
    // locations mark every edge)
    const names = [...steps, steps[0]!].map((s) => `${shown(s.name)}`);
    const path =
      names.length > CYCLE_SHOWN + 2
        ? [
            ...names.slice(0, CYCLE_SHOWN),
            `… ${names.length - CYCLE_SHOWN - 2} more …`,
            ...names.slice(-2),
          ].join(' → ')
        : names.join(' → ');
    const related = steps.map((step, k) => {
      const next = steps[(k + 1) % steps.length]!;
      const need = step.needs.find((n) => n.name === next.name)!;
      return context.related(need.range, `"${shown(step.name)}" needs "${shown(next.name)}"`);
    });
    const first = steps[0]!;
    const firstNeed = first.needs.find((n) => n.name === steps[1 % steps.length]!.name)!;
    context.report('PB300', firstNeed.range, `dependency cycle: ${path}`, { related });
  }
};

/** The shortest cycle through `start` following needs edges, as step indices starting at `start`. */
function findCycleFrom(start: number, needs: number[][], within: Set<number>): number[] | undefined {
  const parent = new Map<number, number>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const i = queue[head]!;
    for (const j of needs[i]!) {
      if (!within.has(j)) continue;
      if (j === start) {
        const path = [i];
        while (path[path.length - 1] !== start) path.push(parent.get(path[path.length - 1]!)!);
        return path.reverse();
      }
      if (!parent.has(j)) {
        parent.set(j, i);
        queue.push(j);
      }
    }
  }
  return undefined;
}

function reachableWithin(start: number, needs: number[][], within: Set<number>): Set<number> {
  const seen = new Set<number>([start]);
  const stack = [start];
  while (stack.length) {
    for (const j of needs[stack.pop()!]!) {
      if (within.has(j) && !seen.has(j)) {
        seen.add(j);
        stack.push(j);
      }
    }
  }
  return seen;
}
