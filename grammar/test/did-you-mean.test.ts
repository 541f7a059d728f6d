import { describe, expect, it } from 'vitest';
import {
  BUILTIN_FUNCTIONS,
  BUILTIN_FUNCTION_NAMES,
  CONTEXT_ROOTS,
  closest,
  editDistance,
  getBuiltinFunction,
} from '../src/index.js';

describe('editDistance', () => {
  it('computes Levenshtein distances', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('strng', 'string')).toBe(1);
    expect(editDistance('review', 'reviw')).toBe(1);
    expect(editDistance('flaw', 'lawn')).toBe(2);
  });

  it('gives up early past a limit', () => {
    expect(editDistance('aaaaaaaaaa', 'bbbbbbbbbb', 2)).toBe(3);
    expect(editDistance('a', 'abcdef', 2)).toBe(3);
  });
});

describe('closest', () => {
  it('suggests close names', () => {
    expect(closest('reviw', ['plan', 'review', 'ship'])).toBe('review');
    expect(closest('strng', ['string', 'number'])).toBe('string');
    expect(closest('stirng', ['string', 'number'])).toBe('string');
  });

  it('uses the threshold max(1, floor(len / 3))', () => {
    expect(closest('ab', ['xy'])).toBeUndefined(); // distance 2 > 1
    expect(closest('ab', ['ax'])).toBe('ax'); // distance 1
    expect(closest('abcdef', ['abcxyf'])).toBe('abcxyf'); // 2 <= 2
    expect(closest('abcdef', ['axyzef'])).toBeUndefined(); // 3 > 2
  });

  it('prefers the closest candidate, then the first', () => {
    expect(closest('abcdefghi', ['abcdefgXY', 'abcdefghX'])).toBe('abcdefghX');
    expect(closest('cat', ['bat', 'hat'])).toBe('bat');
  });

  it('returns an exact match, and nothing for no candidates', () => {
    expect(closest('plan', ['plan', 'plant'])).toBe('plan');
    expect(closest('plan', [])).toBeUndefined();
  });

  it('accepts a difference in case only', () => {
    expect(closest('STRING', ['string', 'number'])).toBe('string');
  });
});

describe('built-in function table', () => {
  it('lists the eight functions of SPEC §3.6', () => {
    expect(BUILTIN_FUNCTION_NAMES).toEqual([
      'contains',
      'startsWith',
      'endsWith',
      'join',
      'len',
      'toJSON',
      'format',
      'default',
    ]);
  });

  it('describes each with an arity, a signature and a description', () => {
    for (const fn of BUILTIN_FUNCTIONS) {
      expect(fn.signature.startsWith(`${fn.name}(`)).toBe(true);
      expect(fn.description.length).toBeGreaterThan(10);
      expect(fn.minArgs).toBeLessThanOrEqual(fn.maxArgs);
    }
    expect(getBuiltinFunction('format')).toMatchObject({ minArgs: 1, maxArgs: Infinity });
    expect(getBuiltinFunction('join')).toMatchObject({ minArgs: 1, maxArgs: 2 });
    expect(getBuiltinFunction('default')).toMatchObject({ minArgs: 2, maxArgs: 2 });
    expect(getBuiltinFunction('startsWith')?.signature).toBe(
      'startsWith(text: string, prefix: string): boolean',
    );
    expect(getBuiltinFunction('nope')).toBeUndefined();
  });

  it('names the context roots', () => {
    expect(CONTEXT_ROOTS).toEqual(['inputs', 'steps', 'run', 'loop', 'report', 'gate']);
  });
});

describe('swapped neighbouring characters', () => {
  it('count as one edit, so short swapped names are still suggested', () => {
    expect(editDistance('plna', 'plan')).toBe(1);
    expect(editDistance('ab', 'ba')).toBe(1);
    expect(closest('plna', ['plan', 'review'])).toBe('plan');
    expect(closest('reveiw', ['review', 'plan'])).toBe('review');
  });
});
