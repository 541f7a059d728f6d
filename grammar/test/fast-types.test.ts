/**
 * The fast path of `parseTypeExpression` (fast-types.ts) gives exactly the parser's result (value and
 * errors, deep equal) wherever it answers: on generated type strings and near misses, and on every type
 * string of the sample playbooks and fixtures.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseWellFormedType } from '../src/fast-types.js';
import { parseTypeExpressionWithParser } from '../src/type-expression.js';
import { prng } from '../../test/support/random.js';

/** Whether the fast path answered, after checking it answered as the parser does. */
function same(text: string): boolean {
  const fast = parseWellFormedType(text);
  if (fast) expect(fast, JSON.stringify(text)).toEqual(parseTypeExpressionWithParser(text));
  return fast !== undefined;
}

const WORDS = [
  'string',
  'number',
  'integer',
  'boolean',
  'strin',
  'a',
  'b-1',
  'x.y',
  '_',
  '1',
  'list',
  'enum',
  "'q'",
];
const SPACE = ['', '', '', ' ', '  ', '\n', '\t'];

describe('a well-formed type string parsed without the parser', () => {
  it('is what the parser gives, on generated strings and near misses', () => {
    const next = prng(28);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
    let answered = 0;
    for (let i = 0; i < 3_000; i++) {
      const roll = next();
      let text: string;
      if (roll < 0.3) text = `${pick(SPACE)}${pick(WORDS)}${pick(SPACE)}${next() < 0.1 ? '?' : ''}`;
      else if (roll < 0.6)
        text = `${pick(SPACE)}list<${pick(SPACE)}${pick(WORDS)}${pick(SPACE)}>${pick(SPACE)}`;
      else {
        const members = Array.from(
          { length: Math.floor(next() * 4) },
          () => `${pick(SPACE)}${pick(WORDS)}${pick(SPACE)}`,
        );
        text = `${pick(SPACE)}enum(${members.join(next() < 0.9 ? ',' : ' ')}${next() < 0.1 ? ',' : ''})${pick(SPACE)}`;
      }
      if (same(text)) answered++;
    }
    expect(answered).toBeGreaterThan(500); // (the fast path, not only near misses)
    expect(same(`string${' '.repeat(100_000)}`)).toBe(false); // past the length limit: the parser's PB403
  });

  it('is what the parser gives on generated nested types, objects and nullables, and their mutations', () => {
    const next = prng(2812);
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
    const space = () => pick(SPACE);
    const typeOf = (depth: number): string => {
      const roll = depth > 3 ? next() * 0.4 : next();
      let type: string;
      if (roll < 0.3) type = next() < 0.85 ? pick(WORDS.slice(0, 4)) : pick(WORDS);
      else if (roll < 0.45) type = `list${space()}<${space()}${typeOf(depth + 1)}${space()}>`;
      else if (roll < 0.6) {
        const members = Array.from({ length: Math.floor(next() * 3) + 1 }, () => pick(WORDS));
        type = `enum${space()}(${members.map((m) => `${space()}${m}${space()}`).join(',')})`;
      } else {
        const fields = Array.from({ length: Math.floor(next() * 4) }, () => {
          const name = next() < 0.8 ? pick(['name', 'risk', 'a_b', 'x-y', 'list']) : pick([...WORDS, '9z']);
          return `${space()}${name}${next() < 0.3 ? `${space()}?` : ''}${space()}:${space()}${typeOf(depth + 1)}`;
        });
        type = `{${fields.join(',')}${next() < 0.1 ? ',' : ''}${space()}}`;
      }
      return next() < 0.15 ? `${type}${space()}?${next() < 0.05 ? '?' : ''}` : type;
    };
    const MUTATIONS = ['', '<', '>', '{', '}', '(', ')', ',', ':', '?', ' ', '"', 'x', '\u00a0', '\f'];
    let answered = 0;
    let objects = 0;
    for (let i = 0; i < 4_000; i++) {
      const text = `${space()}${typeOf(0)}${space()}`;
      if (same(text)) {
        answered++;
        if (text.includes('{')) objects++;
      }
      for (let m = 0; m < 2; m++) {
        const at = Math.floor(next() * (text.length + 1));
        const cut = next() < 0.5 ? 1 : 0;
        same(`${text.slice(0, at)}${pick(MUTATIONS)}${text.slice(at + cut)}`);
      }
    }
    expect(answered).toBeGreaterThan(800);
    expect(objects).toBeGreaterThan(200);
    const deep = (n: number): string => (n === 0 ? 'string' : `list<{ a: ${deep(n - 1)} }?>`);
    // near and past the fast path's own depth (16 levels; each of these adds two): the parser past it
    expect([1, 8, 9, 40].map((n) => same(deep(n)))).toEqual([true, true, false, false]);
  });

  it('is what the parser gives on every type string of the samples and fixtures', () => {
    let answered = 0;
    for (const dir of ['playbooks', 'test/fixtures/ok', 'test/fixtures/err']) {
      const root = new URL(`../../${dir}/`, import.meta.url);
      for (const name of readdirSync(root).filter((n) => /\.ya?ml$/.test(n))) {
        const text = readFileSync(new URL(name, root), 'utf8');
        for (const match of text.matchAll(
          /(?:type: |: )'?((?:string|number|integer|boolean|list<|enum\(|\{ ?\w+\??:)[^'\n]*)/g,
        ))
          if (same(match[1]!.trim())) answered++;
      }
    }
    expect(answered).toBeGreaterThan(50);
  });
});
