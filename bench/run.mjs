#!/usr/bin/env node
// Speed benchmarks of the language core (see bench/README.md).
//
//   node bench/run.mjs [--strict] [--runs N]      (npm run bench)
//
// Every measurement is a whole `node` process (spawnSync of process.execPath), timed wall-clock;
// its CPU time (user + system) is reported beside it through a tiny preload (bench/cpu-report.cjs).
// After one warm-up round, each measurement runs N times (default 5), interleaved round by round
// so that a burst of load on the machine hits all of them alike; the median is kept. Results are
// RATIOS against baselines measured in the same run, never absolute thresholds.
//
// Writes bench/out/big-2000.yml, bench/out/big-8000.yml and bench/out/results.json.
// Exits 0 whatever the figures are (it reports, it does not gate), unless --strict is given:
// then a failed target, or a benchmark that could not be measured properly, exits 1.

import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePlaybook } from './generate.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = dirname(benchDir);
const outDir = join(benchDir, 'out');
const cli = join(root, 'cli', 'dist', 'kairoku-playbook.js');
const parseYaml = join(benchDir, 'parse-yaml.mjs');
const small = join(root, 'playbooks', 'pr.yml');
const cpuReport = join(benchDir, 'cpu-report.cjs');

let strict = false;
let RUNS = 5;
for (let i = 2; i < process.argv.length; i++) {
  const arg = process.argv[i];
  if (arg === '--strict') strict = true;
  else if (arg === '--runs') RUNS = Number(process.argv[++i]);
  else RUNS = NaN;
}
if (!Number.isInteger(RUNS) || RUNS < 1) {
  process.stderr.write('usage: node bench/run.mjs [--strict] [--runs N]\n');
  process.exit(2);
}
if (!existsSync(cli)) {
  process.stderr.write(
    `${relative(root, cli)} is missing; build it first: npx tsc -b && node cli/build.mjs\n`,
  );
  process.exit(2);
}

// ---- inputs ---------------------------------------------------------------------------------
mkdirSync(outDir, { recursive: true });
const files = {};
for (const steps of [2000, 8000]) {
  const text = generatePlaybook(steps);
  const file = join(outDir, `big-${steps}.yml`);
  writeFileSync(file, text);
  files[steps] = { file, lines: text.split('\n').length - 1, bytes: Buffer.byteLength(text) };
}
const rel = (file) => relative(root, file);

// ---- the measurements -------------------------------------------------------------------------
const MEASUREMENTS = [
  { id: 'node0', label: 'node -e 0', argv: ['-e', '0'] },
  { id: 'checkSmall', label: 'check playbooks/pr.yml (cold)', argv: [cli, 'check', small] },
  { id: 'yaml2k', label: 'yaml.parseDocument big-2000.yml', argv: [parseYaml, files[2000].file] },
  {
    id: 'yaml2kParseOnly',
    label: 'yaml parse only (uniqueKeys: false) 2k',
    argv: [parseYaml, '--no-unique-keys', files[2000].file],
  },
  { id: 'check2k', label: 'check big-2000.yml', argv: [cli, 'check', files[2000].file] },
  { id: 'yaml8k', label: 'yaml.parseDocument big-8000.yml', argv: [parseYaml, files[8000].file] },
  { id: 'check8k', label: 'check big-8000.yml', argv: [cli, 'check', files[8000].file] },
];

const TARGETS = [
  {
    id: 'a',
    what: 'check 2k steps / yaml.parseDocument of the same file',
    num: 'check2k',
    den: 'yaml2k',
    max: 2,
  },
  { id: 'b', what: 'check 8k steps / check 2k steps', num: 'check8k', den: 'check2k', max: 4.5 },
  { id: 'c', what: 'cold check of pr.yml / node -e 0', num: 'checkSmall', den: 'node0', max: 3 },
  // informational, no target
  {
    id: "a'",
    what: 'check 2k steps / yaml parse only (uniqueKeys: false)',
    num: 'check2k',
    den: 'yaml2kParseOnly',
  },
  { id: 'y', what: 'yaml.parseDocument 8k / 2k', num: 'yaml8k', den: 'yaml2k' },
];

// Measure the CLI as shipped: never let a benchmark run rewrite the CLI's V8 code cache.
const env = { ...process.env, NO_COLOR: '1' };
delete env.KAIROKU_PLAYBOOK_WRITE_CODE_CACHE;

function run(argv) {
  const start = performance.now();
  const result = spawnSync(process.execPath, ['--require', cpuReport, ...argv], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
    env,
  });
  const ms = performance.now() - start;
  let cpuMs = NaN;
  try {
    const usage = JSON.parse(String(result.output?.[3] ?? ''));
    cpuMs = (usage.user + usage.system) / 1000;
  } catch {
    // the process died before its exit handler ran
  }
  return {
    ms,
    cpuMs,
    status: result.status,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
    error: result.error,
  };
}

// Pre-flight: every playbook must check clean (no diagnostics at all, not even info), or the
// benchmark measures the wrong thing.
const problems = [];
for (const file of [small, files[2000].file, files[8000].file]) {
  const result = run([cli, 'check', '--format', 'json', file]);
  let diagnostics;
  try {
    diagnostics = JSON.parse(result.stdout);
  } catch {
    diagnostics = undefined;
  }
  if (result.status !== 0 || !Array.isArray(diagnostics) || diagnostics.length > 0) {
    const count = Array.isArray(diagnostics) ? `${diagnostics.length} diagnostic(s)` : 'no JSON output';
    const first =
      Array.isArray(diagnostics) && diagnostics[0]
        ? `; first: ${diagnostics[0].line}:${diagnostics[0].column} ${diagnostics[0].code} ${diagnostics[0].message}`
        : result.stderr.trim()
          ? `; ${result.stderr.trim().split('\n')[0]}`
          : '';
    problems.push(`${rel(file)} does not check clean (exit ${result.status}, ${count}${first})`);
  }
}
for (const p of problems) process.stderr.write(`warning: ${p}\n`);

const samples = Object.fromEntries(MEASUREMENTS.map((m) => [m.id, []]));
const cpuSamples = Object.fromEntries(MEASUREMENTS.map((m) => [m.id, []]));
const failures = [];
const total = performance.now();
for (let round = 0; round <= RUNS; round++) {
  // rotate the order each round, so no measurement always runs right after the same one
  const order = MEASUREMENTS.map((_, i) => MEASUREMENTS[(i + round) % MEASUREMENTS.length]);
  for (const m of order) {
    const result = run(m.argv);
    if (result.error || result.status !== 0) {
      failures.push(
        `${m.label}: exit ${result.status}${result.error ? ` (${result.error.message})` : ''} ${result.stderr.trim().split('\n')[0] ?? ''}`,
      );
    }
    if (round > 0) {
      // round 0 is the warm-up
      samples[m.id].push(result.ms);
      cpuSamples[m.id].push(result.cpuMs);
    }
  }
  process.stderr.write(round === 0 ? 'warm-up done\n' : `round ${round}/${RUNS} done\n`);
}
const elapsed = (performance.now() - total) / 1000;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const medians = Object.fromEntries(MEASUREMENTS.map((m) => [m.id, median(samples[m.id])]));
const cpuMedians = Object.fromEntries(MEASUREMENTS.map((m) => [m.id, median(cpuSamples[m.id])]));
const ratios = TARGETS.map((t) => {
  const ratio = medians[t.num] / medians[t.den];
  const cpuRatio = cpuMedians[t.num] / cpuMedians[t.den];
  return { ...t, ratio, pass: t.max === undefined || ratio <= t.max, cpuRatio };
});

// ---- report -----------------------------------------------------------------------------------
const fmt = (ms) => `${ms.toFixed(0).padStart(6)} ms`;
const lines = [];
lines.push(
  `kairoku-playbook benchmarks — node ${process.version}, ${os.cpus().length} CPU(s), median of ${RUNS} after 1 warm-up`,
);
lines.push(
  `big-2000.yml: ${files[2000].lines} lines, ${(files[2000].bytes / 1024).toFixed(0)} KiB; big-8000.yml: ${files[8000].lines} lines, ${(files[8000].bytes / 1024).toFixed(0)} KiB`,
);
lines.push('');
lines.push('  measurement (wall clock)                    median       min       max   CPU median');
for (const m of MEASUREMENTS) {
  const xs = samples[m.id];
  lines.push(
    `  ${m.label.padEnd(40)} ${fmt(medians[m.id])} ${fmt(Math.min(...xs))} ${fmt(Math.max(...xs))}    ${fmt(cpuMedians[m.id])}`,
  );
}
lines.push('');
lines.push('  target (wall-clock medians)                                 ratio   limit        CPU ratio');
for (const r of ratios) {
  lines.push(
    `  ${`(${r.id})`.padEnd(4)} ${r.what.padEnd(52)} ${r.ratio.toFixed(2).padStart(6)}×  ${r.max === undefined ? 'info     ' : `≤ ${String(r.max).padEnd(4)} ${r.pass ? 'PASS' : 'FAIL'}`}    ${r.cpuRatio.toFixed(2).padStart(5)}×`,
  );
}
lines.push('');
lines.push(
  `  total ${elapsed.toFixed(0)} s; load average ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
for (const p of problems) lines.push(`  WARNING: ${p}`);
for (const f of [...new Set(failures)]) lines.push(`  WARNING: a run failed: ${f}`);
process.stdout.write(lines.join('\n') + '\n');

let commit;
try {
  commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
} catch {
  commit = undefined;
}
const results = {
  date: new Date().toISOString(),
  commit,
  node: process.version,
  platform: `${os.platform()} ${os.arch()}`,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model,
  loadavg: os.loadavg(),
  runs: RUNS,
  baseline:
    "target (a): yaml.parseDocument(text) with default options (includes the duplicate-key check), in a whole node process (bench/parse-yaml.mjs); (a') uses { uniqueKeys: false }",
  // the launcher and whatever it loads beside it (bundle, code cache), as built when measured
  cli: readdirSync(dirname(cli))
    .filter((name) => name.startsWith('kairoku-playbook.'))
    .map((name) => {
      const stat = statSync(join(dirname(cli), name));
      return { file: rel(join(dirname(cli), name)), bytes: stat.size, mtime: stat.mtime.toISOString() };
    }),
  inputs: {
    'big-2000.yml': { lines: files[2000].lines, bytes: files[2000].bytes },
    'big-8000.yml': { lines: files[8000].lines, bytes: files[8000].bytes },
  },
  measurements: MEASUREMENTS.map((m) => ({
    id: m.id,
    label: m.label,
    command: ['node', ...m.argv.map((a) => (a.startsWith('/') ? rel(a) : a))].join(' '),
    medianMs: medians[m.id],
    samplesMs: samples[m.id],
    cpuMedianMs: cpuMedians[m.id],
    cpuSamplesMs: cpuSamples[m.id],
  })),
  targets: ratios.map((r) => ({
    id: r.id,
    what: r.what,
    ratio: r.ratio,
    max: r.max,
    pass: r.pass,
    cpuRatio: r.cpuRatio,
  })),
  problems,
  failures: [...new Set(failures)],
  seconds: elapsed,
};
writeFileSync(join(outDir, 'results.json'), JSON.stringify(results, null, 2) + '\n');
process.stdout.write(`results: ${rel(join(outDir, 'results.json'))}\n`);

const bad = ratios.some((r) => !r.pass) || problems.length > 0 || failures.length > 0;
process.exit(strict && bad ? 1 : 0);
