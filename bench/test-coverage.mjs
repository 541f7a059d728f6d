// The cost of `test --coverage` against `test` (issue 26) on the sample playbooks and their tests, in one
// process: the CLI's `main` in-process on a copy of playbooks/, each command REPEAT times per round,
// the order of the two alternating from round to round; figures are medians of the rounds.
// `node bench/test-coverage.mjs [ROUNDS] [REPEAT]` after `npx tsc -b` (defaults 9, 20).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { main } from '../cli/dist/main.js';

const rounds = Number(process.argv[2] ?? 9);
const repeat = Number(process.argv[3] ?? 20);
const root = new URL('../', import.meta.url).pathname;
const folder = mkdtempSync(join(tmpdir(), 'kp-bench-coverage-'));
cpSync(join(root, 'playbooks'), join(folder, 'playbooks'), { recursive: true });

const io = { cwd: folder, stdout: () => {}, stderr: () => {}, color: false, colorStderr: false };
const commands = {
  test: ['test', 'playbooks'],
  coverage: ['test', '--coverage', 'playbooks'],
};

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function time(argv) {
  const start = performance.now();
  for (let i = 0; i < repeat; i++) if (main(argv, io) !== 0) throw new Error(`${argv.join(' ')} failed`);
  return (performance.now() - start) / repeat;
}

// One warm-up of each (module loading, the JIT).
time(commands.test);
time(commands.coverage);
const samples = { test: [], coverage: [] };
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? ['coverage', 'test'] : ['test', 'coverage'];
  for (const name of order) samples[name].push(time(commands[name]));
}
rmSync(folder, { recursive: true, force: true });
const test = median(samples.test);
const coverage = median(samples.coverage);
console.log(
  JSON.stringify(
    {
      rounds,
      repeat,
      testMs: Math.round(test * 100) / 100,
      coverageMs: Math.round(coverage * 100) / 100,
      ratio: Math.round((coverage / test) * 1000) / 1000,
      load: loadavg().map((l) => Math.round(l * 100) / 100),
    },
    null,
    2,
  ),
);
