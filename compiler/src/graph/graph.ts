import type { StepDecl } from '../model/model.js';

/**
 * The `needs` graph over the steps, resolved to indices. Unknown names and self-needs are left out
 * (they are reported on their own), so nothing downstream cascades from them.
 */
export interface Graph {
  /** resolved needs per step, in declaration order of the needs list, without duplicates */
  needs: number[][];
  /** steps that need each step */
  dependents: number[][];
  /** a topological order; steps on a cycle come last, in declaration order */
  order: number[];
  /** the steps that lie on a cycle */
  onCycle: Set<number>;
  /** 0 for a step with no needs, else one more than its deepest need (the panel's row) */
  depth: number[];
  /** whether `ancestor` is reached from `step` by following needs (a step is not its own ancestor) */
  isAncestor(ancestor: number, step: number): boolean;
  /** every strict ancestor of a step */
  ancestorsOf(step: number): number[];
  /** whether `step` is a strict ancestor of any of `steps`: a test built once, answered in constant time */
  ancestorOfAny(steps: readonly number[]): (step: number) => boolean;
}

export function buildGraph(steps: readonly StepDecl[], indexOf: ReadonlyMap<string, StepDecl>): Graph {
  const n = steps.length;
  const needs: number[][] = steps.map((step) => {
    const resolved: number[] = [];
    for (const need of step.needs) {
      const target = indexOf.get(need.name);
      if (target && target !== step && !resolved.includes(target.index)) resolved.push(target.index);
    }
    return resolved;
  });
  const dependents: number[][] = steps.map(() => []);
  needs.forEach((list, i) => list.forEach((j) => dependents[j]!.push(i)));

  // Kahn's algorithm in declaration order keeps the order deterministic.
  const remaining = needs.map((list) => list.length);
  const order: number[] = [];
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (remaining[i] === 0) queue.push(i);
  for (let head = 0; head < queue.length; head++) {
    const i = queue[head]!;
    order.push(i);
    for (const d of dependents[i]!) if (--remaining[d]! === 0) queue.push(d);
  }
  const onCycle = new Set<number>();
  if (order.length < n) {
    for (let i = 0; i < n; i++) if (remaining[i]! > 0) onCycle.add(i);
    for (const i of onCycle) order.push(i);
  }

  const depth = new Array<number>(n).fill(0);
  for (const i of order) {
    if (onCycle.has(i)) continue;
    for (const j of needs[i]!) depth[i] = Math.max(depth[i]!, depth[j]! + 1);
  }

  // Ancestor sets as bitsets, filled in topological order: O(edges × steps / 32) words.
  const words = (n + 31) >>> 5;
  const bits = new Uint32Array(words * n);
  for (const i of order) {
    const row = i * words;
    for (const j of needs[i]!) {
      bits[row + (j >>> 5)]! |= 1 << (j & 31);
      const other = j * words;
      for (let w = 0; w < words; w++) bits[row + w]! |= bits[other + w]!;
    }
  }
  const isAncestor = (ancestor: number, step: number) =>
    ancestor !== step && (bits[step * words + (ancestor >>> 5)]! & (1 << (ancestor & 31))) !== 0;
  const ancestorsOf = (step: number) => {
    const result: number[] = [];
    for (let j = 0; j < n; j++) if (isAncestor(j, step)) result.push(j);
    return result;
  };
  const ancestorOfAny = (of: readonly number[]) => {
    const union = new Uint32Array(words);
    for (const step of of) {
      const row = step * words;
      for (let w = 0; w < words; w++) union[w]! |= bits[row + w]!;
    }
    return (step: number) => (union[step >>> 5]! & (1 << (step & 31))) !== 0;
  };
  return { needs, dependents, order, onCycle, depth, isAncestor, ancestorsOf, ancestorOfAny };
}
