/* eslint-disable max-lines -- over the bound when the rule came in (2026-12-06): to be split, issue 22 */
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

const TAB = 9;
const LF = 10;
const CR = 13;
const SP = 32;
const DQUOTE = 34;
const SQUOTE = 39;
const BACKSLASH = 92;
const PIPE = 124;
const GT = 62;

/** Double-quoted single-character escapes (`\n`, `\t`, …), by the code of the character after `\`; -1 = none. */
const ESCAPES = /* @__PURE__ */ (() => {
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

/** Writes (unit, source start, source end) triples, checking each unit against the expected value. */
class Emitter {
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

function isBlank(c: number): boolean {
  return c === SP || c === TAB;
}

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

interface BlockHeader {
  folded: boolean;
  /** 0 when absent */
  indent: number;
  /** '-' | '+' | '' */
  chomp: string;
}

function parseHeader(text: string): BlockHeader {
  let indent = 0;
  let chomp = '';
  for (let i = 1; i < text.length; ++i) {
    const ch = text[i]!;
    if (!chomp && (ch === '-' || ch === '+')) chomp = ch;
    else {
      const n = Number(ch);
      if (!indent && n) indent = n;
    }
  }
  return { folded: text[0] === '>', indent, chomp };
}

/** The block-scalar CST token, when the document was parsed with `keepSourceTokens`. */
function blockToken(node: Scalar): { indent: number; header: string | null; body: string } | null {
  const t = node.srcToken as
    | {
        type?: unknown;
        indent?: unknown;
        source?: unknown;
        props?: Array<{ type?: unknown; source?: unknown }>;
      }
    | undefined;
  if (!t || t.type !== 'block-scalar' || typeof t.indent !== 'number' || typeof t.source !== 'string') {
    return null;
  }
  const h = Array.isArray(t.props) ? t.props[0] : undefined;
  const header = h && h.type === 'block-scalar-header' && typeof h.source === 'string' ? h.source : null;
  return { indent: t.indent, header, body: t.source };
}

/**
 * Block scalar `[lo, hi)` starting at its `|`/`>` header. Returns the body start (the content range
 * start). Uses the token's parent indentation when available; otherwise, with an indentation indicator,
 * tries each plausible parent indentation until one reproduces the value.
 */
function decodeBlockScalar(src: string, lo: number, hi: number, node: Scalar, e: Emitter): number {
  const token = blockToken(node);
  let headerEnd = lo + 1;
  while (headerEnd < hi) {
    const c = src.charCodeAt(headerEnd);
    if (c === SP || c === TAB || c === LF || c === CR || c === 0x23 /* # */) break;
    headerEnd++;
  }
  const header = parseHeader(token?.header ?? src.slice(lo, headerEnd));
  let bodyStart: number;
  if (token && hi - token.body.length >= lo) bodyStart = hi - token.body.length;
  else {
    bodyStart = headerEnd;
    while (bodyStart < hi && src.charCodeAt(bodyStart) !== LF) bodyStart++;
    bodyStart = Math.min(bodyStart + 1, hi);
  }
  const lines = splitLines(src, bodyStart, hi);
  if (token || header.indent === 0) {
    decodeBlockBody(src, lines, header, token ? token.indent : 0, bodyStart, e);
    return bodyStart;
  }
  // No token: the parent indentation is unknown; at most one candidate reproduces the value.
  let maxIndent = 0;
  for (let k = 0; k < lines.length; k += 3) maxIndent = Math.max(maxIndent, lines[k + 1]! - lines[k]!);
  for (let parent = 0; parent <= maxIndent; parent++) {
    e.reset();
    decodeBlockBody(src, lines, header, parent, bodyStart, e);
    if (e.ok && e.pos === e.expected.length) return bodyStart;
  }
  return bodyStart;
}

/**
 * Lines of a block scalar body [a, b) as triples (line start, indentation end, content end); indentation
 * is spaces only; the content end is the line feed's offset (or b), so a CRLF line's content ends with \r.
 * An empty body has no lines.
 */
function splitLines(src: string, a: number, b: number): Int32Array {
  if (a >= b) return new Int32Array(0);
  let count = 1;
  for (let j = a; j < b; j++) if (src.charCodeAt(j) === LF) count++;
  const lines = new Int32Array(count * 3);
  let j = a;
  for (let k = 0; k < count * 3; k += 3) {
    lines[k] = j;
    while (j < b && src.charCodeAt(j) === SP) j++;
    lines[k + 1] = j;
    while (j < b && src.charCodeAt(j) !== LF) j++;
    lines[k + 2] = j;
    j++;
  }
  return lines;
}

/** Mirrors `resolveBlockScalar` of the yaml package; see the ScalarMap docs for what each unit maps to. */
// eslint-disable-next-line max-lines-per-function -- over the bound when the rule came in (2026-12-06): to be split, issue 22
function decodeBlockBody(
  src: string,
  lines: Int32Array,
  header: BlockHeader,
  parentIndent: number,
  bodyStart: number,
  e: Emitter,
): void {
  const n = lines.length / 3;
  const ls = (k: number): number => lines[3 * k]!;
  const ie = (k: number): number => lines[3 * k + 1]!;
  const ce = (k: number): number => lines[3 * k + 2]!;
  const indentLen = (k: number): number => ie(k) - ls(k);
  const isEmpty = (k: number): boolean => {
    const w = ce(k) - ie(k);
    return w === 0 || (w === 1 && src.charCodeAt(ie(k)) === CR);
  };
  /** content end without a trailing \r; also the start of the line break */
  const contentEnd = (k: number): number => {
    const c = ce(k);
    return c > ie(k) && src.charCodeAt(c - 1) === CR ? c - 1 : c;
  };
  /** line k's break: [contentEnd(k), breakEnd(k)); empty (or just a stray \r) for the last line */
  const breakEnd = (k: number): number => (k < n - 1 ? ce(k) + 1 : ce(k));
  const pushBreak = (code: number, k: number): void => e.push(code, contentEnd(k), breakEnd(k));

  let chompStart = n;
  for (let k = n - 1; k >= 0; --k) {
    if (isEmpty(k)) chompStart = k;
    else break;
  }
  if (chompStart === 0) {
    if (header.chomp === '+' && n > 0) {
      const count = Math.max(1, n - 1);
      for (let k = 0; k < count; k++) {
        if (k < n - 1) pushBreak(LF, k);
        else e.push(LF, bodyStart, bodyStart);
      }
    }
    return;
  }

  let trimIndent = parentIndent + header.indent;
  let contentStart = 0;
  for (let k = 0; k < chompStart; ++k) {
    if (isEmpty(k)) {
      if (header.indent === 0 && indentLen(k) > trimIndent) trimIndent = indentLen(k);
    } else {
      if (header.indent === 0) trimIndent = indentLen(k);
      contentStart = k;
      break;
    }
  }
  // trailing more-indented empty lines are content
  for (let k = n - 1; k >= chompStart; --k) {
    if (indentLen(k) > trimIndent) chompStart = k + 1;
  }
  /** indentation beyond trimIndent is content */
  const copyExtraIndent = (k: number): void => {
    if (indentLen(k) > trimIndent) e.copy(ls(k) + trimIndent, ie(k));
  };

  // leading empty lines are kept
  for (let k = 0; k < contentStart; ++k) {
    copyExtraIndent(k);
    pushBreak(LF, k);
  }

  // sep: 0 = none, else the unit (LF or SP) produced by line sepLine's break
  let sep = 0;
  let sepLine = -1;
  if (!header.folded) {
    for (let k = contentStart; k < chompStart && e.ok; ++k) {
      if (sep) pushBreak(sep, sepLine);
      copyExtraIndent(k);
      e.copy(ie(k), contentEnd(k));
      sep = LF;
      sepLine = k;
    }
  } else {
    let prevMoreIndented = false;
    // start of a run of line feeds produced by empty lines after a folded (not more-indented) line
    let runStartPos = -1;
    let runFirstLine = -1;
    for (let k = contentStart; k < chompStart && e.ok; ++k) {
      const cEnd = contentEnd(k);
      if (indentLen(k) > trimIndent || (cEnd > ie(k) && src.charCodeAt(ie(k)) === TAB)) {
        // more-indented content: line breaks around it are kept, not folded
        if (sep === SP) {
          pushBreak(LF, sepLine);
        } else if (!prevMoreIndented && sep === LF && runStartPos < 0) {
          // `\n\n` without a preceding folded line (not produced by the yaml package; kept for safety)
          pushBreak(LF, sepLine);
          pushBreak(LF, sepLine);
        } else if (!prevMoreIndented && sep === LF) {
          // `\n\n`: the folded line's break is kept too. Re-map the run so that the line feeds map, in
          // order, to the breaks of lines runFirstLine … k-1.
          const emitted = e.pos - runStartPos;
          for (let p = 0; p < emitted; p++) {
            const line = runFirstLine + p;
            if (runStartPos + p < e.starts.length) {
              e.starts[runStartPos + p] = contentEnd(line);
              e.ends[runStartPos + p] = breakEnd(line);
            }
          }
          pushBreak(LF, runFirstLine + emitted);
          pushBreak(LF, runFirstLine + emitted + 1);
        } else if (sep) {
          pushBreak(sep, sepLine);
        }
        copyExtraIndent(k);
        e.copy(ie(k), cEnd);
        sep = LF;
        sepLine = k;
        prevMoreIndented = true;
        runStartPos = -1;
      } else if (cEnd === ie(k)) {
        // empty line
        if (sep === LF) {
          pushBreak(LF, sepLine);
        } else {
          if (sep === SP) {
            runStartPos = e.pos;
            runFirstLine = sepLine;
          }
          sep = LF;
        }
        sepLine = k;
      } else {
        if (sep) pushBreak(sep, sepLine);
        e.copy(ie(k), cEnd);
        sep = SP;
        sepLine = k;
        prevMoreIndented = false;
        runStartPos = -1;
      }
    }
  }
  if (!e.ok) return;

  switch (header.chomp) {
    case '-':
      break;
    case '+':
      for (let k = chompStart; k < n; ++k) {
        pushBreak(LF, k - 1);
        copyExtraIndent(k);
      }
      if (e.lastCode !== LF) e.push(LF, e.lastEnd, e.lastEnd);
      break;
    default:
      pushBreak(LF, chompStart - 1);
  }
}
