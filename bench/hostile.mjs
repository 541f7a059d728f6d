#!/usr/bin/env node
// Hostile inputs for the checker, and a measure of how `check --format json` answers them.
//
//   node bench/hostile.mjs [--only ID[,ID…]] [--all-sizes] [--cli FILE]
//
// For each class of hostile input (issue 11; the classes are exported for test/hostile/compiler-inputs.test.ts)
// it writes the largest input of the class to a temporary folder, runs the built CLI on it as a user
// would (`node cli/dist/kairoku-playbook.js check FILE --format json`, one fresh process each, the heap
// capped at 1 GiB like the test), and prints the input's size, the wall time, the child's peak resident
// memory, the exit code and what came out. The bar: every input answered within 10 s and 1 GiB, with
// JSON on stdout. `--all-sizes` measures every size of each class, not only the largest; `--cli` another
// build of the CLI (to measure a version before a fix). Nothing here is a unit test; it reports, it
// does not gate (exit 0), and its figures depend on the machine and its load (printed at the end).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { TextEncoder } from 'node:util';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

// ---- the classes ---------------------------------------------------------------------------------

/** A small valid playbook; `steps` adds steps, `top` adds top-level keys. */
function playbook({ steps = '', top = '', inputs = '' } = {}) {
  return `version: 1
title: Hostile input
inputs:
  task: { type: string }
  flag: { type: boolean, default: false }
${inputs}steps:
  fix:
    role: implementer
    when: inputs.flag
    prompt: Fix \${{ inputs.task }}
${steps}${top}`;
}

/** A step `probe` whose `when` is `condition`, as a block scalar (no YAML quoting to get in the way). */
const whenProbe = (condition) =>
  playbook({ steps: `  probe:\n    run: x\n    when: |\n      ${condition}\n` });

/** A step `probe` whose prompt holds one `${{ expression }}`, as a block scalar. */
const promptProbe = (expression) =>
  playbook({ steps: `  probe:\n    role: implementer\n    prompt: |\n      \${{ ${expression} }}\n` });

const name5 = (i) => String(i).padStart(5, '0');

/** Invalid UTF-8 after `lines` lines of a valid playbook: the bytes and where the first bad one is. */
function badUtf8(lines, bad) {
  const head = new TextEncoder().encode(
    `${playbook()}${'# a comment line with ünïcödé ✓\n'.repeat(lines)}# `,
  );
  const bytes = new Uint8Array(head.length + bad.length + 1);
  bytes.set(head);
  bytes.set(bad, head.length);
  bytes[bytes.length - 1] = 0x0a;
  return { bytes, badAt: head.length };
}

const NUMBERS = ['1152921504606846976', '1e308', '1e400', '.inf', '-.inf', '.nan', '9007199254740993'];

/**
 * Each class: `id`; the item of issue 11 it comes from (`issue`, 0 for the sweep); `sizes`, growing, the
 * last one the largest (the one measured); `make(n)`, the text (or `{ bytes, badAt }`); `codes(n)`, the
 * codes of which at least one must be reported at size n (`undefined`: nothing in particular, only an
 * answer).
 */
export const HOSTILE_CLASSES = [
  {
    id: 'flow-keys',
    issue: 1,
    what: 'flow collections as a key, n levels of keys in keys',
    sizes: [1, 10, 30, 200, 3_000],
    make: (n) => playbook({ top: `labels: {${'[{'.repeat(n)}${'}]'.repeat(n)}: 1}\n` }),
    codes: () => ['PB104', 'PB100'],
  },
  {
    id: 'flow-keys-unclosed',
    issue: 1,
    what: 'unclosed flow collections as a key, n levels',
    sizes: [30, 3_000],
    make: (n) => playbook({ top: `labels: {${'[{'.repeat(n)}: 1}\n` }),
    codes: () => ['PB100'],
  },
  {
    id: 'expr-members',
    issue: 2,
    what: 'an expression of n chained ".a"',
    sizes: [10, 100, 5_000, 49_990],
    make: (n) => promptProbe(`inputs.task${'.a'.repeat(n)}`),
    codes: (n) => (n < 63 ? ['PB401'] : ['PB400']),
  },
  {
    id: 'expr-indexes',
    issue: 2,
    what: 'an expression of n chained ["a"]',
    sizes: [10, 100, 10_000, 19_990],
    make: (n) => promptProbe(`inputs.task${'["a"]'.repeat(n)}`),
    codes: (n) => (n < 63 ? ['PB401'] : ['PB400']),
  },
  {
    id: 'expr-or',
    issue: 2,
    what: 'a condition of n terms joined by ||',
    sizes: [10, 100, 1_000, 6_600],
    make: (n) => whenProbe(Array(n).fill('inputs.flag').join(' || ')),
    codes: (n) => (n <= 64 ? undefined : ['PB400']),
  },
  {
    id: 'expr-parens',
    issue: 2,
    what: 'a condition in n pairs of parentheses',
    sizes: [10, 100, 10_000, 49_000],
    make: (n) => whenProbe(`${'('.repeat(n)}inputs.flag${')'.repeat(n)}`),
    codes: (n) => (n < 64 ? undefined : ['PB400']),
  },
  {
    id: 'expr-not',
    issue: 2,
    what: 'a condition behind n "!"',
    sizes: [10, 100, 10_000, 99_000],
    make: (n) => whenProbe(`${'!'.repeat(n)}inputs.flag`),
    codes: (n) => (n < 64 ? undefined : ['PB400']),
  },
  {
    id: 'expr-calls',
    issue: 2,
    what: 'n nested calls len(len(…))',
    sizes: [10, 100, 10_000, 19_990],
    make: (n) => promptProbe(`${'len('.repeat(n)}inputs.task${')'.repeat(n)}`),
    codes: (n) => (n < 64 ? ['PB401'] : ['PB400']),
  },
  {
    id: 'type-nesting',
    issue: 2,
    what: 'an output type of n nested list<…>',
    sizes: [10, 100, 10_000, 16_000],
    make: (n) => playbook({ steps: `    outputs: { o: "${'list<'.repeat(n)}string${'>'.repeat(n)}" }\n` }),
    codes: (n) => (n < 64 ? ['PB901'] : ['PB403']),
  },
  ...[
    ['utf8-surrogate', 'an encoded surrogate (ED A0 80)', [0xed, 0xa0, 0x80]],
    ['utf8-overlong', 'an overlong "/" (E0 80 AF)', [0xe0, 0x80, 0xaf]],
    ['utf8-overlong-4', 'an overlong 4-byte form (F0 80 80 AF)', [0xf0, 0x80, 0x80, 0xaf]],
    ['utf8-past-max', 'a code point past U+10FFFF (F4 90 80 80)', [0xf4, 0x90, 0x80, 0x80]],
    ['utf8-latin1', 'a Latin-1 "é" (E9)', [0xe9, 0x20]],
  ].map(([id, what, bad]) => ({
    id,
    issue: 3,
    what: `${what} after n lines`,
    sizes: [0, 100_000],
    make: (n) => badUtf8(n, bad),
    codes: () => ['PB100'],
  })),
  {
    id: 'long-expressions',
    issue: 2,
    what: 'n expressions of 100,000 characters (chained ".a") in one prompt, and one longer',
    sizes: [1, 69],
    make: (n) =>
      playbook({
        steps: `  probe:\n    role: implementer\n    prompt: |\n${`      \${{ inputs.task${'.a'.repeat(49_990)} }}\n`.repeat(n)}      \${{ inputs.task${'.a'.repeat(60_000)} }}\n`,
      }),
    codes: () => ['PB400'],
  },
  {
    id: 'misspelt-needs',
    issue: 4,
    what: 'n steps, each needing a misspelt step',
    sizes: [100, 2_000, 5_000],
    make: (n) =>
      playbook({
        steps: Array.from(
          { length: n },
          (_, i) => `  step-${name5(i)}:\n    run: x\n    needs: [stpe-${name5(Math.max(0, i - 1))}]\n`,
        ).join(''),
      }),
    codes: () => ['PB200'],
  },
  {
    id: 'misspelt-references',
    issue: 4,
    what: 'n steps, each reading a misspelt step in its prompt',
    sizes: [100, 2_000, 5_000],
    make: (n) =>
      playbook({
        steps: Array.from(
          { length: n },
          (_, i) =>
            `  step-${name5(i)}:\n    role: implementer\n    prompt: "\${{ steps.stpe-${name5(i)}.outputs.x }}"\n`,
        ).join(''),
      }),
    codes: () => ['PB203'],
  },
  {
    id: 'dense-needs',
    issue: 5,
    what: 'n steps, each needing every step before it',
    sizes: [20, 200, 800],
    make: (n) =>
      playbook({
        steps: Array.from(
          { length: n },
          (_, i) =>
            `  s${i}:\n    run: x\n${i ? `    needs: [${Array.from({ length: i }, (_, k) => `s${k}`).join(', ')}]\n` : ''}`,
        ).join(''),
      }),
    codes: (n) => (n > 2 ? ['PB902'] : undefined),
  },
  {
    id: 'dense-cycle',
    issue: 0,
    what: 'n steps, each needing every other one',
    sizes: [10, 300],
    make: (n) =>
      playbook({
        steps: Array.from(
          { length: n },
          (_, i) =>
            `  s${i}: { run: x, needs: [${Array.from({ length: n }, (_, k) => k)
              .filter((k) => k !== i)
              .map((k) => `s${k}`)
              .join(', ')}] }\n`,
        ).join(''),
      }),
    codes: () => ['PB300'],
  },
  {
    id: 'long-cycle',
    issue: 0,
    what: 'a cycle through n steps',
    sizes: [10, 9_000],
    make: (n) =>
      playbook({
        steps: Array.from({ length: n }, (_, i) => `  s${i}: { run: x, needs: s${(i + 1) % n} }\n`).join(''),
      }),
    codes: () => ['PB300'],
  },
  {
    id: 'long-echo',
    issue: 6,
    what: 'values, names and expressions of n characters where messages quote them',
    sizes: [100, 100_000, 1_000_000],
    make: (n) => {
      const long = 'x'.repeat(n);
      const name = `a${'b'.repeat(n)}`;
      return playbook({
        inputs: `  big: { type: integer, default: "${long}" }\n`,
        steps: `  probe:\n    role: implementer\n    needs: [${name}]\n    prompt: "\${{ inputs.${name} }} \${{ ${name}(1) }} \${{ steps.fix.outcome == '${long}' }}"\n  tagged:\n    role: implementer\n    prompt: !x ${long}\n`,
        top: `workspace: ${long}\nlimits: { timeout: ${long} }\n`,
      });
    },
    codes: () => ['PB200', 'PB202', 'PB402', 'PB206', 'PB400', 'PB404', 'PB104', 'PB603'],
  },
  {
    id: 'big-numbers',
    issue: 7,
    what: `numbers out of every number field's reach (${NUMBERS.join(', ')})`,
    sizes: NUMBERS.map((_, i) => i),
    make: (i) => {
      const v = NUMBERS[i];
      return playbook({
        inputs: `  count: { type: integer, min: ${v}, max: ${v}, default: ${v} }\n`,
        steps: `  probe:\n    run: x\n    retries: ${v}\n    when: inputs.count == ${v}\n    outcomes: { pass: { loop: probe, max: ${v} } }\n`,
        top: `limits: { concurrency: ${v}, max_loops: ${v} }\nlabels: { n: ${v} }\n`,
      });
    },
    codes: () => ['PB604', 'PB302', 'PB104', 'PB404', 'PB400'],
  },
  {
    id: 'many-values',
    issue: 0,
    what: 'a list of n items',
    sizes: [1_000, 100_000, 1_500_000],
    make: (n) => playbook({ top: `labels:\n  k: [${Array(n).fill('a').join(',')}]\n` }),
    codes: (n) => (n > 500_000 ? ['PB100'] : ['PB104']),
  },
  {
    id: 'alias-bomb',
    issue: 0,
    what: 'n levels of 9 aliases each',
    sizes: [3, 9, 12],
    make: (n) => {
      const levels = [`  l0: &a0 [${Array(9).fill('lol').join(', ')}]`];
      for (let i = 1; i < n; i++)
        levels.push(
          `  l${i}: &a${i} [${Array(9)
            .fill(`*a${i - 1}`)
            .join(', ')}]`,
        );
      return playbook({ top: `labels:\n${levels.join('\n')}\n` });
    },
    codes: () => ['PB100', 'PB104'],
  },
  {
    id: 'deep-flow',
    issue: 0,
    what: 'n nested flow lists',
    sizes: [10, 100, 1_000_000],
    make: (n) => playbook({ top: `labels: ${'['.repeat(n)}${']'.repeat(n)}\n` }),
    codes: () => ['PB100', 'PB104'],
  },
  {
    id: 'deep-block',
    issue: 0,
    what: 'n nested block mappings',
    sizes: [10, 100, 3_000],
    make: (n) =>
      playbook({
        top: `labels:\n${Array.from({ length: n }, (_, i) => `${' '.repeat(i + 2)}k${i}:`).join('\n')} 1\n`,
      }),
    codes: () => ['PB100', 'PB104'],
  },
  {
    id: 'tab-lines',
    issue: 0,
    what: 'n lines indented with a tab',
    sizes: [10, 50_000],
    make: (n) => playbook({ top: `labels:\n${'\tk: v\n'.repeat(n)}` }),
    codes: () => ['PB100'],
  },
  {
    id: 'unknown-keys',
    issue: 0,
    what: 'n unknown keys',
    sizes: [10, 50_000],
    make: (n) => playbook({ top: Array.from({ length: n }, (_, i) => `k${i}: 1\n`).join('') }),
    codes: () => ['PB102'],
  },
  {
    id: 'many-expressions',
    issue: 0,
    what: 'a prompt of n ${{ }} reading an unknown input',
    sizes: [10, 100_000],
    make: (n) =>
      playbook({
        steps: `  probe:\n    role: implementer\n    prompt: |\n${'      ${{ inputs.nope }} and\n'.repeat(n)}`,
      }),
    codes: () => ['PB202'],
  },
  {
    id: 'many-outputs',
    issue: 0,
    what: 'a step with n outputs, each read once (and one misspelt)',
    sizes: [10, 10_000],
    make: (n) =>
      playbook({
        steps: `    outputs:\n${Array.from({ length: n }, (_, i) => `      o${i}: string\n`).join('')}  probe:\n    role: implementer\n    needs: fix\n    prompt: |\n${Array.from({ length: n }, (_, i) => `      \${{ steps.fix.outputs.o${i} }}\n`).join('')}      \${{ steps.fix.outputs.o${n}x }}\n`,
      }),
    codes: () => ['PB204'],
  },
  {
    id: 'many-inputs',
    issue: 0,
    what: 'n inputs, each read once (and one misspelt)',
    sizes: [10, 20_000],
    make: (n) =>
      playbook({
        inputs: Array.from({ length: n }, (_, i) => `  i${i}: { type: string }\n`).join(''),
        steps: `  probe:\n    role: implementer\n    prompt: |\n${Array.from({ length: n }, (_, i) => `      \${{ inputs.i${i} }}\n`).join('')}      \${{ inputs.i${n}x }}\n`,
      }),
    codes: () => ['PB202'],
  },
  {
    id: 'many-suppressions',
    issue: 0,
    what: 'n lines with a suppression comment that silences nothing',
    sizes: [10, 20_000],
    make: (n) =>
      playbook({
        top: `labels:\n${Array.from({ length: n }, (_, i) => `  k${i}: v # playbook-ignore PB900 PB901\n`).join('')}`,
      }),
    codes: () => ['PB903'],
  },
  {
    id: 'many-steps',
    issue: 0,
    what: 'n steps in a chain',
    sizes: [100, 10_001],
    make: (n) =>
      playbook({
        steps: Array.from(
          { length: n },
          (_, i) => `  s${i}: { run: x${i ? `, needs: s${i - 1}` : ''} }\n`,
        ).join(''),
      }),
    codes: (n) => (n > 10_000 ? ['PB100'] : undefined),
  },
  {
    id: 'huge-scalar',
    issue: 0,
    what: 'a title of n characters',
    sizes: [100, 7_000_000, 9_000_000],
    make: (n) => playbook().replace('title: Hostile input', `title: ${'t'.repeat(n)}`),
    codes: (n) => (n > 8_000_000 ? ['PB100'] : undefined),
  },
];

// ---- measuring -----------------------------------------------------------------------------------

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = dirname(benchDir);

/** The peak resident memory of a child: from /usr/bin/time when there is one, else a preload's report. */
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const PRELOAD = `'use strict';
const { writeSync } = require('node:fs');
process.on('exit', () => {
  const usage = process.resourceUsage();
  try { writeSync(3, [usage.maxRSS, usage.userCPUTime / 1e6, usage.systemCPUTime / 1e6].join(' ')); } catch {}
});
`;

function measure(cli, file, dir) {
  const node = [process.execPath, '--max-old-space-size=1024'];
  const rssFile = join(dir, 'rss');
  rmSync(rssFile, { force: true });
  const args = [cli, 'check', file, '--format', 'json'];
  let command;
  let commandArgs;
  const stdio = ['ignore', 'pipe', 'pipe'];
  if (TIME) {
    command = TIME;
    commandArgs = ['-o', rssFile, '-f', '%M %U %S', ...node, ...args];
  } else {
    const preload = join(dir, 'rss-report.cjs');
    writeFileSync(preload, PRELOAD);
    command = node[0];
    commandArgs = [node[1], '--require', preload, ...args];
    stdio.push('pipe');
  }
  const started = performance.now();
  const child = spawnSync(command, commandArgs, {
    cwd: dir,
    stdio,
    maxBuffer: 1 << 30,
    timeout: 300_000,
    encoding: 'utf8',
  });
  const seconds = (performance.now() - started) / 1000;
  // peak resident KB, user and system CPU seconds
  let report;
  if (TIME) {
    const lines = existsSync(rssFile) ? readFileSync(rssFile, 'utf8').trim().split('\n') : [];
    report = lines[lines.length - 1] ?? '';
  } else report = String(child.output?.[3] ?? '');
  const [rssKb, user, system] = report.split(' ').map(Number);
  const cpu = (user ?? NaN) + (system ?? NaN);
  let json;
  try {
    json = JSON.parse(child.stdout);
  } catch {
    json = undefined;
  }
  // (/usr/bin/time reports a child killed by a signal as exit 128 + signal on its own stderr line)
  return {
    seconds,
    cpu,
    rssKb,
    status: child.status,
    signal: child.signal,
    json,
    stderr: child.stderr ?? '',
  };
}

function main() {
  const args = process.argv.slice(2);
  let only;
  let allSizes = false;
  let cli = join(root, 'cli', 'dist', 'kairoku-playbook.js');
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--only') only = new Set(args[++i].split(','));
    else if (args[i] === '--all-sizes') allSizes = true;
    else if (args[i] === '--cli') cli = args[++i];
    else {
      process.stderr.write('usage: node bench/hostile.mjs [--only ID[,ID…]] [--all-sizes] [--cli FILE]\n');
      process.exit(2);
    }
  }
  if (!existsSync(cli)) {
    process.stderr.write(`${cli} is missing; build it first: npm run build\n`);
    process.exit(2);
  }
  const dir = mkdtempSync(join(os.tmpdir(), 'kairoku-hostile-'));
  const rows = [];
  try {
    for (const hostile of HOSTILE_CLASSES) {
      if (only && !only.has(hostile.id)) continue;
      for (const n of allSizes ? hostile.sizes : hostile.sizes.slice(-1)) {
        const made = hostile.make(n);
        const bytes = typeof made === 'string' ? Buffer.from(made) : Buffer.from(made.bytes);
        const file = join(dir, `${hostile.id}.playbook.yml`);
        writeFileSync(file, bytes);
        const result = measure(cli, file, dir);
        const diagnostics = Array.isArray(result.json) ? result.json : undefined;
        const codes = diagnostics ? [...new Set(diagnostics.map((d) => d.code))].sort() : [];
        const wanted = hostile.codes(n);
        const answered =
          diagnostics !== undefined &&
          (result.status === 0 || result.status === 1) &&
          (wanted === undefined || codes.some((c) => wanted.includes(c)));
        const within = answered && result.seconds <= 10 && result.rssKb <= 1024 * 1024;
        rows.push({
          class: hostile.id,
          issue: hostile.issue || '-',
          n,
          bytes: bytes.length,
          seconds: result.seconds,
          cpu: result.cpu,
          rssMb: result.rssKb / 1024,
          exit: result.signal ?? result.status,
          diagnostics: diagnostics?.length ?? 'not JSON',
          codes: codes.join(' ') || '-',
          verdict: within ? 'ok' : answered ? 'SLOW/BIG' : 'FAILED',
        });
        const row = rows[rows.length - 1];
        process.stdout.write(
          `${row.class.padEnd(20)} ${String(row.issue).padStart(2)} n=${String(n).padEnd(9)} ${String(row.bytes).padStart(9)} B ` +
            `${row.seconds.toFixed(2).padStart(6)} s (cpu ${row.cpu.toFixed(2).padStart(5)} s) ${row.rssMb.toFixed(0).padStart(5)} MB exit ${String(row.exit).padEnd(3)} ` +
            `${String(row.diagnostics).padStart(7)} diagnostics  ${row.verdict.padEnd(8)} ${row.codes}\n`,
        );
        if (!answered && result.stderr)
          process.stdout.write(
            `    stderr: ${result.stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 300)}\n`,
          );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const failed = rows.filter((r) => r.verdict !== 'ok');
  process.stdout.write(
    `\n${rows.length} inputs, ${failed.length} outside the bar (10 s, 1 GiB, JSON with an expected code); ` +
      `node ${process.version}, ${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}; ` +
      `peak memory and CPU from ${TIME ? '/usr/bin/time -f "%M %U %S"' : 'process.resourceUsage()'} ` +
      '(on a busy machine wall time runs ahead of CPU time)\n',
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
