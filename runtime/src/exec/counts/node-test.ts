import { summingReader } from './types.js';
import type { Counts, LineReader } from './types.js';

/**
 * What node's test runner counts, by the name its summary gives it. `cancelled` tests (a timeout, a
 * parent that failed first) fail the run, so they count as failed; `tests`, `suites` and
 * `duration_ms` add nothing.
 */
export const NODE_SUMMARY_KEYS: Record<string, keyof Counts | null> = {
  tests: null,
  suites: null,
  pass: 'passed',
  fail: 'failed',
  cancelled: 'failed',
  skipped: 'skipped',
  // tape's spellings, in the TAP form of the summary
  skip: 'skipped',
  todo: 'todo',
  duration_ms: null,
};

/** The spec reporter's summary: `ℹ pass 3`, `ℹ fail 2`, … one line per count. */
const SPEC = /^ℹ ([a-z_]+) (\d+(?:\.\d+)?)\s*$/;

/** node --test with the spec reporter (its TAP reporter's `# pass 3` lines are read by the TAP reader). */
export function nodeSpecReader(): LineReader {
  return summingReader('node', (text) => {
    const match = SPEC.exec(text);
    const key = match ? NODE_SUMMARY_KEYS[match[1]!] : undefined;
    if (!match || key === undefined) return undefined;
    const counts: Counts = { passed: 0, failed: 0, skipped: 0, todo: 0 };
    if (key) counts[key] = Number(match[2]);
    return counts;
  });
}
