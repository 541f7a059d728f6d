import { readParts, summingReader } from './types.js';
import type { LineReader } from './types.js';

/**
 * pytest's last line, `==== 1 failed, 2 passed, 1 skipped, 1 xfailed, 1 xpassed, 1 error in 0.02s ====`
 * (without the `=` under `-q`; `in 0.02 seconds` before pytest 6; `no tests ran in 0.01s`).
 */
const SUMMARY =
  /^=*\s*(\d+ [a-z]+(?:, \d+ [a-z]+)*|no tests ran) in \d+(?:\.\d+)?(?:s| seconds)(?: \([\d:.]+\))?\s*=*$/;

export function pytestReader(): LineReader {
  return summingReader('pytest', (text) => {
    const match = SUMMARY.exec(text);
    if (!match) return undefined;
    if (match[1] === 'no tests ran') return { passed: 0, failed: 0, skipped: 0, todo: 0 };
    return readParts(match[1]!.split(','), {
      passed: 'passed',
      failed: 'failed',
      // an error is a test whose setup or teardown broke (or a file that did not import): not a pass
      error: 'failed',
      errors: 'failed',
      skipped: 'skipped',
      // an expected failure is a known bug left for later, as TAP's `# TODO`
      xfailed: 'todo',
      // an unexpected pass; a strict xfail that passes is reported by pytest as failed already
      xpassed: 'passed',
      deselected: null,
      warning: null,
      warnings: null,
      rerun: null,
    });
  });
}
