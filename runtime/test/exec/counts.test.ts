import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCounts, stripAnsi } from '../../src/exec/counts/index.js';
import type { Counts } from '../../src/exec/counts/index.js';

/**
 * parseCounts over output captured from the real runners (fixtures/check-output/README.md says how);
 * each fixture's expected counts sit beside it, written from the runner's own summary.
 */
const dir = new URL('../fixtures/check-output/', import.meta.url);
const fixtures = readdirSync(dir)
  .filter((name) => name.endsWith('.txt'))
  .sort()
  .map((name) => ({
    name: name.slice(0, -'.txt'.length),
    output: readFileSync(new URL(name, dir), 'utf8'),
    expected: JSON.parse(
      readFileSync(new URL(name.replace(/\.txt$/, '.json'), dir), 'utf8'),
    ) as Counts | null,
  }));

function sum(a: Counts | null | undefined, b: Counts | null | undefined): Counts | undefined {
  if (!a && !b) return undefined;
  const zero = { passed: 0, failed: 0, skipped: 0, todo: 0 };
  const x = a ?? zero;
  const y = b ?? zero;
  return {
    passed: x.passed + y.passed,
    failed: x.failed + y.failed,
    skipped: x.skipped + y.skipped,
    todo: x.todo + y.todo,
  };
}

describe('parseCounts on real runners’ output', () => {
  it('has a fixture of every runner, passing and failing, and colour where the runner colours', () => {
    const names = fixtures.map((f) => f.name);
    for (const runner of ['node-spec', 'node-tap', 'vitest', 'jest', 'pytest', 'cargo', 'go', 'tap']) {
      expect(names, runner).toContain(`${runner}-pass`);
      expect(names, runner).toContain(`${runner}-fail`);
    }
    for (const runner of ['vitest', 'jest', 'pytest', 'cargo']) {
      const colour = fixtures.find((f) => f.name === `${runner}-fail-color`);
      expect(colour?.output, runner).toContain('\u001b[');
    }
  });

  it.each(fixtures)('$name', ({ output, expected }) => {
    expect(parseCounts(output) ?? null).toEqual(expected);
  });

  it('sums the summaries of any two runs in one output (one step, several test commands)', () => {
    for (const a of fixtures)
      for (const b of fixtures) {
        const joined = `${a.output}${a.output.endsWith('\n') ? '' : '\n'}${b.output}`;
        expect(parseCounts(joined), `${a.name} then ${b.name}`).toEqual(sum(a.expected, b.expected));
      }
  });

  it('gives the same counts whatever the colour', () => {
    for (const colour of fixtures.filter((f) => f.name.endsWith('-color'))) {
      const plain = fixtures.find((f) => f.name === colour.name.replace(/-color$/, ''))!;
      expect(parseCounts(colour.output), colour.name).toEqual(plain.expected);
    }
  });
});

describe('parseCounts', () => {
  it('is undefined for output without a test summary', () => {
    expect(parseCounts('')).toBeUndefined();
    expect(parseCounts('> eslint .\n\n✖ 3 problems (3 errors, 0 warnings)\n')).toBeUndefined();
    // go test without -v prints no result line when everything passes
    expect(parseCounts('ok  \texample.com/m\t0.01s\n')).toBeUndefined();
  });

  it('counts tests, not files or suites (vitest `Test Files`, jest `Test Suites`)', () => {
    expect(parseCounts(' Test Files  2 failed | 1 passed (3)\n')).toBeUndefined();
    expect(parseCounts('Test Suites: 2 failed, 2 total\n')).toBeUndefined();
    expect(parseCounts('Test Suites: 1 failed, 1 total\nTests:       4 passed, 4 total\n')).toEqual({
      passed: 4,
      failed: 0,
      skipped: 0,
      todo: 0,
    });
  });

  it('maps pytest’s errors to failed, xfailed to todo and xpassed to passed; ignores deselected and warnings', () => {
    expect(
      parseCounts('== 1 passed, 2 errors, 3 xfailed, 4 xpassed, 5 deselected, 1 warning in 1.20s =='),
    ).toEqual({ passed: 5, failed: 2, skipped: 0, todo: 3 });
    expect(parseCounts('===== no tests ran in 0.01s =====')).toEqual({
      passed: 0,
      failed: 0,
      skipped: 0,
      todo: 0,
    });
    expect(parseCounts('3 passed in 65.12s (0:01:05)')).toEqual({
      passed: 3,
      failed: 0,
      skipped: 0,
      todo: 0,
    });
  });

  it('counts node’s cancelled tests as failed', () => {
    expect(parseCounts('ℹ tests 3\nℹ pass 1\nℹ fail 1\nℹ cancelled 1\nℹ skipped 0\nℹ todo 0\n')).toEqual({
      passed: 1,
      failed: 2,
      skipped: 0,
      todo: 0,
    });
  });

  it('counts a TAP stream’s points once when a summary follows them', () => {
    const node = 'TAP version 13\nok 1 - a\nnot ok 2 - b\n1..2\n# tests 2\n# pass 1\n# fail 1\n';
    const perl = 'ok 1 - c\nok 2 # skip later\nnot ok 3 # TODO soon\n1..3\n';
    expect(parseCounts(node)).toEqual({ passed: 1, failed: 1, skipped: 0, todo: 0 });
    expect(parseCounts(perl + node)).toEqual({ passed: 2, failed: 1, skipped: 1, todo: 1 });
    expect(parseCounts(node + perl)).toEqual({ passed: 2, failed: 1, skipped: 1, todo: 1 });
  });

  it('counts a go subtest, not the test that holds it', () => {
    const output = [
      '--- FAIL: TestA (0.00s)',
      '    --- FAIL: TestA/x (0.00s)',
      '    --- PASS: TestA/y (0.00s)',
    ];
    expect(parseCounts(output.join('\n'))).toEqual({ passed: 1, failed: 1, skipped: 0, todo: 0 });
  });

  it('reads lines redrawn with \\r and ending in \\r\\n', () => {
    expect(parseCounts('running...\rTests:       2 passed, 2 total\r\n')).toEqual({
      passed: 2,
      failed: 0,
      skipped: 0,
      todo: 0,
    });
  });
});

describe('stripAnsi', () => {
  it('removes colours, charset designations and OSC links', () => {
    expect(stripAnsi('\u001b[1m\u001b[31mFAILED\u001b(B\u001b[m.')).toBe('FAILED.');
    expect(stripAnsi('\u001b]8;;https://x.test\u0007link\u001b]8;;\u0007')).toBe('link');
  });
});
