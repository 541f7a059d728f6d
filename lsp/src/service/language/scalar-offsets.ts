/**
 * The two directions between a string scalar's decoded value and the file: value → file is the compiler's
 * `rangeIn` (exact inside block, folded and quoted scalars); file → value is its inverse, by binary search
 * over the value's start offsets (they never decrease).
 */
import type { TextRef } from '@kairoku-playbook/compiler';
import type { SemanticModel } from './types.js';

/** The index in the scalar's value where a cursor at file `offset` stands (clamped to the value). */
export function valueOffsetAt(context: SemanticModel, ref: TextRef, offset: number): number {
  const length = ref.value.length;
  const startOf = (i: number) => context.rangeIn(ref, i, i).start;
  if (startOf(length) < offset) return length;
  let low = 0;
  let high = length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (startOf(mid) >= offset) high = mid;
    else low = mid + 1;
  }
  return low;
}

/**
 * Whether a file offset lies in a scalar's source, from its first character through its end; a block
 * scalar's source ends with its line break, and the start of the next line is no longer in it.
 */
export function scalarContains(ref: TextRef, offset: number, text: string): boolean {
  const range = ref.node.range;
  if (!range || offset < range[0] || offset > range[1]) return false;
  const last = text[range[1] - 1];
  return offset < range[1] || range[1] === range[0] || (last !== '\n' && last !== '\r');
}
