/**
 * Maps the characters of a YAML scalar's decoded value back to the source text that produced them.
 *
 * The compiler parses decoded strings (`node.value`) and reports errors as offsets into them; this module
 * turns such offsets into offsets in the YAML file, for every scalar style: plain (multi-line folding),
 * single-quoted (`''`, folding), double-quoted (escapes, escaped line breaks, folding), block literal and
 * block folded (indentation indicators, chomping, more-indented lines), with LF or CRLF line breaks.
 *
 * Each style is decoded again here, mirroring the `yaml` package's own resolvers (`resolve-flow-scalar`,
 * `resolve-block-scalar`, which follow YAML 1.2), while recording for every produced UTF-16 unit the source
 * range it came from. The decoded units are compared on the fly with the value the `yaml` package produced;
 * only when every unit matches is the map `exact`. Otherwise (a case not mirrored, a source that is not the
 * one the node was parsed from, a node without a range) the map falls back to spreading the value
 * proportionally over the node's content range. It never throws.
 *
 * The work is linear in the scalar's source length; it allocates two `Int32Array`s of `value.length + 1`
 * (plus one of 3 × line count for block scalars) and no intermediate strings. It is a pure function: call it
 * lazily, only for scalars whose positions are needed.
 */
import type { Scalar } from 'yaml';
import { decodeBlockScalar } from './block-scalar.js';
import {
  BACKSLASH,
  CR,
  DQUOTE,
  ESCAPES,
  Emitter,
  GT,
  LF,
  PIPE,
  SP,
  SQUOTE,
  TAB,
  isBlank,
} from './scalar-emitter.js';

/** Maps each UTF-16 index of a scalar's decoded value to the source range of the text that produced it. */
export interface ScalarMap {
  /**
   * The string this map indexes: `node.value` when it is a string, otherwise the scalar's decoded source
   * text (`node.source`, e.g. `"0x1F"` for a number written `0x1F`; `""` for an empty/null scalar).
   */
  readonly value: string;
  /**
   * Start offsets: `offsets[i]` is the source offset of the first source character that produced
   * `value[i]`. `offsets.length === value.length + 1`; `offsets[value.length]` is the source offset just
   * after the last content character (for an empty value: where the content would start).
   * Non-decreasing.
   */
  readonly offsets: Int32Array;
  /**
   * End offsets: `ends[i]` is one past the last source character that produced `value[i]`, so
   * `source.slice(offsets[i], ends[i])` is e.g. `\u00e9` for an escape, `''` for a single-quoted quote,
   * `\r\n` for a line break. In an exact map, empty (`ends[i] === offsets[i]`) only for a line feed with
   * no source text: the final one that clip/keep chomping adds when the file ends without a line break.
   *
   * What a unit maps to: a verbatim character → itself; an escape → the whole escape (both UTF-16 units
   * of `\U0001F600` → all 10 characters); a line break folded to a space → that line break (`\n` or
   * `\r\n`; the trimmed whitespace around it belongs to no unit); the `\n`s of blank lines → the line
   * breaks ending those blank lines (the first break of the run is the one discarded by folding; in a
   * folded block before a more-indented line, all breaks are kept and map in order); a kept line feed in
   * a block scalar → its line break. Escaped line breaks and trimmed whitespace produce no unit.
   * `ends.length === value.length + 1`, `ends[value.length] === offsets[value.length]`. Non-decreasing.
   */
  readonly ends: Int32Array;
  /**
   * true when the re-decoded value equalled the yaml package's value, unit by unit; false means a
   * fallback: every index maps into the node's content range, proportionally (or to its start).
   */
  readonly exact: boolean;
}

/**
 * Build the map for one parsed scalar. `source` must be the text the node was parsed from. Works with or
 * without `keepSourceTokens` (the block scalar's parent indentation is read from `node.srcToken` when
 * present; without it, a block scalar with an indentation indicator is matched against the candidates).
 */
export function buildScalarMap(source: string, node: Scalar): ScalarMap {
  const value = referenceValue(node);
  const len = value.length;
  const starts = new Int32Array(len + 1);
  const ends = new Int32Array(len + 1);
  const range = node.range;
  if (!range) return fallback(value, starts, ends, 0, 0);
  const srcLen = source.length;
  const hi = clamp(range[1], 0, srcLen);
  const lo = clamp(range[0], 0, hi);
  const e = new Emitter(source, value, starts, ends);
  const first = lo < hi ? source.charCodeAt(lo) : -1;
  let contentLo = lo;
  let contentHi = hi;
  try {
    if (first === DQUOTE || first === SQUOTE) {
      contentLo = Math.min(lo + 1, hi);
      contentHi = Math.max(contentLo, hi - 1);
      if (first === DQUOTE) decodeDoubleQuoted(source, lo, hi, e);
      else decodeUnfolded(source, contentLo, contentHi, true, e);
      e.emptyAt = contentLo;
    } else if (first === PIPE || first === GT) {
      contentLo = decodeBlockScalar(source, lo, hi, node, e);
      e.emptyAt = contentLo;
    } else {
      decodeUnfolded(source, lo, hi, false, e);
      e.emptyAt = lo;
    }
  } catch {
    // Defensive only: the decoders index typed arrays and strings within bounds and do not throw.
    e.ok = false;
  }
  if (!e.ok || e.pos !== len) return fallback(value, starts, ends, contentLo, contentHi);
  const endPos = len > 0 ? ends[len - 1]! : e.emptyAt;
  starts[len] = endPos;
  ends[len] = endPos;
  return { value, offsets: starts, ends, exact: true };
}

/**
 * Convert a half-open range in the decoded value to a half-open source range. Out-of-range or reversed
 * arguments are clamped. An empty range maps to an empty source range at `offsets[start]`; a range [a,b)
 * with b>a maps to `[offsets[a], ends[b-1])`, covering every source character that produced value[a..b)
 * (all 6 characters of an `\u00e9` escape, both characters of `''`, the `\r\n` of a line break).
 */
export function mapValueRange(map: ScalarMap, start: number, end: number): { start: number; end: number } {
  const len = map.offsets.length - 1;
  const a = clamp(start, 0, len);
  const b = clamp(end, a, len);
  const s = map.offsets[a]!;
  if (b === a) return { start: s, end: s };
  return { start: s, end: Math.max(s, map.ends[b - 1]!) };
}

// ---------------------------------------------------------------------------------------------------------

/**
 * Plain and single-quoted scalars (the content between the quotes): a single line break folds to a space,
 * each following empty line produces a line feed; whitespace around line breaks is trimmed. Mirrors
 * `unfoldLines` of the yaml package. A folded space maps to the line break it replaces; the line feeds of
 * empty lines map to the line breaks ending those empty lines (the first break of a run is discarded).
 */
function decodeUnfolded(src: string, a: number, b: number, quoted: boolean, e: Emitter): void {
  let nl = a;
  while (nl < b && src.charCodeAt(nl) !== LF) nl++;
  if (nl >= b) {
    if (quoted) e.copyQuoted(a, b);
    else e.copy(a, b);
    return;
  }
  // first line: trailing whitespace trimmed
  let ce = nl > a && src.charCodeAt(nl - 1) === CR ? nl - 1 : nl;
  let te = ce;
  while (te > a && isBlank(src.charCodeAt(te - 1))) te--;
  if (quoted) e.copyQuoted(a, te);
  else e.copy(a, te);
  let sep = SP;
  let sepStart = ce;
  let sepEnd = nl + 1;
  let pos = nl + 1;
  for (;;) {
    nl = pos;
    while (nl < b && src.charCodeAt(nl) !== LF) nl++;
    if (nl >= b) break;
    ce = nl > pos && src.charCodeAt(nl - 1) === CR ? nl - 1 : nl;
    let ls = pos;
    while (ls < ce && isBlank(src.charCodeAt(ls))) ls++;
    let le = ce;
    while (le > ls && isBlank(src.charCodeAt(le - 1))) le--;
    if (ls === le) {
      if (sep === LF) e.push(LF, sepStart, sepEnd);
      else sep = LF;
    } else {
      e.push(sep, sepStart, sepEnd);
      if (quoted) e.copyQuoted(ls, le);
      else e.copy(ls, le);
      sep = SP;
    }
    sepStart = ce;
    sepEnd = nl + 1;
    pos = nl + 1;
    if (!e.ok) return;
  }
  // last line: leading whitespace trimmed, the rest kept
  let ls = pos;
  while (ls < b && isBlank(src.charCodeAt(ls))) ls++;
  e.push(sep, sepStart, sepEnd);
  if (quoted) e.copyQuoted(ls, b);
  else e.copy(ls, b);
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/**
 * Double-quoted scalar `[lo, hi)` including its quotes. Mirrors `doubleQuotedValue` of the yaml package.
 * An escape maps every unit it produces (two for `\U0001F600`) to the whole escape; an escaped line break
 * produces nothing; folding works as in decodeUnfolded; an invalid escape is copied verbatim.
 */
function decodeDoubleQuoted(src: string, lo: number, hi: number, e: Emitter): void {
  const at = (j: number): number => (j < hi ? src.charCodeAt(j) : -1);
  let skippedCR = -2;
  for (let i = lo + 1; i < hi - 1; ++i) {
    if (!e.ok) return;
    const ch = src.charCodeAt(i);
    if (ch === CR && at(i + 1) === LF) {
      skippedCR = i;
      continue;
    }
    if (ch === LF) {
      const breakStart = skippedCR === i - 1 ? i - 1 : i;
      let off = i;
      let folded = 0;
      let c = at(off + 1);
      while (c === SP || c === TAB || c === LF || c === CR) {
        if (c === CR && at(off + 2) !== LF) break;
        if (c === LF) {
          folded++;
          e.push(LF, src.charCodeAt(off) === CR ? off : off + 1, off + 2);
        }
        off += 1;
        c = at(off + 1);
      }
      if (folded === 0) e.push(SP, breakStart, i + 1);
      i = off;
    } else if (ch === BACKSLASH) {
      const next = at(++i);
      const code = next >= 0 && next < 128 ? ESCAPES[next]! : -1;
      if (code >= 0) e.push(code, i - 1, i + 1);
      else if (next === LF) {
        while (isBlank(at(i + 1))) i++;
      } else if (next === CR && at(i + 1) === LF) {
        i++;
        while (isBlank(at(i + 1))) i++;
      } else if (next === 0x78 /* x */ || next === 0x75 /* u */ || next === 0x55 /* U */) {
        const length = next === 0x78 ? 2 : next === 0x75 ? 4 : 8;
        const digitsStart = i + 1;
        const digitsEnd = Math.min(digitsStart + length, hi);
        let ok = digitsEnd - digitsStart === length;
        let cp = 0;
        for (let j = digitsStart; ok && j < digitsEnd; j++) {
          const h = hexValue(src.charCodeAt(j));
          if (h < 0) ok = false;
          else cp = cp * 16 + h;
        }
        if (ok && cp <= 0x10ffff) e.pushCodePoint(cp, i - 1, digitsEnd);
        else e.copy(i - 1, Math.min(i + 1 + length, hi));
        i += length;
      } else {
        e.copy(i - 1, Math.min(i + 1, hi));
      }
    } else if (ch === SP || ch === TAB) {
      // whitespace before a line break is trimmed
      const wsStart = i;
      let next = at(i + 1);
      while (next === SP || next === TAB) next = at(++i + 1);
      if (next !== LF && !(next === CR && at(i + 2) === LF)) e.copy(wsStart, i + 1);
    } else {
      e.push(ch, i, i + 1);
    }
  }
}

function clamp(n: number, min: number, max: number): number {
  if (!(n >= min)) return min; // also catches NaN
  return n > max ? max : Math.floor(n);
}

function referenceValue(node: Scalar): string {
  const v: unknown = node.value;
  if (typeof v === 'string') return v;
  if (typeof node.source === 'string') return node.source;
  return v === null || v === undefined ? '' : String(v);
}

/** Spread the value proportionally over [lo, hi]; used when the decoder did not reproduce the value. */
function fallback(value: string, starts: Int32Array, ends: Int32Array, lo: number, hi: number): ScalarMap {
  const len = value.length;
  const span = Math.max(0, hi - lo);
  for (let i = 0; i <= len; i++) starts[i] = len === 0 ? lo : lo + Math.floor((i * span) / len);
  for (let i = 0; i < len; i++) ends[i] = starts[i + 1]!;
  ends[len] = starts[len]!;
  return { value, offsets: starts, ends, exact: false };
}
