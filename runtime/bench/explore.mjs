#!/usr/bin/env node
// How long `explore` takes on each sample playbook: states, transitions and milliseconds (best of
// three after a warm-up run, so the JIT has seen the code), with the CPU time beside the wall clock
// (a loaded machine stretches the one, less the other). Run after `npx tsc -b`:
//
//   node runtime/bench/explore.mjs [FILE...]
import { readFileSync, readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { compilePlaybook } from '@kairoku-playbook/compiler';
import { explore } from '@kairoku-playbook/runtime';

const root = new URL('../../', import.meta.url).pathname;
const files =
  process.argv.length > 2
    ? process.argv.slice(2)
    : readdirSync(`${root}playbooks`)
        .filter((name) => /\.ya?ml$/.test(name) && !/\.test\.ya?ml$/.test(name))
        .sort()
        .map((name) => `${root}playbooks/${name}`);

for (const file of files) {
  const name = file.slice(file.lastIndexOf('/') + 1);
  const { ir, diagnostics } = compilePlaybook(name, readFileSync(file, 'utf8'));
  if (!ir) {
    console.log(`${name}: does not compile (${diagnostics.length} diagnostics)`);
    continue;
  }
  let result = explore(ir);
  const runs = result.states > 20_000 ? 1 : 3;
  let best = Infinity;
  let bestCpu = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const cpu = process.cpuUsage();
    result = explore(ir);
    const used = process.cpuUsage(cpu);
    best = Math.min(best, performance.now() - start);
    bestCpu = Math.min(bestCpu, (used.user + used.system) / 1000);
  }
  console.log(
    `${name.padEnd(14)} ${String(result.states).padStart(7)} states ${String(result.transitions).padStart(8)} transitions` +
      ` ${best.toFixed(0).padStart(6)} ms (CPU ${bestCpu.toFixed(0).padStart(6)} ms)` +
      `  ${((bestCpu * 1000) / Math.max(1, result.transitions)).toFixed(1)} µs CPU/transition` +
      `${result.complete ? '' : '  (budget ran out)'}`,
  );
}
