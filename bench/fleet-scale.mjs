#!/usr/bin/env node
// The fleet at scale (issue 15 §3), in one run, each figure against a baseline measured in the same run:
//
// 1. 20 runners drain 200 queued dispatches, over TLS (a self-signed certificate, the runners pinning
//    its fingerprint, as `serve --tls-self-signed` and `runner --app-fingerprint` do) and over loopback
//    HTTP (the baseline): claim latency (median, p99) as a runner sees it, and the app's CPU per claimed
//    dispatch (its claim, its terminal update, its share of heartbeats). The runners are the reference
//    runner's own client (AppClient: keep-alive, the pin) in a child process, so the app's process
//    CPU is the app's alone.
// 2. The app's memory with 1,000 runs in its store (RunHost listing them, as the panel does), against
//    an empty store.
// 3. Claim cost with 100 and with 1,000 dispatches queued (the ratio should stay near 1).
//
// Run after `npx tsc -b`:   node bench/fleet-scale.mjs [--runners 20] [--dispatches 200] [--warmup 1] [--drain-only]
//
// At scale (issue 29: 1,000 runners × 20,000 dispatches), the dispatches are queued as runs of at most
// 1,000 ready steps each; `--warmup 0` skips the warm-up pair of drains, `--drain-only` the memory and
// claim-cost parts (item 1 alone).
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { KairokuBackend, makeSelfSigned, fingerprintOf } from '../runtime/dist/backends/kairoku/index.js';
import { AppClient } from '../runtime/dist/runner/app-client.js';
import { RunHost } from '../runtime/dist/host/run-host.js';
import { SimBackend } from '../runtime/dist/backends/sim.js';
import { createRun } from '../machine/dist/core/create-run.js';
import { REPO, TOKEN, arg, compile, median, ms, quantile, queueRuns } from './kairoku-support.mjs';

const RUNNERS = arg('runners', 20);
const DISPATCHES = arg('dispatches', 200);
const WARMUP = arg('warmup', 1);
const DRAIN_ONLY = process.argv.includes('--drain-only');
/** the widest run queued: more dispatches are more runs of this many steps */
const WIDTH = Math.min(DISPATCHES, 1000);

/** One run of `width` ready check steps: that many dispatches queued at once. */
const wide = (width) =>
  compile(`version: 1
id: wide${width}
title: Many ready steps
steps:
${Array.from({ length: width }, (_, i) => `  s${i}: { run: [make s${i}] }`).join('\n')}
`);

const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

// ---- the runners' side (a child process) ----------------------------------------------------------

async function runnerProcess({ url, runners, fingerprint, expected }) {
  const latencies = [];
  let handed = 0;
  await Promise.all(
    Array.from({ length: runners }, async (_, n) => {
      const client = new AppClient(url, TOKEN, 30_000, fingerprint ? { fingerprint } : {});
      const runner = `runner-${n}`;
      const machine = `box-${n}`;
      const hello = () => ({
        runner,
        machine,
        version: 'bench',
        repositories: [REPO],
        held: [],
        capacity: { running: 0, max: 1 },
      });
      await client.post('heartbeat', hello());
      let beat = performance.now();
      let idle = 0;
      while (handed < expected && idle < 200) {
        if (performance.now() - beat > 1000) {
          await client.post('heartbeat', hello());
          beat = performance.now();
        }
        const t0 = performance.now();
        const { dispatches } = await client.post('claim', { runner, machine, repositories: [REPO], free: 1 });
        latencies.push(performance.now() - t0);
        if (!dispatches.length) {
          idle++;
          await new Promise((resolve) => setTimeout(resolve, 2));
          continue;
        }
        idle = 0;
        for (const d of dispatches) {
          handed++;
          await client.post('update', {
            runner,
            dispatch: d.id,
            seq: 1,
            events: [{ at: new Date().toISOString(), kind: 'status', text: 'ended: completed' }],
            terminal: {
              status: 'completed',
              exitCode: 0,
              check: {
                outcome: 'pass',
                passed: 1,
                failed: 0,
                skipped: 0,
                todo: 0,
                exit_code: 0,
                summary: 'ok',
              },
            },
          });
        }
      }
      client.close();
    }),
  );
  process.send({ latencies, handed });
}

// ---- the app's side -------------------------------------------------------------------------------

/** 20 runners drain `DISPATCHES` queued dispatches; TLS when `tls` is given. */
async function drain(tls) {
  const backend = new KairokuBackend({
    appToken: TOKEN,
    target: { repository: REPO, baseBranch: 'main' },
    heartbeatIntervalMs: 1000,
    missLimit: 60,
  });
  const url = await backend.listen('127.0.0.1', 0, tls ? { tls } : {});
  const drivers = queueRuns(backend, wide(WIDTH), Math.ceil(DISPATCHES / WIDTH), tls ? 'tls' : 'http');
  // Warm the validators before the clock starts (they compile on first use).
  backend.handle('heartbeat', {
    runner: 'warm',
    machine: 'box',
    version: 'bench',
    repositories: [],
    held: [],
    capacity: { running: 0, max: 0 },
  });
  const child = fork(new URL(import.meta.url), ['--child'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  child.send({
    url,
    runners: RUNNERS,
    fingerprint: tls ? fingerprintOf(tls.cert) : undefined,
    expected: DISPATCHES,
  });
  const { latencies, handed } = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('error', reject);
  });
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  child.kill();
  const completed = drivers.every((d) => d.state.status === 'completed');
  await backend.close();
  return {
    handed,
    completed,
    claims: latencies.length,
    median: median(latencies),
    p99: quantile(latencies, 0.99),
    cpuPerDispatch: (cpu.user + cpu.system) / 1000 / handed,
    wall,
  };
}

/** Per-claim cost over loopback HTTP with `queued` dispatches waiting (kept at that level). */
async function claimCost(queued, claims = 300) {
  const backend = new KairokuBackend({ appToken: TOKEN, target: { repository: REPO, baseBranch: 'main' } });
  const url = await backend.listen('127.0.0.1', 0);
  queueRuns(backend, wide(100), Math.ceil((queued + claims) / 100), `q${queued}`);
  const client = new AppClient(url, TOKEN);
  const hello = {
    runner: 'r',
    machine: 'box',
    version: 'bench',
    repositories: [REPO],
    held: [],
    capacity: { running: 0, max: 100_000 },
  };
  await client.post('heartbeat', hello);
  const times = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < claims; i++) {
    const t0 = performance.now();
    await client.post('claim', { runner: 'r', machine: 'box', repositories: [REPO], free: 1 });
    times.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  client.close();
  await backend.close();
  return { median: median(times), p99: quantile(times, 0.99), cpu: (cpu.user + cpu.system) / 1000 / claims };
}

/** The app's heap and RSS after listing `runs` runs in its store (as the panel's list does). */
async function memoryWith(runs) {
  const home = mkdtempSync(join(tmpdir(), 'kp-bench-home-'));
  try {
    const ir = compile(`version: 1
id: small
title: A small run
steps:
  build: { role: implementer, prompt: Build it }
  qa: { needs: [build], run: [npm test] }
`);
    const host = new RunHost({
      home,
      workspace: '/bench',
      backend: 'sim',
      backendFor: () => new SimBackend(),
    });
    for (let i = 0; i < runs; i++) {
      const state = createRun(ir, {
        id: `small-${i}`,
        inputs: {},
        now: Date.now(),
        backend: 'sim',
        branch: '',
      });
      host.store.save({ ...state, status: 'completed', workspace: '/elsewhere' });
    }
    globalThis.gc?.();
    const t0 = performance.now();
    let listed = host.list().runs;
    const took = performance.now() - t0;
    globalThis.gc?.();
    // While a list of every run is held (a panel request in flight), then once it is let go: the
    // host keeps in memory only the runs it drives.
    const holding = process.memoryUsage();
    const count = listed.length;
    listed = undefined;
    globalThis.gc?.();
    const after = process.memoryUsage();
    host.close();
    return { count, took, heap: after.heapUsed, rss: after.rss, holdingHeap: holding.heapUsed };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

async function main() {
  const tls = makeSelfSigned(['127.0.0.1', 'localhost']);
  // Each measured twice, alternating, the second pair kept: the first warms JIT and TLS code.
  if (WARMUP) {
    await drain(undefined);
    await drain(tls);
  }
  const http = await drain(undefined);
  const secure = await drain(tls);
  for (const [name, r] of [
    ['loopback HTTP (baseline)', http],
    ['TLS, pinned', secure],
  ])
    console.log(
      `${RUNNERS} runners × ${DISPATCHES} dispatches over ${name}: ${r.handed} handed out, run completed: ${r.completed}; ${r.claims} claims, latency median ${ms(r.median)}, p99 ${ms(r.p99)}; app CPU per dispatch ${ms(r.cpuPerDispatch)}; wall ${ms(r.wall)}`,
    );
  console.log(
    `TLS / HTTP: claim median ${ratio(secure.median, http.median)}, p99 ${ratio(secure.p99, http.p99)}, app CPU per dispatch ${ratio(secure.cpuPerDispatch, http.cpuPerDispatch)}`,
  );

  if (DRAIN_ONLY) return;
  const empty = await memoryWith(0);
  const full = await memoryWith(1000);
  const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  console.log(
    `memory, empty store (baseline): heap ${mib(empty.heap)}, rss ${mib(empty.rss)}; with ${full.count} runs in the store: listing them took ${full.took.toFixed(0)} ms, heap ${mib(full.holdingHeap)} while the list is held (+${mib(full.holdingHeap - empty.heap)}), ${mib(full.heap)} after (+${mib(full.heap - empty.heap)}), rss ${mib(full.rss)} (+${mib(full.rss - empty.rss)})${globalThis.gc ? '' : ' (run with --expose-gc for settled figures)'}`,
  );

  await claimCost(100);
  const small = await claimCost(100);
  const large = await claimCost(1000);
  console.log(
    `claim cost, 100 queued (baseline): median ${ms(small.median)}, p99 ${ms(small.p99)}, CPU ${ms(small.cpu)} (app and client: one process); 1,000 queued: median ${ms(large.median)}, p99 ${ms(large.p99)}, CPU ${ms(large.cpu)}; ratio ${ratio(large.median, small.median)} (median), ${ratio(large.cpu, small.cpu)} (CPU)`,
  );
}

if (process.argv.includes('--child')) process.once('message', (work) => void runnerProcess(work));
else await main();
