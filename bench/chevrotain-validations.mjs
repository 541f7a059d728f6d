#!/usr/bin/env node
// What chevrotain's grammar validations would cost at start-up (VALIDATIONS_IN_PRODUCTION in
// grammar/src/lexing.ts keeps them off in the shipped code; grammar/test/chevrotain-validations.test.ts
// runs them).
//
//   node bench/chevrotain-validations.mjs [--runs N]      (after `npx tsc -b && node cli/build.mjs`)
//
// Each sample is a fresh node process that imports both grammars (built/dist, as shipped) and times
// building both lexers and parsers afresh, once with validations off and once on (alternating which goes
// first), in wall-clock and CPU time. For scale, it also times a cold `check playbooks/pr.yml` of the
// bundled CLI. Medians of N runs (default 15). It reports; it does not gate.

import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag === -1 ? 15 : Number(process.argv[runsFlag + 1]);

const child = `
const { buildExpressionGrammar } = await import(${JSON.stringify(join(root, 'grammar/dist/expression.js'))});
const { buildTypeExpressionGrammar } = await import(${JSON.stringify(join(root, 'grammar/dist/type-expression.js'))});
const validations = process.argv[1] === 'on';
const cpu = process.cpuUsage();
const start = performance.now();
buildExpressionGrammar(validations);
buildTypeExpressionGrammar(validations);
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ wall: performance.now() - start, cpu: (used.user + used.system) / 1000 }));
`;

function build(mode) {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', child, mode], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`building the grammars failed:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

function coldCheck() {
  const start = performance.now();
  const result = spawnSync(
    process.execPath,
    [join(root, 'cli/dist/kairoku-playbook.js'), 'check', 'playbooks/pr.yml'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  if (result.status !== 0) throw new Error(`check failed:\n${result.stdout}${result.stderr}`);
  return performance.now() - start;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const samples = { off: [], on: [], check: [] };
build('off'); // warm the file system cache
for (let i = 0; i < RUNS; i++) {
  for (const mode of i % 2 === 0 ? ['off', 'on'] : ['on', 'off']) samples[mode].push(build(mode));
  samples.check.push(coldCheck());
}
const row = (mode) => ({
  wall: median(samples[mode].map((s) => s.wall)),
  cpu: median(samples[mode].map((s) => s.cpu)),
});
const off = row('off');
const on = row('on');
const check = median(samples.check);
const ms = (value) => `${value.toFixed(1)} ms`;
console.log(`building both grammars, validations off: ${ms(off.wall)} wall, ${ms(off.cpu)} CPU`);
console.log(`building both grammars, validations on:  ${ms(on.wall)} wall, ${ms(on.cpu)} CPU`);
console.log(`cold check of playbooks/pr.yml (validations off, as shipped): ${ms(check)} wall`);
console.log(
  `validations would add ${ms(on.wall - off.wall)} wall (${(((on.wall - off.wall) / check) * 100).toFixed(1)}% of the cold check), ${ms(on.cpu - off.cpu)} CPU`,
);
console.log(`median of ${RUNS} runs each; load average ${loadavg()[0].toFixed(2)}`);
