/**
 * The fast path of `parseTypeExpression` (simple-types.ts) gives exactly the parser's result (value and
 * errors, deep equal) wherever it answers: on generated type strings and near misses, and on every type
 * string of the sample playbooks and fixtures.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseSimpleType } from '../src/simple-types.js';
import { parseTypeExpressionWithParser } from '../src/type-expression.js';
import { prng } from '../../test/support/random.js';

/** Whether the fast path answered, after checking it answered as the parser does. */
function same(text: string): boolean {
  const fast = parseSimpleType(text);
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

describe('a simple type string parsed without the parser', () => {
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

  it('is what the parser gives on every type string of the samples and fixtures', () => {
    let answered = 0;
    for (const dir of ['playbooks', 'test/fixtures/ok', 'test/fixtures/err']) {
      const root = new URL(`../../${dir}/`, import.meta.url);
      for (const name of readdirSync(root).filter((n) => /\.ya?ml$/.test(n))) {
        const text = readFileSync(new URL(name, root), 'utf8');
        for (const match of text.matchAll(
          /(?:type: |: )'?((?:string|number|integer|boolean|list<|enum\()[^'\n}]*)/g,
        ))
          if (same(match[1]!.trim())) answered++;
      }
    }
    expect(answered).toBeGreaterThan(50);
  });
});
