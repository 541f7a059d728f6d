// The cost of the bounds of a run (issue 26) on the generated 2,000-step playbook, against a full
// analysis: compiling it and exploring it with the explorer's budget as check --explore gives it.
// `node bench/bounds.mjs [STEPS] [SECONDS] [RUNS]` after `npx tsc -b`; prints wall-clock medians.
import { performance } from 'node:perf_hooks';
import { compilePlaybook } from '@kairoku-playbook/compiler';
import { explore, staticBounds } from '@kairoku-playbook/machine';
import { generatePlaybook } from './generate.mjs';

const steps = Number(process.argv[2] ?? 2000);
const seconds = Number(process.argv[3] ?? 30);
const runs = Number(process.argv[4] ?? 3);
const text = generatePlaybook(steps);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function time(fn) {
  const start = performance.now();
  const result = fn();
  return { ms: performance.now() - start, result };
}

const analysis = [];
const bounds = [];
let last;
for (let round = 0; round < runs; round++) {
  const full = time(() => {
    const { ir } = compilePlaybook('big.yml', text);
    return { ir, exploration: explore(ir, { maxMillis: seconds * 1000 }) };
  });
  analysis.push(full.ms);
  // the bounds alone: what a cut-off exploration falls back on (and the explored ones are longest
  // paths over the graph the exploration built anyway)
  bounds.push(time(() => staticBounds(full.result.ir)).ms);
  last = full.result.exploration;
}
const a = median(analysis);
const b = median(bounds);
console.log(
  JSON.stringify(
    {
      steps,
      budgetSeconds: seconds,
      states: last.states,
      complete: last.complete,
      agentTurns: last.bounds.agentTurns,
      explored: last.bounds.explored,
      analysisMs: Math.round(a),
      staticBoundsMs: Math.round(b * 100) / 100,
      ratio: Math.round((b / a) * 10000) / 10000,
    },
    null,
    2,
  ),
);
