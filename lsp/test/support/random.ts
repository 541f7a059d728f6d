import { prng } from '../../../test/support/random.js';

/** A small seeded PRNG (mulberry32), so a failing fuzz run can be replayed from its seed. */
export class Random {
  readonly next: () => number;
  constructor(readonly seed: number) {
    this.next = prng(seed);
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

/** Pieces of text that make interesting edits to a playbook. */
export const SNIPPETS = [
  'a',
  'z',
  ' ',
  ':',
  '-',
  '{',
  '}',
  '[',
  ']',
  '$',
  "'",
  '"',
  '|',
  '>',
  '#',
  ',',
  '.',
  '\n',
  '\t',
  '\\',
  '&',
  '!',
  '=',
  '${{ ',
  ' }}',
  '${{',
  '}}',
  'steps.',
  'inputs.',
  'outputs.',
  'report.',
  ".outcome == '",
  'needs: [',
  '  - ',
  '\n    ',
  '\n  x:\n    prompt: |\n      hi ${{ inputs.',
  'loop: ',
  'role: ',
  'when: ',
  '😀',
  'é',
  '\r\n',
  '---\n',
  '&a ',
  '*a',
  '!!str ',
  '? ',
  '%YAML 1.2\n',
  '"\\u00e9',
  "''",
];

/**
 * One random edit of a text: where, how much to remove, and what to insert. An edit never starts or ends
 * between the two characters of a CRLF: no LSP position stands there.
 */
export function randomEdit(random: Random, text: string): { start: number; end: number; insert: string } {
  const edit = anyEdit(random, text);
  const fix = (at: number) => (text[at - 1] === '\r' && text[at] === '\n' ? at - 1 : at);
  return { start: fix(edit.start), end: Math.max(fix(edit.start), fix(edit.end)), insert: edit.insert };
}

function anyEdit(random: Random, text: string): { start: number; end: number; insert: string } {
  const kind = random.int(10);
  const at = random.int(text.length + 1);
  if (kind < 5) return { start: at, end: at, insert: random.pick(SNIPPETS) };
  if (kind < 8) return { start: at, end: Math.min(text.length, at + 1 + random.int(12)), insert: '' };
  // Lines: delete one, duplicate one, or swap with the next.
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  let lineEnd = text.indexOf('\n', at);
  lineEnd = lineEnd < 0 ? text.length : lineEnd + 1;
  const line = text.slice(lineStart, lineEnd);
  if (kind === 8) return { start: lineStart, end: lineEnd, insert: '' };
  return { start: lineEnd, end: lineEnd, insert: line.endsWith('\n') ? line : `${line}\n` };
}
