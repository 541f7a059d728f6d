import { summingReader } from './types.js';
import type { LineReader } from './types.js';

/**
 * `test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s`,
 * once per test binary (each crate's unit tests, each integration test file, the doc-tests): summed.
 * Ignored tests are skipped ones; `measured` (benchmarks) and `filtered out` add nothing.
 */
const RESULT = /^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored;/;

export function cargoReader(): LineReader {
  return summingReader('cargo', (text) => {
    const match = RESULT.exec(text);
    if (!match) return undefined;
    return { passed: Number(match[1]), failed: Number(match[2]), skipped: Number(match[3]), todo: 0 };
  });
}
