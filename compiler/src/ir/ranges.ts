/** Sorted, distinct step indices as inclusive ranges `[first, last]`, ascending and apart. */
export function toRanges(sorted: readonly number[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const index of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && index === last[1] + 1) last[1] = index;
    else ranges.push([index, index]);
  }
  return ranges;
}

/** The step indices of a loop's reset region (`IrTransition.reset`), ascending. */
export function regionSteps(ranges: readonly (readonly [number, number])[]): number[] {
  const steps: number[] = [];
  for (const [first, last] of ranges) for (let index = first; index <= last; index++) steps.push(index);
  return steps;
}
