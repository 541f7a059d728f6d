/**
 * The hand-written parser of well-formed expressions (fast-expression.ts) against the chevrotain parser:
 * wherever it gives a tree, the parser gives the same tree and no error; where the parser finds a mistake
 * it gives none (the parser's errors stay the only ones). On generated expressions (every operator, calls,
 * lists, indexes, parentheses, strings with escapes, numbers, keywords as names) and their mutations (a
 * token dropped, doubled or swapped, a stray character), at offsets, and on every expression of the
 * samples, fixtures and docs.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseExpressionWithParser } from '../src/expression.js';
import { parseWellFormed } from '../src/fast-expression.js';
import { prng } from '../../test/support/random.js';

/** Whether the fast parser gave a tree (then the parser gives the same, without an error). */
function agree(text: string, offset: number): boolean {
  const fast = parseWellFormed(text, offset);
  const parser = parseExpressionWithParser(text, offset);
  if (fast === undefined) return false;
  expect(parser.errors, JSON.stringify(text)).toEqual([]);
  expect(fast, JSON.stringify(text)).toEqual(parser.value);
  return true;
}

const NAMES = ['inputs', 'steps', 'a', 'b-2', '_x', 'true', 'false', 'null', 'trueish', 'nullable', 'x1'];
const LITERALS = [
  "'it''s'",
  '"a\\"b"',
  '"\\n"',
  "''",
  '1',
  '-2',
  '3.5',
  '1e3',
  '-0.5e-2',
  'true',
  'false',
  'null',
  '"}}"',
];
const FUNCTIONS = ['contains', 'format', 'join', 'default', 'length', 'f'];
const BINARY = ['||', '&&', '==', '!=', '<', '<=', '>', '>='];
const SPACES = ['', ' ', '  ', '\n', '\t'];

/** A random well-formed expression of at most `depth` levels. */
function expression(next: () => number, depth: number): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const sp = () => pick(SPACES);
  const sub = () => expression(next, depth - 1);
  const roll = depth <= 0 ? next() * 0.35 : next();
  if (roll < 0.15) return pick(LITERALS);
  if (roll < 0.35) {
    let chain = pick(NAMES);
    for (let i = Math.floor(next() * 3); i > 0; i--) chain += `${sp()}.${sp()}${pick(NAMES)}`;
    return chain;
  }
  if (roll < 0.5) return `${sub()}${sp()}${pick(BINARY)}${sp()}${sub()}`;
  if (roll < 0.6) return `!${sp()}${sub()}`;
  if (roll < 0.7) return `(${sp()}${sub()}${sp()})`;
  if (roll < 0.8) {
    const args = Array.from({ length: Math.floor(next() * 3) }, sub);
    return `${pick(FUNCTIONS)}${sp()}(${args.join(`${sp()},${sp()}`)})`;
  }
  if (roll < 0.9) return `${pick(NAMES)}[${sp()}${sub()}${sp()}]${next() < 0.5 ? `.${pick(NAMES)}` : ''}`;
  return `[${Array.from({ length: Math.floor(next() * 3) }, sub).join(', ')}]`;
}

/** `text` with one mistake or oddity: a piece dropped, doubled, swapped for another, or a stray character. */
function mutate(text: string, next: () => number): string {
  const at = Math.floor(next() * (text.length + 1));
  const cut = Math.floor(next() * 3) + 1;
  const stray = [
    '',
    ')',
    '(',
    ']',
    '[',
    ',',
    '.',
    '!',
    '&',
    '|',
    '=',
    "'",
    '"',
    '#',
    '$',
    '}}',
    '-',
    '1e999',
    '9007199254740993',
    '\\',
  ];
  const roll = next();
  if (roll < 0.4) return text.slice(0, at) + text.slice(at + cut);
  if (roll < 0.7) return text.slice(0, at) + stray[Math.floor(next() * stray.length)]! + text.slice(at);
  return text.slice(0, at) + text.slice(at, at + cut) + text.slice(at);
}

describe('the parser of well-formed expressions', () => {
  it('builds the parser’s tree on generated expressions, at offsets, and gives up on none of them', () => {
    const next = prng(26);
    let trees = 0;
    for (let i = 0; i < 4_000; i++) {
      const text = `${next() < 0.2 ? ' ' : ''}${expression(next, 4)}${next() < 0.2 ? '\n' : ''}`;
      if (agree(text, Math.floor(next() * 40))) trees++;
    }
    expect(trees).toBe(4_000);
  });

  it('gives up wherever the parser finds a mistake, and agrees where a mutation is still well formed', () => {
    const next = prng(27);
    let mistakes = 0;
    let trees = 0;
    for (let i = 0; i < 6_000; i++) {
      const text = mutate(expression(next, 3), next);
      const parser = parseExpressionWithParser(text, 5);
      if (parser.errors.length) {
        mistakes++;
        expect(parseWellFormed(text, 5), JSON.stringify(text)).toBeUndefined();
      } else if (agree(text, 5)) trees++;
    }
    expect(mistakes).toBeGreaterThan(2_000);
    expect(trees).toBeGreaterThan(1_000);
  });

  it('leaves what is past the limits to the parser: too deep, too tall, too large a number', () => {
    for (const text of [
      `${'('.repeat(70)}a${')'.repeat(70)}`,
      `${'!'.repeat(70)}a`,
      Array.from({ length: 70 }, (_, i) => `a${i}`).join(' || '),
      `x${'.y'.repeat(70)}`,
      '1e999',
      '9007199254740993',
      '',
      '   ',
    ]) {
      expect(parseWellFormed(text, 0), text.slice(0, 30)).toBeUndefined();
    }
  });

  it('builds the parser’s tree for every expression of the samples, fixtures and docs', () => {
    let trees = 0;
    for (const dir of ['playbooks', 'test/fixtures/ok', 'test/fixtures/err', 'docs']) {
      const root = new URL(`../../${dir}/`, import.meta.url);
      for (const name of readdirSync(root).filter((n) => /\.(ya?ml|md)$/.test(n))) {
        const text = readFileSync(new URL(name, root), 'utf8');
        for (const match of text.matchAll(/\$\{\{(.*?)\}\}/g)) {
          const parser = parseExpressionWithParser(match[1]!, match.index + 3);
          if (parser.errors.length) expect(parseWellFormed(match[1]!, match.index + 3)).toBeUndefined();
          else if (agree(match[1]!, match.index + 3)) trees++;
        }
      }
    }
    expect(trees).toBeGreaterThan(500);
  });
});
