import type { Check } from '../check-context.js';

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
    const path = [...steps, steps[0]!].map((s) => s.name).join(' → ');
    const related = steps.map((step, k) => {
      const next = steps[(k + 1) % steps.length]!;
      const need = step.needs.find((n) => n.name === next.name)!;
      return context.related(need.range, `"${step.name}" needs "${next.name}"`);
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
        while (path[0] !== start) path.unshift(parent.get(path[0]!)!);
        return path;
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
