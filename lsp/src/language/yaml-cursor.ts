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
  siblings: string[];
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
      let j = i + 1;
      while (j < rest.length) {
        if (c === '"' && rest[j] === '\\') j += 2;
        else if (rest[j] === c) {
          if (c === "'" && rest[j + 1] === "'") j += 2;
          else break;
        } else j++;
      }
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
      if (frame.kind === 'map') {
        if (frame.key !== undefined) frame.entries.push(frame.key);
        else if (scalar?.trim()) frame.entries.push(scalar.trim());
        frame.key = undefined;
        frame.state = 'key';
      } else if (scalar?.trim()) frame.entries.push(scalar.trim());
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
  const lines = text.slice(0, lineStart).split(/\r?\n/);
  lines.pop(); // the empty piece after the last line break
  const above = parentsAbove(lines, indent, isItem);
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
  const siblings =
    last.kind === 'block' ? siblingKeys(text, lines.length, column, above.parentLine) : last.entries;
  return { path, position: 'key', inSequence: false, word, siblings, keyColumn: column, flow, colonAfter };
}

/**
 * The keys of the block mappings holding a line at `indent` (a `- ` item when `isItem`), read upward; the
 * items already above in the same sequence; undefined when the line is inside a block or multi-line scalar.
 */
function parentsAbove(
  lines: readonly string[],
  indent: number,
  isItem: boolean,
): { path: string[]; items: string[]; parentLine: number } | undefined {
  const path: string[] = [];
  const items: string[] = [];
  let column = indent;
  let item = isItem;
  let parentLine = -1;
  let first = true;
  for (let i = lines.length - 1; i >= 0 && column > 0; i--) {
    const text = lines[i]!;
    if (isBlankOrComment(text)) continue;
    const line = readLine(text);
    // Sibling items of the same sequence (`- a` above `- |`).
    if (item && line.dashes && line.indent === column) {
      if (first) items.unshift(line.value);
      continue;
    }
    const isParent = line.indent < column || (item && line.indent === column && !line.dashes);
    if (!isParent) continue;
    if (line.key === undefined) return undefined;
    if (!valueIsEmpty(line.value)) return undefined; // a block scalar, or a multi-line plain or flow value
    if (first) parentLine = i;
    first = false;
    path.unshift(line.key);
    column = line.indent;
    item = line.dashes;
  }
  return { path, items, parentLine };
}

/** The keys at `column` of the block mapping that starts after `parentLine` (the root when it is -1). */
function siblingKeys(text: string, cursorLine: number, column: number, parentLine: number): string[] {
  const lines = text.split(/\r?\n/);
  const parentIndent = parentLine >= 0 ? readLine(lines[parentLine]!).indent : -1;
  const keys: string[] = [];
  for (let i = parentLine + 1; i < lines.length; i++) {
    if (i === cursorLine) continue;
    const raw = lines[i]!;
    if (isBlankOrComment(raw)) continue;
    const line = readLine(raw);
    if (line.indent <= parentIndent) break;
    if (line.column === column && line.key !== undefined) keys.push(line.key);
  }
  return keys;
}
