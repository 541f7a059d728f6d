// The decoders' shared parts: the character codes, the escapes of double-quoted scalars, and the emitter
// that records each decoded unit's source range (scalar-map.ts, block-scalar.ts).

export const TAB = 9;
export const LF = 10;
export const CR = 13;
export const SP = 32;
export const DQUOTE = 34;
export const SQUOTE = 39;
export const BACKSLASH = 92;
export const PIPE = 124;
export const GT = 62;

/** Double-quoted single-character escapes (`\n`, `\t`, …), by the code of the character after `\`; -1 = none. */
export const ESCAPES = /* @__PURE__ */ (() => {
  const table = new Int32Array(128).fill(-1);
  const pairs: Array<[string, number]> = [
    ['0', 0],
    ['a', 7],
    ['b', 8],
    ['e', 0x1b],
    ['f', 0x0c],
    ['n', 0x0a],
    ['r', 0x0d],
    ['t', 0x09],
    ['v', 0x0b],
    ['N', 0x85],
    ['_', 0xa0],
    ['L', 0x2028],
    ['P', 0x2029],
    [' ', 0x20],
    ['"', 0x22],
    ['/', 0x2f],
    ['\\', 0x5c],
    ['\t', 0x09],
  ];
  for (const [ch, code] of pairs) table[ch.charCodeAt(0)] = code;
  return table;
})();

/** Writes (unit, source start, source end) triples, checking each unit against the expected value. */
export class Emitter {
  pos = 0;
  ok = true;
  lastCode = -1;
  lastEnd = 0;
  /** Source offset reported for an empty value. */
  emptyAt = 0;

  constructor(
    readonly src: string,
    readonly expected: string,
    readonly starts: Int32Array,
    readonly ends: Int32Array,
  ) {}

  reset(): void {
    this.pos = 0;
    this.ok = true;
    this.lastCode = -1;
    this.lastEnd = 0;
  }

  push(code: number, start: number, end: number): void {
    if (!this.ok) return;
    const p = this.pos;
    if (p >= this.expected.length || this.expected.charCodeAt(p) !== code) {
      this.ok = false;
      return;
    }
    this.starts[p] = start;
    this.ends[p] = end;
    this.pos = p + 1;
    this.lastCode = code;
    this.lastEnd = end;
  }

  /** Source characters [from, to) copied verbatim, one unit each. */
  copy(from: number, to: number): void {
    const src = this.src;
    for (let j = from; j < to && this.ok; j++) this.push(src.charCodeAt(j), j, j + 1);
  }

  /** Like copy, but `''` produces one `'` (single-quoted scalars). */
  copyQuoted(from: number, to: number): void {
    const src = this.src;
    for (let j = from; j < to && this.ok; j++) {
      const c = src.charCodeAt(j);
      if (c === SQUOTE && j + 1 < to && src.charCodeAt(j + 1) === SQUOTE) {
        this.push(SQUOTE, j, j + 2);
        j++;
      } else this.push(c, j, j + 1);
    }
  }

  /** Code point (1 or 2 UTF-16 units), all units mapped to [start, end). */
  pushCodePoint(cp: number, start: number, end: number): void {
    if (cp > 0xffff) {
      const v = cp - 0x10000;
      this.push(0xd800 + (v >> 10), start, end);
      this.push(0xdc00 + (v & 0x3ff), start, end);
    } else this.push(cp, start, end);
  }
}

export function isBlank(c: number): boolean {
  return c === SP || c === TAB;
}
