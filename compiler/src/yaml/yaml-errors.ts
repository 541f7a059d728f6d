import { isMap, isScalar, isSeq, isPair } from 'yaml';
import type { Document, Node } from 'yaml';
import { MAX_SHOWN, shown } from '../diagnostic.js';

/**
 * The yaml parser's errors in the words of a playbook author, on the characters to fix: the quote that is
 * never closed rather than the end of the file, the `:` that starts an unintended mapping rather than the
 * start of the value, the key that is indented too far rather than the line above it.
 */
export interface YamlErrorReport {
  message: string;
  start: number;
  end: number;
}

const QUOTE_NAMES: Record<string, string> = { '"': 'double', "'": 'single' };

// eslint-disable-next-line max-lines-per-function -- over the bound when the rule came in (2026-12-06): to be split, issue 22
export function describeYamlError(
  code: string,
  rawMessage: string,
  pos: readonly [number, number],
  text: string,
  document: Document.Parsed,
): YamlErrorReport {
  // (the parser's words may quote the text)
  const detail = shown(lowerFirst(rawMessage.split('\n')[0]!.trim()), 3 * MAX_SHOWN);
  const [start, end] = pos;
  const at = (message: string, from = start, to = Math.max(end, start)): YamlErrorReport => ({
    message,
    start: from,
    end: to,
  });

  switch (code) {
    case 'TAB_AS_INDENT':
      return at('tabs are not allowed for indentation in YAML; indent with spaces');

    case 'MISSING_CHAR': {
      const quote = /closing (["'])quote/.exec(rawMessage)?.[1];
      if (quote) {
        const opening = openQuoteBefore(document, start, quote);
        const fix =
          quote === '"' ? 'add the closing "' : "add the closing ' (a ' inside the text is written '')";
        if (opening !== undefined)
          return at(`this ${QUOTE_NAMES[quote]}-quoted string is never closed; ${fix}`, opening, opening + 1);
        return at(`a ${QUOTE_NAMES[quote]}-quoted string is never closed; ${fix}`);
      }
      if (/implicit map keys need to be followed by map values/i.test(rawMessage))
        return at('a key needs a ":" and its value after it (key: value)');
      return at(`missing character: ${detail}`);
    }

    case 'BAD_INDENT': {
      const flow = /^Flow (sequence|map)/.exec(rawMessage)?.[1];
      if (flow) {
        const opening = unclosedFlowBefore(document, text, start);
        if (opening !== undefined) {
          // (the bracket found, not the parser's word: with nested unclosed collections they differ)
          const [open, close, what] = text[opening] === '{' ? ['{', '}', 'mapping'] : ['[', ']', 'list'];
          return at(`this "${open}" is never closed; end the ${what} with "${close}"`, opening, opening + 1);
        }
      }
      const key = keyOfLine(text, start);
      return at(`bad indentation: ${detail}`, key.start, key.end);
    }

    case 'BLOCK_AS_IMPLICIT_KEY': {
      if (/block sequence/i.test(rawMessage)) {
        const item = keyOfLine(text, start);
        return at(
          'a list item ("- …") cannot stand among the keys of a mapping; put it under a key of its own',
          item.start,
          item.start + 1,
        );
      }
      // `prompt: Do this: now` — a ": " inside a plain value starts a mapping.
      const colon = colonInLine(text, start);
      if (colon !== undefined)
        return at(
          '": " inside a plain value starts a nested mapping; quote the whole value, or write it as a block scalar (|)',
          colon,
          colon + 1,
        );
      // `role: x` followed by a line indented further: YAML reads both lines as one key.
      const next = nextLineKey(text, start);
      if (next)
        return at(
          'bad indentation: this line is indented more than the key above it, so YAML reads it as part of that value; line it up with the key above',
          next.start,
          next.end,
        );
      return at(`a block value cannot be an implicit key: ${detail}`);
    }

    case 'MULTILINE_IMPLICIT_KEY': {
      const line = lineAround(text, start);
      const glued = /([^\s:#"'[\]{},]+):([^\s]\S*)/.exec(text.slice(start, line.end));
      if (glued) {
        const from = start + glued.index;
        return at(
          `missing space after ":" in "${shown(glued[0])}"; write "${shown(glued[1]!)}: ${shown(glued[2]!)}"`,
          from,
          from + glued[0].length,
        );
      }
      return at(`a key must be on a single line: ${detail}`, start, Math.min(Math.max(end, start), line.end));
    }

    case 'UNEXPECTED_TOKEN': {
      // `env: { TOKEN: ${{ inputs.token }} }`: inside [ ] or { }, "{" starts a mapping.
      if (text[start] === '{' && text[start - 1] === '$')
        return at(
          'a template inside [ ] or { } must be quoted: write "${{ … }}"',
          start - 1,
          text.startsWith('{{', start) ? start + 2 : start + 1,
        );
      if (/scalar at node end/i.test(rawMessage)) {
        let i = start - 1;
        while (i >= 0 && (text[i] === ' ' || text[i] === '\t')) i--;
        const quote = text[i];
        if (quote === '"')
          return at(
            'text after the closing " of a string; to write a " inside a double-quoted string, escape it as \\"',
          );
        if (quote === "'")
          return at(
            "text after the closing ' of a string; to write a ' inside a single-quoted string, double it: ''",
          );
        const line = lineAround(text, start);
        const alias = /(?:^|[\s:[{,-])(\*[^\s]*\s+)$/.exec(text.slice(line.start, start));
        if (alias)
          return at(
            'a value that starts with "*" is an alias to an anchor; to write text that starts with "*", quote it',
            start - alias[1]!.length,
          );
      }
      return at(`unexpected text: ${detail}`);
    }

    case 'BAD_SCALAR_START': {
      const char = text[start] ?? '';
      return at(`a plain value cannot start with "${char}"; quote the value`, start, start + 1);
    }

    case 'DUPLICATE_KEY':
      return at(detail);

    default:
      return at(detail);
  }
}

function lowerFirst(message: string): string {
  return message.length > 1 && /^[A-Z](?![A-Z])/.test(message)
    ? message[0]!.toLowerCase() + message.slice(1)
    : message;
}

function lineAround(text: string, offset: number): { start: number; end: number } {
  let start = Math.min(offset, text.length);
  while (start > 0 && text[start - 1] !== '\n' && text[start - 1] !== '\r') start--;
  let end = Math.min(offset, text.length);
  while (end < text.length && text[end] !== '\n' && text[end] !== '\r') end++;
  return { start, end };
}

/** The key (or first token) of the line holding `offset`: from its first non-blank character to its ":". */
function keyOfLine(text: string, offset: number): { start: number; end: number } {
  const line = lineAround(text, offset);
  let start = offset;
  if (/^[ \t]*$/.test(text.slice(line.start, offset + 1))) {
    start = line.start;
    while (start < line.end && (text[start] === ' ' || text[start] === '\t')) start++;
  }
  if (start >= line.end) return { start: offset, end: Math.min(offset + 1, text.length) };
  const colon = text.slice(start, line.end).search(/:(\s|$)/);
  return { start, end: colon > 0 ? start + colon : line.end };
}

/** The first `: ` (or a `:` ending the line) from `offset` to the end of its line, outside quotes. */
function colonInLine(text: string, offset: number): number | undefined {
  const line = lineAround(text, offset);
  for (let i = offset; i < line.end; i++) {
    if (text[i] === '#' && (i === 0 || /\s/.test(text[i - 1]!))) return undefined;
    if (text[i] === ':' && (i + 1 === line.end || text[i + 1] === ' ' || text[i + 1] === '\t')) return i;
  }
  return undefined;
}

/** The key of the next non-blank line after the one holding `offset`, when that line holds one. */
function nextLineKey(text: string, offset: number): { start: number; end: number } | undefined {
  let i = lineAround(text, offset).end;
  while (i < text.length) {
    while (i < text.length && (text[i] === '\n' || text[i] === '\r')) i++;
    const line = lineAround(text, i);
    const content = text.slice(line.start, line.end);
    if (content.trim() === '' || content.trim().startsWith('#')) {
      i = line.end;
      continue;
    }
    const key = keyOfLine(text, line.start);
    return text.slice(key.end, key.end + 1) === ':' ? key : undefined;
  }
  return undefined;
}

/** Every node of the document, iteratively (no recursion on deep input), with a bound on the work. */
function* nodes(document: Document.Parsed): Generator<Node> {
  const stack: unknown[] = [document.contents];
  let budget = 200_000;
  while (stack.length && budget-- > 0) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    if (isPair(node)) {
      stack.push(node.value, node.key);
      continue;
    }
    yield node as Node;
    if (isMap(node) || isSeq(node)) {
      const items = (node as { items: unknown[] }).items;
      for (let k = items.length - 1; k >= 0; k--) stack.push(items[k]);
    }
  }
}

/** The opening quote of the quoted scalar that runs to `offset` (where its closing quote is missing). */
function openQuoteBefore(document: Document.Parsed, offset: number, quote: string): number | undefined {
  const type = quote === '"' ? 'QUOTE_DOUBLE' : 'QUOTE_SINGLE';
  let found: number | undefined;
  for (const node of nodes(document)) {
    if (!isScalar(node) || node.type !== type || !node.range) continue;
    const [start, valueEnd] = node.range;
    if (start < offset && valueEnd >= offset && (found === undefined || start > found)) found = start;
  }
  return found;
}

/** The opening bracket of the innermost flow collection before `offset` whose closing bracket is missing. */
function unclosedFlowBefore(document: Document.Parsed, text: string, offset: number): number | undefined {
  let found: number | undefined;
  for (const node of nodes(document)) {
    if (!(isMap(node) || isSeq(node)) || !(node as { flow?: boolean }).flow || !node.range) continue;
    const [start, valueEnd] = node.range;
    if (start >= offset) continue;
    const close = text[start] === '{' ? '}' : ']';
    // (the last non-blank character, found without copying the collection's text: nodes nest)
    let last = valueEnd - 1;
    while (last > start && /\s/.test(text[last]!)) last--;
    if (text[last] === close) continue;
    if (found === undefined || start > found) found = start;
  }
  return found;
}
