import { readParts, summingReader } from './types.js';
import type { LineReader } from './types.js';

/**
 * Vitest's ` Tests  2 failed | 3 passed | 1 skipped | 2 todo (8)` line (not ` Test Files  …`, which
 * counts files).
 */
const TESTS = /^\s*Tests\s{2,}(\d+ [a-z]+(?: \| \d+ [a-z]+)*)\s+\(\d+\)\s*$/;

export function vitestReader(): LineReader {
  return summingReader('vitest', (text) => {
    const match = TESTS.exec(text);
    if (!match) return undefined;
    return readParts(match[1]!.split('|'), {
      passed: 'passed',
      failed: 'failed',
      skipped: 'skipped',
      todo: 'todo',
    });
  });
}
