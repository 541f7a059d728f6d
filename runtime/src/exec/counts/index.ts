import { cleanLine } from './ansi.js';
import { cargoReader } from './cargo.js';
import { goTestReader } from './go-test.js';
import { jestReader } from './jest.js';
import { nodeSpecReader } from './node-test.js';
import { pytestReader } from './pytest.js';
import { tapReader } from './tap.js';
import { addCounts, zeroCounts } from './types.js';
import type { Counts, LineReader } from './types.js';
import { vitestReader } from './vitest.js';

export type { Counts } from './types.js';
export { stripAnsi } from './ansi.js';

/** Every runner's reader: each sees every line; their counts are summed. */
function readers(): LineReader[] {
  return [
    vitestReader(),
    jestReader(),
    nodeSpecReader(),
    tapReader(),
    pytestReader(),
    goTestReader(),
    cargoReader(),
  ];
}

/**
 * Reads test counts off output as it streams, line by line, so nothing has to be kept: one step's
 * commands share one counter and their summaries add up (`npm run lint && npm test`, cargo's line per
 * test binary, a TypeScript and a Python suite in one step).
 */
export class CountReader {
  private readonly readers = readers();

  /** feeds one line of output (colour codes and `\r` redraws are dealt with here) */
  line(raw: string): void {
    const text = cleanLine(raw);
    if (!text) return;
    for (const reader of this.readers) reader.line(text);
  }

  /** the summed counts so far; undefined when no runner's summary has been seen */
  counts(): Counts | undefined {
    let total: Counts | undefined;
    for (const reader of this.readers) {
      const counts = reader.counts();
      if (counts) total = addCounts(total ?? zeroCounts(), counts);
    }
    return total;
  }

  /** the runners whose summaries were seen, in reader order (for a summary line) */
  runners(): string[] {
    return this.readers.filter((r) => r.counts() !== undefined).map((r) => r.runner);
  }
}

/**
 * The `passed`, `failed`, `skipped` and `todo` counts in a test run's output (SPEC §3.1), summed over
 * every summary found: vitest, jest, node's test runner (spec and TAP reporters), pytest, go test
 * (`-v` for passes), cargo test and TAP. Undefined when none is recognised.
 */
export function parseCounts(output: string): Counts | undefined {
  const reader = new CountReader();
  for (const line of output.split('\n')) reader.line(line);
  return reader.counts();
}
