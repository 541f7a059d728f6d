// Block scalars (`|` and `>`, with their indentation and chomping indicators): decoded again, mirroring
// the yaml package's resolveBlockScalar, each unit recorded with its source range (scalar-map.ts).
import type { Scalar } from 'yaml';
import { CR, LF, SP, TAB } from './scalar-emitter.js';
import type { Emitter } from './scalar-emitter.js';

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
export function decodeBlockScalar(src: string, lo: number, hi: number, node: Scalar, e: Emitter): number {
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
