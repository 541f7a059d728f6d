import { readParts, summingReader } from './types.js';
import type { LineReader } from './types.js';

/** Jest's `Tests:       2 failed, 1 skipped, 1 todo, 3 passed, 7 total` (not `Test Suites:`). */
const TESTS = /^Tests:\s+(\d+ [a-z]+(?:, \d+ [a-z]+)*)\s*$/;

export function jestReader(): LineReader {
  return summingReader('jest', (text) => {
    const match = TESTS.exec(text);
    if (!match) return undefined;
    return readParts(match[1]!.split(','), {
      passed: 'passed',
      failed: 'failed',
      skipped: 'skipped',
      // older jest said `pending` for skipped tests
      pending: 'skipped',
      todo: 'todo',
      total: null,
    });
  });
}
