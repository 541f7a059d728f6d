#!/usr/bin/env node
// Incremental analysis on a big playbook (see bench/README.md, "Incremental analysis").
//
//   node bench/incremental.mjs [--runs N] [--steps S]   (N ≥ 5, default 11; S default 2000)
//
// In this process, on the generated S-step playbook (bench/generate.mjs), the same edits as bench/lsp.mjs
// (one character typed inside a prompt, spread over the document, cumulative) and, per round, one edit of
// each other kind an author makes inside a template:
//   full         analyzeFile(file, newText): the whole file analysed again (what `check` does);
//   incremental  analyzeEdited(previous, newText): from the previous analysis (what the language server
//                does after a change); its diagnostics are compared with the full analysis' (deep equal),
//                and whether it took the incremental path is counted.
// One warm-up round, then N rounds; within a round the order of the two alternates. Figures are medians,
// in wall time and CPU time (process.cpuUsage, less sensitive to other load on a shared machine); the
// ratio incremental / full is measured in the same run. Writes bench/out/incremental-results.json; exits 0
// whatever the figures, 1 when the two analyses disagree, 2 when the build is missing.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generatePlaybook } from './generate.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = dirname(benchDir);
const compilerEntry = join(root, 'compiler', 'dist', 'index.js');
if (!existsSync(compilerEntry)) {
  process.stderr.write('compiler/dist is missing; build first: npx tsc -b\n');
  process.exit(2);
}
let RUNS = 11;
let STEPS = 2000;
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i] === '--runs') RUNS = Number(process.argv[++i]);
  else if (process.argv[i] === '--steps') STEPS = Number(process.argv[++i]);
  else RUNS = NaN;
}
if (!Number.isInteger(RUNS) || RUNS < 5 || !Number.isInteger(STEPS) || STEPS < 4) {
  process.stderr.write('usage: node bench/incremental.mjs [--runs N] [--steps S]   (N ≥ 5)\n');
  process.exit(2);
}
const { analyzeFile, analyzeEdited } = await import(pathToFileURL(compilerEntry).href);

const file = `playbooks/big-${STEPS}.playbook.yml`;
const original = generatePlaybook(STEPS);
const lines = original.split('\n');
// Lines that start a prompt's text (as bench/lsp.mjs picks them), and commands and feedbacks.
const promptLines = [];
for (let i = 1; i < lines.length; i++)
  if (/^\s+prompt: \|$/.test(lines[i - 1]) && /^ {6}[A-Za-z]{4}/.test(lines[i])) promptLines.push(i);
const offsetOfLine = (text, line) => {
  let offset = 0;
  for (let i = 0; i < line; i++) offset = text.indexOf('\n', offset) + 1;
  return offset;
};

/** The kinds of edit, each a function of the current text and the round: the new text. */
const KINDS = {
  'type a character in a prompt': (text, round) => {
    const line = promptLines[Math.floor(((round + 0.5) / (RUNS + 1)) * promptLines.length)];
    const at = offsetOfLine(text, line) + 8;
    return text.slice(0, at) + 'x' + text.slice(at);
  },
  'insert ${{ inputs.task }} in a prompt': (text, round) => {
    const line = promptLines[Math.floor(((round + 0.25) / (RUNS + 1)) * promptLines.length)];
    const at = offsetOfLine(text, line) + 6;
    return `${text.slice(0, at)}\${{ inputs.task }} ${text.slice(at)}`;
  },
  'delete a word of a prompt': (text, round) => {
    const line = promptLines[Math.floor(((round + 0.75) / (RUNS + 1)) * promptLines.length)];
    const at = offsetOfLine(text, line) + 6;
    const end = text.indexOf(' ', at) + 1;
    return text.slice(0, at) + text.slice(end);
  },
};

const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

const samples = {};
const problems = [];
let incrementalCount = 0;
let edits = 0;
let analysis = analyzeFile(file, original);
let text = original;
for (let round = 0; round <= RUNS; round++) {
  for (const [kind, edit] of Object.entries(KINDS)) {
    const next = edit(text, round);
    const measure = {};
    const order = round % 2 ? ['full', 'incremental'] : ['incremental', 'full'];
    let full;
    let edited;
    for (const which of order) {
      const wall = performance.now();
      const time = cpu();
      if (which === 'full') full = analyzeFile(file, next);
      else edited = analyzeEdited(analysis, next);
      measure[which] = { wall: performance.now() - wall, cpu: cpu() - time };
    }
    // (the same edit analysed incrementally took the fast path when it kept the semantic model's graph)
    const fast = edited.semantic !== undefined && edited.semantic.graph === analysis.semantic?.graph;
    if (!isDeepStrictEqual(edited.diagnostics, full.diagnostics))
      problems.push(`${kind}, round ${round}: the incremental diagnostics differ from the full analysis'`);
    analysis = edited;
    text = next;
    if (round === 0) continue;
    edits++;
    if (fast) incrementalCount++;
    for (const which of ['full', 'incremental'])
      for (const clock of ['wall', 'cpu'])
        (samples[`${kind}|${which}|${clock}`] ??= []).push(measure[which][clock]);
    (samples[`all|full|wall`] ??= []).push(measure.full.wall);
    (samples[`all|incremental|wall`] ??= []).push(measure.incremental.wall);
    (samples[`all|full|cpu`] ??= []).push(measure.full.cpu);
    (samples[`all|incremental|cpu`] ??= []).push(measure.incremental.cpu);
  }
  process.stderr.write(`${round === 0 ? 'warm-up' : `round ${round}/${RUNS}`} done\n`);
}

const medians = Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, median(xs)]));
const out = [];
out.push(
  `kairoku-playbook incremental analysis — node ${process.version}, ${os.cpus().length} CPU(s), load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, median of ${RUNS} rounds after 1 warm-up`,
);
out.push(
  `document: ${STEPS} steps, ${lines.length} lines, ${(Buffer.byteLength(original) / 1024).toFixed(0)} KiB; ` +
    `${incrementalCount} of ${edits} edits took the incremental path; diagnostics equal to a full analysis: ${problems.length ? 'NO' : 'yes, every edit'}`,
);
out.push('');
out.push(
  `  ${'edit'.padEnd(40)} ${'full wall'.padStart(10)} ${'incr wall'.padStart(10)} ${'ratio'.padStart(6)}   ${'full cpu'.padStart(10)} ${'incr cpu'.padStart(10)} ${'ratio'.padStart(6)}`,
);
const targets = [];
for (const kind of [...Object.keys(KINDS), 'all']) {
  const fw = medians[`${kind}|full|wall`];
  const iw = medians[`${kind}|incremental|wall`];
  const fc = medians[`${kind}|full|cpu`];
  const ic = medians[`${kind}|incremental|cpu`];
  out.push(
    `  ${kind.padEnd(40)} ${fw.toFixed(1).padStart(8)} ms ${iw.toFixed(1).padStart(7)} ms ${(iw / fw).toFixed(3).padStart(6)}   ${fc.toFixed(1).padStart(7)} ms ${ic.toFixed(1).padStart(7)} ms ${(ic / fc).toFixed(3).padStart(6)}`,
  );
  targets.push({ kind, wallRatio: iw / fw, cpuRatio: ic / fc, max: 0.2, pass: iw / fw <= 0.2 });
}
const all = targets[targets.length - 1];
out.push('');
out.push(
  `  target: edit → diagnostics ≤ 0.2× a full analysis: ${all.wallRatio.toFixed(3)}× wall, ${all.cpuRatio.toFixed(3)}× CPU  ${all.pass ? 'PASS' : 'FAIL'}`,
);
for (const p of problems) out.push(`  PROBLEM: ${p}`);
process.stdout.write(`${out.join('\n')}\n`);

let commit = null;
try {
  commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
} catch {
  // not a checkout
}
mkdirSync(join(benchDir, 'out'), { recursive: true });
writeFileSync(
  join(benchDir, 'out', 'incremental-results.json'),
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      loadavg: os.loadavg(),
      commit,
      runs: RUNS,
      document: { steps: STEPS, lines: lines.length, bytes: Buffer.byteLength(original) },
      edits,
      incremental: incrementalCount,
      samples,
      medians,
      targets,
      problems,
    },
    null,
    2,
  )}\n`,
);
process.exit(problems.length ? 1 : 0);
