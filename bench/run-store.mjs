#!/usr/bin/env node
// The run store at 10,000 runs (issue 29): a store filled with RUNS completed sim runs of pr.yml, each a
// copy of one real run file (a real `kairoku-playbook run` of the sample, sim backend, a scenario that
// takes it to its end) with its own id and times, written straight to the run folder, so filling is fast.
// Measured, each a real process of the built CLI:
//
//   rebuild   the index rebuilt from the run files alone (no index file): `RunStore.list()` in a node
//             process, in-process time
//   serveUp   `serve` from spawn to its login URL on standard output (median of 3), with the index; and
//             once without it (the first start after an upgrade: serve rebuilds it)
//   page      GET /api/v1/runs?limit=50 (the panel's first page), and a page from the middle with a
//             text filter: 50 requests each, request to whole answer, after one untimed request of
//             the playbooks (the client's code loaded, its connection made); the first apart (serve's
//             code for it runs cold), median and max of the other 49
//   rss       serve's VmRSS 1 s after those requests, against a serve of the same workspace with an
//             empty store measured the same way (the goal: at most 1.2×); each the median of the three
//             starts (the requests are made after each start; the page figures are the third's)
//   runsList  `kairoku-playbook runs list` (median of 3), wall time to exit, with the index
//
// Run after `npm run build`:   node bench/run-store.mjs [RUNS]
/* global fetch */
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { findServe } from '@kairoku-playbook/runtime/serve';

const RUNS = Number(process.argv[2] ?? 10_000);
const repo = new URL('../', import.meta.url).pathname;
const cli = join(repo, 'cli/dist/kairoku-playbook.js');
const work = realpathSync(mkdtempSync(join(tmpdir(), 'kp-bench-store-')));
const SCENARIO = `inputs: { task: add a flag, strict: true }
steps:
  implement: [{ outcome: done, outputs: { branch: feat/x } }]
  qa: [{ outcome: fail, summary: red }, { outcome: pass }]
  review: [{ outcome: approved, outputs: { verdict: approve } }]
gates:
  ship: [{ choice: approve }]
`;

const round = (x) => Math.round(x * 10) / 10;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function workspace(name) {
  const dir = join(work, name);
  mkdirSync(join(dir, 'playbooks'), { recursive: true });
  copyFileSync(join(repo, 'playbooks/pr.yml'), join(dir, 'playbooks/pr.yml'));
  return dir;
}

/** One real completed sim run of pr.yml in `home`, run from `ws`: its run file's text. */
function realRun(ws, home) {
  writeFileSync(join(work, 'scenario.yml'), SCENARIO);
  const run = spawnSync(
    process.execPath,
    [cli, 'run', 'playbooks/pr.yml', '--scenario', join(work, 'scenario.yml'), '--json'],
    { cwd: ws, env: { ...process.env, KAIROKU_PLAYBOOK_HOME: home }, encoding: 'utf8' },
  );
  const [file] = readdirSync(join(home, 'runs')).filter((n) => n.endsWith('.json'));
  if (!file) throw new Error(`the sim run wrote no run file: ${run.stderr}`);
  const text = readFileSync(join(home, 'runs', file), 'utf8');
  if (JSON.parse(text).status !== 'completed') throw new Error(`the sim run did not complete: ${run.stderr}`);
  rmSync(join(home, 'runs', file));
  rmSync(join(home, 'run-index.jsonl'), { force: true });
  return text;
}

/** `count` copies of the run, each with its own id and times (one a day back from now, spread). */
function fill(home, template, count) {
  const record = JSON.parse(template);
  const folder = join(home, 'runs');
  mkdirSync(folder, { recursive: true });
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    const id = `pr-${String(i).padStart(6, '0')}`;
    const created = now - (count - i) * 30 * 60_000;
    const at = (ms) => new Date(created + ms).toISOString();
    const copy = {
      ...record,
      id,
      title: `${record.title} #${i}`,
      createdAt: at(0),
      startedAt: at(1000),
      endedAt: at(60_000),
      updatedAt: at(60_000),
    };
    writeFileSync(join(folder, `${id}.json`), `${JSON.stringify(copy, null, 2)}\n`, { mode: 0o600 });
  }
}

function timeRebuild(home) {
  rmSync(join(home, 'run-index.jsonl'), { force: true });
  const script =
    "import('@kairoku-playbook/runtime').then(({ RunStore }) => { const t = performance.now();" +
    ' const { entries } = new RunStore(process.argv[1]).list();' +
    ' console.log(JSON.stringify({ ms: performance.now() - t, runs: entries.length })); })';
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script, home], {
    cwd: repo,
    encoding: 'utf8',
  });
  if (out.status !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout);
}

function startServe(ws, home) {
  const begun = performance.now();
  const child = spawn(process.execPath, [cli, 'serve', ws, '--listen', '127.0.0.1:0'], {
    env: { ...process.env, KAIROKU_PLAYBOOK_HOME: home },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /(http:\/\/127\.0\.0\.1:\d+)\/\?login=(\S+)/.exec(out);
      if (match)
        resolve({
          child,
          upMs: performance.now() - begun,
          url: match[1],
          token: findServe(home, realpathSync(ws)).token,
        });
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
}

async function stop(server) {
  const ended = new Promise((done) => server.child.once('exit', done));
  server.child.kill('SIGTERM');
  await ended;
}

function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)[1]) / 1024;
}

/** `count` requests of `path`, one after another: the first apart (the client's connection is made then). */
async function timeRequests(server, path, count) {
  const times = [];
  let body;
  for (let i = 0; i < count; i++) {
    const begun = performance.now();
    const response = await fetch(`${server.url}${path}`, {
      headers: { Authorization: `Bearer ${server.token}` },
    });
    body = await response.json();
    times.push(performance.now() - begun);
  }
  const [first, ...rest] = times;
  if (!rest.length) return { firstMs: round(first), body };
  return { firstMs: round(first), medianMs: round(median(rest)), maxMs: round(Math.max(...rest)), body };
}

/** serve up three times; each time its answers, then its memory (the median of the three is kept). */
async function measureServe(ws, home) {
  const ups = [];
  const rss = [];
  let first;
  let middle;
  for (let i = 0; i < 3; i++) {
    const server = await startServe(ws, home);
    ups.push(server.upMs);
    // (the client's first request loads fetch's code and connects: made on another route, untimed)
    await timeRequests(server, '/api/v1/playbooks', 1);
    first = await timeRequests(server, '/api/v1/runs?limit=50', 50);
    middle = await timeRequests(server, '/api/v1/runs?limit=50&offset=5000&text=%231', 50);
    await sleep(1000);
    rss.push(rssMiB(server.child.pid));
    await stop(server);
  }
  return { upMs: round(median(ups)), first, middle, rss: round(median(rss)), rssAll: rss.map(round) };
}

function timeRunsList(ws, home) {
  const times = [];
  let lines = 0;
  for (let i = 0; i < 3; i++) {
    const begun = performance.now();
    const out = spawnSync(process.execPath, [cli, 'runs', 'list'], {
      cwd: ws,
      env: { ...process.env, KAIROKU_PLAYBOOK_HOME: home },
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    times.push(performance.now() - begun);
    if (out.status !== 0) throw new Error(out.stderr);
    lines = out.stdout.split('\n').length - 2;
  }
  return { medianMs: round(median(times)), lines };
}

try {
  const ws = workspace('ws');
  const home = join(work, 'home');
  const emptyHome = join(work, 'home-empty');
  const template = realRun(ws, home);
  let begun = performance.now();
  fill(home, template, RUNS);
  const fillMs = performance.now() - begun;
  const loadBefore = loadavg().map(round);
  const rebuild = timeRebuild(home);
  rmSync(join(home, 'run-index.jsonl'), { force: true });
  const noIndex = await startServe(ws, home);
  await stop(noIndex);
  const empty = await measureServe(ws, emptyHome);
  const full = await measureServe(ws, home);
  const runsList = timeRunsList(ws, home);
  const result = {
    runs: RUNS,
    runFileKiB: round(Buffer.byteLength(template) / 1024),
    fillMs: round(fillMs),
    rebuild: { ms: round(rebuild.ms), runs: rebuild.runs, goalMs: 10_000 },
    serveUpMs: { empty: empty.upMs, full: full.upMs, fullWithoutIndex: round(noIndex.upMs), goal: 1000 },
    firstPageMs: {
      firstRequest: full.first.firstMs,
      median: full.first.medianMs,
      max: full.first.maxMs,
      total: full.first.body.total,
      goal: 50,
    },
    middlePageMs: { median: full.middle.medianMs, max: full.middle.maxMs, total: full.middle.body.total },
    rssMiB: {
      empty: empty.rss,
      full: full.rss,
      ratio: Math.round((full.rss / empty.rss) * 1000) / 1000,
      each: { empty: empty.rssAll, full: full.rssAll },
      goal: 1.2,
    },
    runsListMs: { median: runsList.medianMs, rows: runsList.lines, goal: 500 },
    loadavg: { before: loadBefore, after: loadavg().map(round) },
    cpus: cpus().length,
    node: process.version,
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  // (BENCH_KEEP=1 keeps the filled store, to look at it after)
  if (process.env.BENCH_KEEP) console.error(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
