/**
 * A persistent vector: an immutable list whose `set` and `push` copy one path of a 32-way tree
 * (O(log32 n)), not the whole list. Run state keeps its steps and history in these, so a transition
 * of a 10,000-step run does work that does not grow with the run, and every earlier state stays
 * valid and unchanged. Plain objects and arrays only: JSON-serialisable as it is.
 */

const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;

export interface PVec<T> {
  readonly size: number;
  /** bits to shift an index by at the root: 0 when the root is a leaf */
  readonly shift: number;
  readonly root: readonly unknown[];
  /** phantom: the element type */
  readonly __element?: T;
}

type Node = unknown[];

export function emptyVec<T>(): PVec<T> {
  return { size: 0, shift: 0, root: [] };
}

export function vecFromArray<T>(items: readonly T[]): PVec<T> {
  if (items.length === 0) return emptyVec<T>();
  let level: Node[] = [];
  for (let i = 0; i < items.length; i += WIDTH) level.push(items.slice(i, i + WIDTH));
  let shift = 0;
  while (level.length > 1) {
    const parents: Node[] = [];
    for (let i = 0; i < level.length; i += WIDTH) parents.push(level.slice(i, i + WIDTH));
    level = parents;
    shift += BITS;
  }
  return { size: items.length, shift, root: level[0]! };
}

export function vecGet<T>(vec: PVec<T>, index: number): T {
  if (index < 0 || index >= vec.size) throw new RangeError(`index ${index} out of range 0..${vec.size - 1}`);
  let node = vec.root as Node;
  for (let level = vec.shift; level > 0; level -= BITS) node = node[(index >>> level) & MASK] as Node;
  return node[index & MASK] as T;
}

export function vecSet<T>(vec: PVec<T>, index: number, value: T): PVec<T> {
  if (index < 0 || index >= vec.size) throw new RangeError(`index ${index} out of range 0..${vec.size - 1}`);
  return { size: vec.size, shift: vec.shift, root: setIn(vec.root as Node, vec.shift, index, value) };
}

export function vecPush<T>(vec: PVec<T>, value: T): PVec<T> {
  const index = vec.size;
  let { root, shift } = vec;
  if (index >= WIDTH << shift) {
    root = [root];
    shift += BITS;
  }
  return { size: index + 1, shift, root: setIn(root as Node, shift, index, value) };
}

export function vecToArray<T>(vec: PVec<T>): T[] {
  const out: T[] = [];
  const walk = (node: Node, level: number) => {
    if (level === 0) for (const item of node) out.push(item as T);
    else for (const child of node) walk(child as Node, level - BITS);
  };
  walk(vec.root as Node, vec.shift);
  return out;
}

/** The items from `start` (inclusive) to the end, in order. */
export function vecSlice<T>(vec: PVec<T>, start: number): T[] {
  const out: T[] = [];
  for (let i = Math.max(0, start); i < vec.size; i++) out.push(vecGet(vec, i));
  return out;
}

function setIn(node: Node, level: number, index: number, value: unknown): Node {
  const copy = node.slice();
  if (level === 0) {
    copy[index & MASK] = value;
    return copy;
  }
  const slot = (index >>> level) & MASK;
  copy[slot] = setIn((node[slot] as Node | undefined) ?? [], level - BITS, index, value);
  return copy;
}
