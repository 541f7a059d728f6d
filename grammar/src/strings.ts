/**
 * Quoted string literals, shared by the expression lexer, the type-expression lexer and the template
 * scanner (which must skip `}}` inside a literal). Linear scans, no regular expressions.
 *
 * - `'text'`: single-quoted; `''` stands for one quote; no other escapes.
 * - `"text"`: double-quoted with JSON escapes: `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\uXXXX`.
 */

const SINGLE = 0x27; // '
const DOUBLE = 0x22; // "
const BACKSLASH = 0x5c;

/**
 * Where the quoted literal opening at `start` (which must hold `'` or `"`) ends: the offset just past its
 * closing quote, or `-1` when the text ends first.
 */
export function scanQuoted(text: string, start: number): number {
  const quote = text.charCodeAt(start);
  const length = text.length;
  let i = start + 1;
  if (quote === SINGLE) {
    while (i < length) {
      const index = text.indexOf("'", i);
      if (index < 0) return -1;
      if (text.charCodeAt(index + 1) === SINGLE) {
        i = index + 2;
        continue;
      }
      return index + 1;
    }
    return -1;
  }
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i += 2;
    else if (c === DOUBLE) return i + 1;
    else i++;
  }
  return -1;
}

/** A problem inside a string literal, as offsets into the scanned text. */
export interface StringProblem {
  message: string;
  start: number;
  end: number;
}

export interface DecodedString {
  value: string;
  /** False when the text ended before the closing quote. */
  terminated: boolean;
  problems: StringProblem[];
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

const HEX4 = /^[0-9A-Fa-f]{4}$/;

/**
 * Decodes the literal occupying `text.slice(start, end)` (from its opening quote through its closing quote,
 * or through the end of the text when it is unterminated).
 */
export function decodeQuoted(text: string, start: number, end: number): DecodedString {
  const quote = text.charCodeAt(start);
  const problems: StringProblem[] = [];
  const terminated = end - start >= 2 && scanQuoted(text, start) === end;
  const bodyEnd = terminated ? end - 1 : end;
  if (!terminated) {
    problems.push({
      message: `unterminated string literal: expected a closing ${quote === SINGLE ? "'" : '"'}`,
      start,
      end,
    });
  }
  if (quote === SINGLE) {
    return { value: text.slice(start + 1, bodyEnd).replaceAll("''", "'"), terminated, problems };
  }
  let value = '';
  let chunkStart = start + 1;
  let i = start + 1;
  while (i < bodyEnd) {
    if (text.charCodeAt(i) !== BACKSLASH) {
      i++;
      continue;
    }
    value += text.slice(chunkStart, i);
    const escaped = text[i + 1];
    if (escaped === undefined || i + 1 >= bodyEnd) {
      // A lone backslash at the very end of an unterminated literal: already reported as unterminated.
      chunkStart = bodyEnd;
      break;
    }
    const simple = Object.hasOwn(SIMPLE_ESCAPES, escaped) ? SIMPLE_ESCAPES[escaped] : undefined;
    if (simple !== undefined) {
      value += simple;
      i += 2;
    } else if (escaped === 'u' && HEX4.test(text.slice(i + 2, Math.min(i + 6, bodyEnd)))) {
      value += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
      i += 6;
    } else {
      problems.push({
        message:
          escaped === 'u'
            ? 'invalid escape "\\u": it takes four hexadecimal digits'
            : `invalid escape "\\${escaped}" in a double-quoted string`,
        start: i,
        end: i + 2,
      });
      value += escaped;
      i += 2;
    }
    chunkStart = i;
  }
  value += text.slice(chunkStart, bodyEnd);
  // Inside an unterminated literal, where it was meant to end is unknown: the one error is "unterminated".
  return { value, terminated, problems: terminated ? problems : problems.slice(0, 1) };
}
