/**
 * Where a cursor stands in the YAML structure, read from the text around it rather than from a parse, so it
 * works while the user types (`ro|`, `needs: [plan, |`, a half-written line between two good ones): the
 * keys of the block mappings above by indentation, then the flow collections and keys on the cursor's line.
 */
import { parsedText } from './yaml-document.js';

export interface YamlCursor {
  /** keys from the root: to the mapping the cursor writes a key of, or to the key whose value it writes */
  path: string[];
  position: 'key' | 'value';
  /** a value inside a sequence (`[a, |]`, `- |`) */
  inSequence: boolean;
  /** the name-like word around the cursor: replaced by a completion */
  word: { start: number; end: number; prefix: string };
  /** keys already in the mapping (for 'key'), or items already in the sequence */
  readonly siblings: string[];
  /** the column of the mapping's keys (block) */
  keyColumn: number;
  /** inside a flow collection (`{ }`, `[ ]`) */
  flow: boolean;
  /** the word is followed by `:` (a key being edited, not a new one) */
  colonAfter: boolean;
}

interface Line {
  text: string;
  indent: number;
  /** column after `- ` markers */
  column: number;
  dashes: boolean;
  /** `key:` with what follows it, when the line (after markers) starts with a key */
  key: string | undefined;
  value: string;
}

const KEY_LINE = /^((?:[^\s#'"{}[\],:][^:#]*?)|'[^']*'|"[^"]*")[ \t]*:(?:[ \t]+(.*))?$/;
const WORD_BEFORE = /[A-Za-z0-9_-]*$/;
const WORD_AFTER = /^[A-Za-z0-9_-]*/;

function unquote(key: string): string {
  return (key.startsWith('"') && key.endsWith('"')) || (key.startsWith("'") && key.endsWith("'"))
    ? key.slice(1, -1)
    : key.trim();
}

function readLine(text: string): Line {
  const lead = /^( *)((?:-[ \t]+)*)/.exec(text)!;
  const indent = lead[1]!.length;
  const column = lead[0].length;
  const rest = text.slice(column).replace(/\s+$/, '');
  const match = KEY_LINE.exec(rest);
  return {
    text,
    indent,
    column,
    dashes: lead[2]!.length > 0,
    key: match ? unquote(match[1]!) : undefined,
    value: match ? (match[2] ?? '').trim() : rest,
  };
}

function isBlankOrComment(text: string): boolean {
  const trimmed = text.trim();
  return trimmed === '' || trimmed.startsWith('#') || trimmed === '---' || trimmed === '...';
}

/** Whether a value written after `key:` opens nothing that continues on later lines. */
function valueIsEmpty(value: string): boolean {
  return value === '' || value.startsWith('#');
}

interface Frame {
  kind: 'block' | 'map' | 'seq';
  state: 'key' | 'value';
  key: string | undefined;
  entries: string[];
}

/**
 * Reads the flow structure of the text between the block indentation and the cursor.
 * Returns undefined when the cursor is in a comment.
 */
function scanInline(rest: string, startsAsItem: boolean): { frames: Frame[]; inString: boolean } | undefined {
  const frames: Frame[] = [
    {
      kind: startsAsItem ? 'seq' : 'block',
      state: startsAsItem ? 'value' : 'key',
      key: undefined,
      entries: [],
    },
  ];
  let scalar: string | undefined;
  let i = 0;
  const top = () => frames[frames.length - 1]!;
  while (i < rest.length) {
    const c = rest[i]!;
    if (c === '"' || c === "'") {
      const j = closingQuote(rest, i);
      if (j >= rest.length) return { frames, inString: true };
      scalar = rest.slice(i + 1, j);
      i = j + 1;
      continue;
    }
    if (c === '#' && (i === 0 || /\s/.test(rest[i - 1]!))) return undefined;
    const frame = top();
    const inFlow = frame.kind !== 'block';
    if (
      c === ':' &&
      (i + 1 >= rest.length || /\s/.test(rest[i + 1]!) || (inFlow && /[,\]}]/.test(rest[i + 1]!)))
    ) {
      if (frame.kind === 'seq') {
        // `[a: b]`: a one-pair mapping inside a sequence; rare, read as a value.
        i++;
        continue;
      }
      frame.key = scalar?.trim();
      frame.state = 'value';
      scalar = undefined;
      i++;
      continue;
    }
    if (c === '{' || c === '[') {
      frames.push({
        kind: c === '{' ? 'map' : 'seq',
        state: c === '{' ? 'key' : 'value',
        key: undefined,
        entries: [],
      });
      scalar = undefined;
      i++;
      continue;
    }
    if ((c === '}' || c === ']') && inFlow) {
      frames.pop();
      scalar = undefined;
      i++;
      continue;
    }
    if (c === ',' && inFlow) {
      endEntry(frame, scalar);
      scalar = undefined;
      i++;
      continue;
    }
    let j = i;
    while (j < rest.length && !/[:{}[\],#"']/.test(rest[j]!)) j++;
    if (j === i) j = i + 1;
    scalar = (scalar ?? '') + rest.slice(i, j);
    i = j;
  }
  return { frames, inString: false };
}

/** Where the quoted scalar opened at `i` closes (`rest.length`: it does not, on this line). */
function closingQuote(rest: string, i: number): number {
  const c = rest[i]!;
  let j = i + 1;
  while (j < rest.length) {
    if (c === '"' && rest[j] === '\\') j += 2;
    else if (rest[j] === c) {
      if (c === "'" && rest[j + 1] === "'") j += 2;
      else break;
    } else j++;
  }
  return j;
}

/** A `,` in a flow collection: the entry before it is kept, and a mapping waits for its next key. */
function endEntry(frame: Frame, scalar: string | undefined): void {
  if (frame.kind === 'map') {
    if (frame.key !== undefined) frame.entries.push(frame.key);
    else if (scalar?.trim()) frame.entries.push(scalar.trim());
    frame.key = undefined;
    frame.state = 'key';
  } else if (scalar?.trim()) frame.entries.push(scalar.trim());
}

export function yamlCursorAt(source: string, offset: number): YamlCursor | undefined {
  // A lone CR ends a line too (same length, so offsets hold).
  const text = parsedText(source);
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  let lineEnd = text.indexOf('\n', offset);
  if (lineEnd < 0) lineEnd = text.length;
  if (text[lineEnd - 1] === '\r') lineEnd--;
  const before = text.slice(lineStart, offset);
  const after = text.slice(offset, Math.max(offset, lineEnd));
  if (before.includes('\t') && /^\s*\t/.test(before)) return undefined;

  const prefix = WORD_BEFORE.exec(before)![0];
  const suffix = WORD_AFTER.exec(after)![0];
  const word = { start: offset - prefix.length, end: offset + suffix.length, prefix };
  const colonAfter = /^[ \t]*:(\s|$)/.test(after.slice(suffix.length));

  const lead = /^( *)((?:-[ \t]+)*)/.exec(before)!;
  const indent = lead[1]!.length;
  const isItem = lead[2]!.length > 0;
  const column = lead[0].length;
  const inline = scanInline(before.slice(column), isItem);
  if (!inline) return undefined;

  // The block mappings above, by indentation.
  const above = parentsAbove(text, lineStart, indent, isItem);
  if (!above) return undefined;

  const path = [...above.path];
  const frames = inline.frames;
  for (let f = 0; f < frames.length - 1; f++) {
    const frame = frames[f]!;
    if (frame.kind !== 'seq' && frame.state === 'value' && frame.key !== undefined) path.push(frame.key);
  }
  const last = frames[frames.length - 1]!;
  const flow = frames.length > 1;
  if (last.kind === 'seq') {
    const siblings = isItem && frames.length === 1 ? above.items : last.entries;
    return { path, position: 'value', inSequence: true, word, siblings, keyColumn: indent, flow, colonAfter };
  }
  if (last.state === 'value' && last.key !== undefined) {
    path.push(last.key);
    return {
      path,
      position: 'value',
      inSequence: false,
      word,
      siblings: [],
      keyColumn: column,
      flow,
      colonAfter: false,
    };
  }
  if (inline.inString) return undefined;
  const cursor: YamlCursor = {
    path,
    position: 'key',
    inSequence: false,
    word,
    siblings: last.entries,
    keyColumn: column,
    flow,
    colonAfter,
  };
  if (last.kind === 'block') {
    // Read on first use: the keys of a block mapping are the rest of it (all the steps, for a step name),
    // and a place where names are chosen (steps, inputs…) does not need them.
    let siblings: string[] | undefined;
    Object.defineProperty(cursor, 'siblings', {
      enumerable: true,
      get: () => (siblings ??= siblingKeys(text, lineStart, column, above.parent)),
    });
  }
  return cursor;
}

// The lines are read in place, from offsets, never by splitting the text: a cursor deep in a big playbook
// walks up over thousands of lines (every step above it, to reach `steps:`), and most of them are passed
// over by their indentation alone, without making a string. Lines end at LF (a CR before it is not part of
// the line); `parsedText` has already turned a lone CR into an LF.

/** The number of spaces a line starts with. */
function indentAt(text: string, start: number, end: number): number {
  let i = start;
  while (i < end && text.charCodeAt(i) === 32) i++;
  return i - start;
}

/** The end of the line starting at `start` (the offset of its LF, or the end of the text). */
function lineEndFrom(text: string, start: number): number {
  const end = text.indexOf('\n', start);
  return end < 0 ? text.length : end;
}

/** A line's text without its line break. */
function lineText(text: string, start: number, end: number): string {
  return text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
}

/** Where the parent of a cursor's line starts (-1: the root) and its indentation (-1 at the root). */
interface ParentLine {
  start: number;
  indent: number;
}

/**
 * The keys of the block mappings holding a line at `indent` (a `- ` item when `isItem`), read upward from
 * the line before `lineStart`; the items already above in the same sequence; undefined when the line is
 * inside a block or multi-line scalar.
 */
function parentsAbove(
  text: string,
  lineStart: number,
  indent: number,
  isItem: boolean,
): { path: string[]; items: string[]; parent: ParentLine } | undefined {
  const path: string[] = [];
  const items: string[] = [];
  let column = indent;
  let item = isItem;
  const parent: ParentLine = { start: -1, indent: -1 };
  let first = true;
  let end = lineStart - 1; // the offset of the LF that ends the line above
  while (end >= 0 && column > 0) {
    const start = end === 0 ? 0 : text.lastIndexOf('\n', end - 1) + 1;
    const lineEnd = end;
    end = start - 1;
    // Deeper lines, and lines as deep when not reading a sequence, are neither parents nor items.
    const lineIndent = indentAt(text, start, lineEnd);
    if (lineIndent > column || (lineIndent === column && !item)) continue;
    const raw = lineText(text, start, lineEnd);
    if (isBlankOrComment(raw)) continue;
    const line = readLine(raw);
    // Sibling items of the same sequence (`- a` above `- |`).
    if (item && line.dashes && line.indent === column) {
      if (first) items.unshift(line.value);
      continue;
    }
    const isParent = line.indent < column || (item && line.indent === column && !line.dashes);
    if (!isParent) continue;
    if (line.key === undefined) return undefined;
    if (!valueIsEmpty(line.value)) return undefined; // a block scalar, or a multi-line plain or flow value
    if (first) {
      parent.start = start;
      parent.indent = line.indent;
    }
    first = false;
    path.unshift(line.key);
    column = line.indent;
    item = line.dashes;
  }
  return { path, items, parent };
}

/**
 * The keys at `column` of the block mapping that starts after the `parent` line (the root when there is
 * none), the cursor's line (starting at `cursorLineStart`) left out.
 */
function siblingKeys(text: string, cursorLineStart: number, column: number, parent: ParentLine): string[] {
  const keys: string[] = [];
  let next = parent.start < 0 ? 0 : lineEndFrom(text, parent.start) + 1;
  while (next <= text.length) {
    const here = next;
    const end = lineEndFrom(text, here);
    next = end + 1;
    if (here === cursorLineStart) continue;
    // A line deeper than the column holds no key of this mapping, and does not end it (the parent is
    // shallower than the column).
    if (indentAt(text, here, end) > column) continue;
    const raw = lineText(text, here, end);
    if (isBlankOrComment(raw)) continue;
    const line = readLine(raw);
    if (line.indent <= parent.indent) break;
    if (line.column === column && line.key !== undefined) keys.push(line.key);
  }
  return keys;
}
