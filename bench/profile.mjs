#!/usr/bin/env node
// Where does `check` spend its time? Profiles one check of a generated playbook and prints the
// hottest functions (self time) and the time per source module.
//
//   node bench/profile.mjs [STEPS=2000 | FILE] [--bundle FILE] [--top N] [--interval MICROSECONDS]
//
// STEPS generates bench/out/big-STEPS.yml; a FILE is checked as it is (e.g. playbooks/pr.yml with
// --interval 100 for the cold start). The shipped bundle is minified, so by default this bundles
// cli/src/bin-check.ts (what the launcher runs for `check`) again WITHOUT minification into bench/out/kairoku-playbook.profile.cjs (the
// settings of cli/build.mjs otherwise, but no V8 code cache), so the profile names real functions
// and modules. `--bundle cli/dist/kairoku-playbook.js` profiles the shipped CLI as is (minified
// names). The .cpuprofile is kept in bench/out/profile/ (open it in Chrome DevTools).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { generatePlaybook } from './generate.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = dirname(benchDir);
const outDir = join(benchDir, 'out');

let target = '2000';
let bundle;
let top = 25;
let interval = 1000;
for (let i = 2; i < process.argv.length; i++) {
  const arg = process.argv[i];
  if (arg === '--bundle') bundle = process.argv[++i];
  else if (arg === '--top') top = Number(process.argv[++i]);
  else if (arg === '--interval') interval = Number(process.argv[++i]);
  else target = arg;
}
const steps = /^\d+$/.test(target) ? Number(target) : undefined;
if ((steps !== undefined && steps < 4) || !Number.isInteger(top) || !Number.isInteger(interval) || !target) {
  process.stderr.write(
    'usage: node bench/profile.mjs [STEPS | FILE] [--bundle FILE] [--top N] [--interval MICROSECONDS]\n',
  );
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });

if (bundle === undefined) {
  // the same esbuild settings as cli/build.mjs's check bundle, without minification
  const { build } = await import('esbuild');
  bundle = join(outDir, 'kairoku-playbook.profile.cjs');
  await build({
    entryPoints: [join(root, 'cli', 'src', 'bin-check.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: false,
    legalComments: 'none',
    logLevel: 'warning',
  });
} else {
  bundle = join(process.cwd(), bundle);
}

let playbook;
if (steps !== undefined) {
  playbook = join(outDir, `big-${steps}.yml`);
  writeFileSync(playbook, generatePlaybook(steps));
} else {
  playbook = join(process.cwd(), target);
}
const profDir = join(outDir, 'profile');
rmSync(profDir, { recursive: true, force: true });
mkdirSync(profDir);
const env = { ...process.env, NO_COLOR: '1' };
delete env.KAIROKU_PLAYBOOK_WRITE_CODE_CACHE;
const started = performance.now();
const result = spawnSync(
  process.execPath,
  [
    '--cpu-prof',
    '--cpu-prof-interval',
    String(interval),
    '--cpu-prof-dir',
    profDir,
    bundle,
    'check',
    playbook,
  ],
  { cwd: root, encoding: 'utf8', env },
);
const wall = performance.now() - started;
if (result.status !== 0) {
  process.stderr.write(`check exited ${result.status}:\n${result.stdout}${result.stderr}`);
  process.exit(1);
}
const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8'));

// Map bundle lines to their source module: esbuild writes `// path/to/module.ts` before each one.
const moduleStarts = [];
if (existsSync(bundle)) {
  readFileSync(bundle, 'utf8')
    .split('\n')
    .forEach((text, line) => {
      const m = /^\/\/ (\S+\.(?:ts|js|mjs|cjs|json))$/.exec(text);
      if (m) moduleStarts.push({ line, module: m[1].replace(/^(\.\.\/)+/, '') });
    });
}
const inBundle = (url) => Boolean(url) && url.endsWith(bundle.split('/').pop());
const where = (url, line) =>
  `${moduleOf(url, line)}${inBundle(url) ? `  (bundle line ${line + 1})` : `:${line + 1}`}`;
const moduleOf = (url, line) => {
  if (!url) return '(native)';
  if (!inBundle(url)) return url.replace(/^file:\/\//, '').replace(root + '/', '');
  let found = '(bundle prelude)';
  for (const s of moduleStarts) {
    if (s.line > line) break;
    found = s.module;
  }
  return found.replace(/^node_modules\//, '');
};

// Self time per node: samples × their intervals.
const selfUs = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);
const byFunction = new Map();
const byModule = new Map();
const byPackage = new Map();
const packageOf = (module, functionName) => {
  if (module === '(native)')
    return functionName === '(garbage collector)' ? 'garbage collector' : `(${functionName})`;
  if (module.startsWith('node:')) return 'node internals (startup, module loading)';
  if (module === '(bundle prelude)') return 'bundle evaluation';
  const m = /^(compiler|grammar|cli)\/(?:dist|src)\/([^/]+)/.exec(module);
  if (m) return `${m[1]}/${m[2].replace(/\.[jt]s$/, '')}`;
  return module.split('/')[0];
};
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  if (!us) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const module = moduleOf(url, lineNumber);
  const key = `${functionName || '(anonymous)'}  ${url ? where(url, lineNumber) : module}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  byModule.set(module, (byModule.get(module) ?? 0) + us);
  const pkg = packageOf(module, functionName);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
}
// Total (inclusive) time per function: each sample counts once for every distinct function on its stack.
const parentOf = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
const nodeById = new Map(profile.nodes.map((n) => [n.id, n]));
const inclusive = new Map();
for (const [id, us] of selfUs) {
  const seen = new Set();
  for (let node = nodeById.get(id); node; node = parentOf.get(node.id)) {
    const { functionName, url, lineNumber } = node.callFrame;
    if (!inBundle(url)) continue; // (root), (program), node's module loader wrappers
    const key = `${functionName || '(anonymous)'}  ${where(url, lineNumber)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}
const pct = (us) => `${((100 * us) / totalUs).toFixed(1).padStart(5)}%`;
const ms = (us) => `${(us / 1000).toFixed(us < 10000 ? 1 : 0).padStart(6)} ms`;
/** The `top` biggest entries of a time table, one line each. */
const ranked = (table) =>
  [...table]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => `  ${ms(us)} ${pct(us)}  ${name}`);
const lines = [
  `profile of: node ${relative(root, bundle)} check ${relative(root, playbook)}`,
  `wall ${wall.toFixed(0)} ms (with the profiler), sampled ${ms(totalUs).trim()}; kept ${relative(root, join(profDir, file))}`,
  '',
  'self time by package / compiler area:',
  ...ranked(byPackage),
  '',
  'self time by module:',
  ...ranked(byModule),
  '',
  'hottest functions (self time):',
  ...ranked(byFunction),
  '',
  'total time (self + callees) of the biggest functions:',
  ...ranked(inclusive),
];
process.stdout.write(lines.join('\n') + '\n');
