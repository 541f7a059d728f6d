import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  SUGGESTION_BUDGET,
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

/** The plain, quadratic definitions: what the fast ones must agree with. */
function referenceDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

function referenceClosest(name: string, candidates: readonly string[]): string | undefined {
  const threshold = Math.max(1, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === name) return candidate;
    let distance = referenceDistance(name, candidate);
    if (distance > threshold && candidate.toLowerCase() === name.toLowerCase()) distance = threshold;
    if (distance <= threshold && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

describe('the fast did-you-mean agrees with the plain definitions', () => {
  // small alphabets make near misses, swaps and case differences common
  const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'A', 'B', '-', 'İ', 'i'), maxLength: 12 });

  it('editDistance, with and without a limit', () => {
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 8 }), (a, b, limit) => {
        const exact = referenceDistance(a, b);
        expect(editDistance(a, b)).toBe(exact);
        expect(editDistance(a, b, limit)).toBe(exact > limit ? limit + 1 : exact);
      }),
      { numRuns: 3_000 },
    );
  });

  it('closest, with and without a name left out', () => {
    fc.assert(
      fc.property(word, fc.array(word, { maxLength: 30 }), (name, candidates) => {
        expect(closest(name, candidates)).toBe(referenceClosest(name, candidates));
        const left = candidates[0];
        if (left !== undefined)
          expect(closest(name, candidates, left)).toBe(
            referenceClosest(
              name,
              candidates.filter((c) => c !== left),
            ),
          );
      }),
      { numRuns: 3_000 },
    );
  });

  it('long names: the band and the cut-off give the same distances', () => {
    const long = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), minLength: 20, maxLength: 60 });
    fc.assert(
      fc.property(long, long, fc.integer({ min: 0, max: 25 }), (a, b, limit) => {
        const exact = referenceDistance(a, b);
        expect(editDistance(a, b, limit)).toBe(exact > limit ? limit + 1 : exact);
      }),
      { numRuns: 500 },
    );
  });
});

describe('closest on many names', () => {
  it('finds a typo among thousands of names', () => {
    const names = Array.from({ length: 5_000 }, (_, i) => `step-${String(i).padStart(5, '0')}`);
    expect(closest('stpe-00042', names)).toBe('step-00042');
    expect(closest('step-0042', names)).toBe('step-00042');
  });

  it('bounds the work spent on one name: past the budget, no suggestion rather than a maybe worse one', () => {
    // each is 4 edits from the name, found only at its end: the whole band is computed every time
    const letters = 'bcdefghijklmnopqrstuvwxyz';
    const code = (i: number) =>
      [0, 1, 2, 3].map((k) => letters[Math.floor(i / letters.length ** k) % letters.length]).join('');
    const far = Array.from({ length: 5_000 }, (_, i) => `aaaaaa${code(i)}`);
    const near = 'aaaaaaaabb'; // two edits: found by the full edit distance, not the one-edit pass
    expect(far.length * 50).toBeGreaterThan(SUGGESTION_BUDGET);
    expect(closest('aaaaaaaaaa', far)).toBeUndefined();
    expect(closest('aaaaaaaaaa', [...far, near])).toBeUndefined();
    expect(closest('aaaaaaaaaa', [near, ...far])).toBe(near);
    expect(closest('aaaaaaaaaa', [...far.slice(0, 100), near])).toBe(near);
    // one edit away is found however many candidates come first
    expect(closest('aaaaaaaaaa', [...far, 'aaaaaaaaa'])).toBe('aaaaaaaaa');
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
