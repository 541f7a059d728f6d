import type { Check } from '../check-context.js';
import { shown } from '../diagnostic.js';

/** The most steps of a cycle its message names before the last one. */
const CYCLE_SHOWN = 8;

/** PB300: a dependency cycle, reported once per cycle with each edge as a related location. */
export const checkCycles: Check = (context) => {
  const { graph, model } = context;
  if (graph.onCycle.size === 0) return;
  const component = strongComponents(graph.needs, graph.onCycle);
  const seen = new Set<number>();
  for (const start of [...graph.onCycle].sort((a, b) => a - b)) {
    if (seen.has(start)) continue;
    // All steps on the same strongly connected part are one mistake.
    const members = component.get(start)!;
    if (members.size < 2) continue; // (it only needs a cycle; it is not on one)
    for (const i of members) seen.add(i);
    const cycle = findCycleFrom(start, graph.needs, members);
    if (!cycle) continue;
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

/**
 * The strongly connected part of each step of `within` (Tarjan's algorithm, without recursion: a cycle
 * can run through thousands of steps). Computed once: a reachability search from every step on a cycle
 * made a 5,000-step ring take seconds.
 */
function strongComponents(needs: number[][], within: Set<number>): Map<number, Set<number>> {
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  const result = new Map<number, Set<number>>();
  let counter = 0;
  for (const root of within) {
    if (index.has(root)) continue;
    // Each frame: a step and how many of its needs were looked at.
    const frames: [number, number][] = [[root, 0]];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (frames.length) {
      const frame = frames[frames.length - 1]!;
      const [step, next] = frame;
      const targets = needs[step]!;
      if (next < targets.length) {
        frame[1]++;
        const target = targets[next]!;
        if (!within.has(target)) continue;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          frames.push([target, 0]);
        } else if (onStack.has(target)) low.set(step, Math.min(low.get(step)!, index.get(target)!));
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent[0], Math.min(low.get(parent[0])!, low.get(step)!));
      if (low.get(step) === index.get(step)) {
        const members = new Set<number>();
        let member: number;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          members.add(member);
          result.set(member, members);
        } while (member !== step);
      }
    }
  }
  return result;
}
