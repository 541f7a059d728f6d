// The cost of PB700 (approval dominance, compiler/src/checks/approval-dominance.ts) against the cost of
// parsing the same file with `yaml.parseDocument`, measured in the same process and run: the generated
// 2,000-step playbook (bench/generate.mjs), and 500 and 1,000 steps to show how it grows.
//
//   npm run build && node bench/pb700.mjs [--runs N]
//
// Two policies: the default one (the generated file runs no gated command: the analysis runs, nothing
// is reported), and one that gates every command the file runs, strict (most steps reach outside: the
// analysis reports, and builds a path for each report). Each figure is the median of N runs (default 15)
// after one warm-up run.
import { performance } from 'node:perf_hooks';
import { parseDocument } from 'yaml';
import { analyzeFile, analyzePolicyFile } from '../compiler/dist/index.js';
import { CheckContext } from '../compiler/dist/check-context.js';
import { checkApprovalDominance } from '../compiler/dist/checks/approval-dominance.js';
import { generatePlaybook } from './generate.mjs';

const runsAt = process.argv.indexOf('--runs');
const runs = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 15;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function timed(run) {
  run();
  const times = [];
  let result;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    result = run();
    times.push(performance.now() - start);
  }
  return { ms: median(times), result };
}

const strictPolicy = analyzePolicyFile(
  '.kairoku/policy.yml',
  'strict: true\ngated: [npm test*, npm run*, npm *]\n',
).policy;

const rows = [];
for (const steps of [500, 1000, 2000]) {
  const text = generatePlaybook(steps);
  const analysis = analyzeFile('big.yml', text);
  if (!analysis.semantic) throw new Error('the generated playbook did not bind');
  const parse = timed(() => parseDocument(text));
  const check = (policy) =>
    timed(() => {
      const context = new CheckContext(analysis.semantic, policy);
      checkApprovalDominance(context);
      return context.diagnostics.length;
    });
  const plain = check(undefined);
  const strict = check(strictPolicy);
  rows.push({
    steps,
    lines: text.split('\n').length,
    parseMs: parse.ms,
    pb700Ms: plain.ms,
    pb700Reports: plain.result,
    strictMs: strict.ms,
    strictReports: strict.result,
  });
}

const fixed = (n, d = 2) => n.toFixed(d);
console.log(`PB700 against yaml.parseDocument, median of ${runs} runs (node ${process.version})`);
console.log('steps  lines   parse ms  PB700 ms (reports)  ratio   strict PB700 ms (reports)  ratio');
for (const r of rows)
  console.log(
    `${String(r.steps).padStart(5)}  ${String(r.lines).padStart(5)}  ${fixed(r.parseMs).padStart(9)}  ${fixed(r.pb700Ms).padStart(8)} (${r.pb700Reports})`.padEnd(
      47,
    ) +
      `  ${fixed(r.pb700Ms / r.parseMs, 3).padStart(5)}   ${fixed(r.strictMs).padStart(8)} (${r.strictReports})`.padEnd(
        37,
      ) +
      `  ${fixed(r.strictMs / r.parseMs, 3)}`,
  );
