import { zeroCounts } from './types.js';
import type { Counts, LineReader } from './types.js';

/** `--- PASS: TestAdd (0.00s)`, indented four spaces per level of subtest. */
const RESULT = /^( *)--- (PASS|FAIL|SKIP): \S/;
const KEYS: Record<string, keyof Counts> = { PASS: 'passed', FAIL: 'failed', SKIP: 'skipped' };

/**
 * `go test` prints a result line per test only with `-v` (without it, only failed tests' lines): it
 * has no summary of counts. Subtests are counted, not the tests that hold them: a result line
 * followed by a deeper one is a parent (go prints the parent first) and adds nothing, so one failing
 * table case is one failure, not two.
 */
export function goTestReader(): LineReader {
  const total = zeroCounts();
  let seen = false;
  let pending: { indent: number; key: keyof Counts } | undefined;
  return {
    runner: 'go',
    line(text) {
      const match = RESULT.exec(text);
      if (!match) return;
      seen = true;
      const indent = match[1]!.length;
      if (pending && indent <= pending.indent) total[pending.key]++;
      pending = { indent, key: KEYS[match[2]!]! };
    },
    counts() {
      if (!seen) return undefined;
      const counts = { ...total };
      if (pending) counts[pending.key]++;
      return counts;
    },
  };
}
