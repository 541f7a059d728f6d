#!/usr/bin/env node
// How the runtime's time grows with the size of a run: sim runs of a chain and of a fan-out/fan-in
// at 2,500 … 20,000 steps, best of three after a warm-up. Linear work per run (constant work per
// transition) gives a ratio near 2 for each doubling; work per transition that grew with the run
// would give about 4. Run after `npx tsc -b`:
//
//   node runtime/bench/scale.mjs
import { performance } from 'node:perf_hooks';
import { compilePlaybook } from '@kairoku-playbook/compiler';
import { emptyScenario, runSim } from '@kairoku-playbook/runtime';

const ONE = compilePlaybook(
  'one.yml',
  'version: 1\nid: big\ntitle: Big\nsteps:\n  s: { role: implementer, prompt: Step }\n',
).ir;

function withSteps(steps) {
  const template = ONE.steps[0];
  return { ...ONE, steps: steps.map((s, index) => ({ ...template, index, name: s.name, needs: s.needs })) };
}
const chain = (n) =>
  withSteps(Array.from({ length: n }, (_, i) => ({ name: `s${i}`, needs: i ? [i - 1] : [] })));
const fan = (n) =>
  withSteps([
    { name: 'root', needs: [] },
    ...Array.from({ length: n }, (_, i) => ({ name: `w${i}`, needs: [0] })),
    { name: 'sink', needs: Array.from({ length: n }, (_, i) => i + 1) },
  ]);

function best(ir) {
  const once = () => {
    const start = performance.now();
    const result = runSim({ ir, scenario: emptyScenario(), id: 'bench', clock: () => 0 });
    if (!result.ok || result.state.status !== 'completed') throw new Error('the run did not complete');
    return performance.now() - start;
  };
  once();
  return Math.min(once(), once(), once());
}

for (const [name, make] of [
  ['chain', chain],
  ['fan', fan],
]) {
  let previous;
  for (const n of [2500, 5000, 10_000, 20_000]) {
    const ms = best(make(n));
    const ratio = previous ? ` ×${(ms / previous).toFixed(2)} for 2× the steps` : '';
    console.log(
      `${name.padEnd(5)} ${String(n).padStart(6)} steps ${ms.toFixed(0).padStart(6)} ms  ${(
        (ms * 1000) /
        n
      ).toFixed(1)} µs/step${ratio}`,
    );
    previous = ms;
  }
}
