/**
 * `parseExpression`'s fast path for member chains gives exactly the parser's result (value and errors,
 * deep equal), at any offset: on generated chains and near misses (keywords, spaces inside, digits,
 * dashes, indexes, calls, long chains), and on every expression of the sample playbooks and fixtures.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseExpressionWithParser } from '../src/expression.js';
import { parseExpression } from '../src/parse-expression.js';
import { prng } from '../../test/support/random.js';

const same = (text: string, offset = 0) =>
  expect(parseExpression(text, offset), JSON.stringify(text)).toEqual(
    parseExpressionWithParser(text, offset),
  );

const CHAIN = /^\s*[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*\s*$/;
const PIECES = [
  'inputs',
  'steps',
  'a',
  '_x',
  'b-2',
  'true',
  'null',
  'false',
  'trueish',
  'x1',
  '-a',
  '1a',
  'é',
];
const GLUE = ['.', '.', '.', ' . ', '..', '[0]', '(', ')', ' ', '\t', '\n', '', '-', '?'];

describe('a member chain parsed without the parser', () => {
  it('is what the parser gives, on generated chains and near misses', () => {
    const next = prng(23);
    let chains = 0;
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
    for (let i = 0; i < 3_000; i++) {
      let text = next() < 0.3 ? pick([' ', '  ', '\n', '']) : '';
      const names = 1 + Math.floor(next() * 5);
      for (let k = 0; k < names; k++) text += (k ? (next() < 0.8 ? '.' : pick(GLUE)) : '') + pick(PIECES);
      text += next() < 0.3 ? pick([' ', ' \n', '']) : '';
      same(text, Math.floor(next() * 50));
      if (CHAIN.test(text) && !/^\s*(true|false|null)(\.|\s*$)/.test(text)) chains++;
    }
    expect(chains).toBeGreaterThan(500); // (the fast path, not only near misses)
    for (const text of [
      'true',
      'null.x',
      'true.x',
      'x.true',
      'x.null.y',
      'a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r',
    ])
      same(text, 3);
    same(`x${'.y'.repeat(70)}`); // past the parser's height limit: its error, not a tree
  });

  it('is what the parser gives on every expression of the samples and fixtures', () => {
    let chains = 0;
    for (const dir of ['playbooks', 'test/fixtures/ok', 'test/fixtures/err']) {
      const root = new URL(`../../${dir}/`, import.meta.url);
      for (const name of readdirSync(root).filter((n) => /\.ya?ml$/.test(n))) {
        const text = readFileSync(new URL(name, root), 'utf8');
        for (const match of text.matchAll(/\$\{\{(.*?)\}\}/g)) {
          same(match[1]!, match.index + 3);
          if (CHAIN.test(match[1]!)) chains++;
        }
      }
    }
    expect(chains).toBeGreaterThan(200);
  });
});
