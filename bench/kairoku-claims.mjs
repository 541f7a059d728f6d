#!/usr/bin/env node
// The Kairoku backend's queue under a fleet (issue 5, "Speed"): one runtime serves 20 runners (HTTP
// clients on loopback, in a worker thread of their own so that they do not share the server's event
// loop) claiming from 50 concurrent runs until every run has completed; claim latency (median, p99) is
// the round trip as a runner sees it. Then the per-claim cost with 5 and with
// 50 runs' steps queued, as a ratio: a claim looks only at the lanes of its runner's repository, so
// the ratio stays near 1 however many runs are queued. Run after `npx tsc -b`:
//
//   node bench/kairoku-claims.mjs [--runs 50] [--runners 20]
/* global fetch */
import { performance } from 'node:perf_hooks';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { KairokuBackend } from '../runtime/dist/backends/kairoku/index.js';
import { REPO, TOKEN, arg, compile, median, ms, quantile, queueRuns } from './kairoku-support.mjs';

const RUNS = arg('runs', 50);
const RUNNERS = arg('runners', 20);

// Check steps only: a runner reports their result in its terminal update, so no agent is needed.
const FLEET = compile(`version: 1
id: fleet
title: Fan out and in
steps:
  prepare: { run: [make prepare] }
${[1, 2, 3, 4].map((i) => `  part${i}: { needs: [prepare], run: [make part${i}] }`).join('\n')}
  finish: { needs: [part1, part2, part3, part4], run: [make finish] }
`);
const WIDE = compile(`version: 1
id: wide
title: Many ready steps
steps:
${Array.from({ length: 60 }, (_, i) => `  s${i}: { run: [make s${i}] }`).join('\n')}
`);

async function post(url, route, body) {
  const response = await fetch(`${url}/v1/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (response.status !== 200) throw new Error(`${route}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

async function fleet() {
  const backend = new KairokuBackend({
    appToken: TOKEN,
    target: { repository: REPO, baseBranch: 'main' },
    heartbeatIntervalMs: 1000,
    missLimit: 30,
  });
  const url = await backend.listen('127.0.0.1', 0);
  // Compile the protocol's validators before the clock starts (they compile on first use).
  backend.handle('heartbeat', {
    runner: 'warm',
    machine: 'box',
    version: 'bench',
    repositories: [REPO],
    held: [],
    capacity: { running: 0, max: 0 },
  });
  await post(url, 'drain-ack', { runner: 'warm', held: [] });
  const drivers = queueRuns(backend, FLEET, RUNS);
  const worker = new Worker(new URL(import.meta.url), { workerData: { url, runners: RUNNERS } });
  const started = performance.now();
  const watch = setInterval(() => {
    if (drivers.every((d) => d.state.status !== 'running')) worker.postMessage('done');
  }, 5);
  const { latencies, handing } = await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  clearInterval(watch);
  const wall = performance.now() - started;
  const completed = drivers.filter((d) => d.state.status === 'completed').length;
  const dispatched = backend.dispatches().length;
  await backend.close();
  return { latencies, handing, wall, completed, dispatched };
}

/** The worker: 20 runners heartbeat, claim one dispatch at a time and report it done. */
async function runners({ url, runners: count }) {
  let done = false;
  parentPort.on('message', () => (done = true));
  const latencies = [];
  const handing = [];
  await Promise.all(
    Array.from({ length: count }, async (_, n) => {
      const runner = `runner-${n}`;
      const machine = `box-${n}`;
      const hello = {
        runner,
        machine,
        version: 'bench',
        repositories: [REPO],
        held: [],
        capacity: { running: 0, max: 1 },
      };
      await post(url, 'heartbeat', hello);
      let beat = performance.now();
      while (!done) {
        if (performance.now() - beat > 500) {
          await post(url, 'heartbeat', hello);
          beat = performance.now();
        }
        const t0 = performance.now();
        const { dispatches } = await post(url, 'claim', { runner, machine, repositories: [REPO], free: 1 });
        const took = performance.now() - t0;
        latencies.push(took);
        if (!dispatches.length) {
          await new Promise((resolve) => setTimeout(resolve, 2));
          continue;
        }
        handing.push(took);
        for (const d of dispatches) {
          const check = {
            outcome: 'pass',
            passed: 1,
            failed: 0,
            skipped: 0,
            todo: 0,
            exit_code: 0,
            summary: 'ok',
          };
          await post(url, 'update', {
            runner,
            dispatch: d.id,
            seq: 1,
            events: [{ at: new Date().toISOString(), kind: 'status', text: 'ended: completed' }],
            terminal: { status: 'completed', exitCode: 0, check },
          });
        }
      }
    }),
  );
  parentPort.postMessage({ latencies, handing });
}

/** Per-claim cost with `runs` runs' steps queued: over HTTP, and the handler alone (in process). */
async function perClaim(runs, claims) {
  const backend = new KairokuBackend({ appToken: TOKEN, target: { repository: REPO, baseBranch: 'main' } });
  const url = await backend.listen('127.0.0.1', 0);
  queueRuns(backend, WIDE, runs);
  const queued = backend.queued();
  const hello = {
    machine: 'box',
    version: 'bench',
    repositories: [REPO],
    held: [],
    capacity: { running: 0, max: 1000 },
  };
  await post(url, 'heartbeat', { runner: 'http', ...hello });
  backend.handle('heartbeat', { runner: 'direct', ...hello });
  const http = [];
  const direct = [];
  for (let i = 0; i < claims; i++) {
    const t0 = performance.now();
    await post(url, 'claim', { runner: 'http', machine: 'box', repositories: [REPO], free: 1 });
    http.push(performance.now() - t0);
    const t1 = performance.now();
    backend.handle('claim', { runner: 'direct', machine: 'box', repositories: [REPO], free: 1 });
    direct.push(performance.now() - t1);
  }
  await backend.close();
  return { queued, http: quantile(http, 0.5), direct: quantile(direct, 0.5) };
}

if (!isMainThread) await runners(workerData);
else await main();

async function main() {
  const result = await fleet();
  console.log(
    `fleet: ${RUNNERS} runners, ${RUNS} runs: ${result.completed}/${RUNS} completed, ${result.dispatched} dispatches in ${result.wall.toFixed(0)} ms`,
  );
  console.log(
    `  claim latency over loopback (all ${result.latencies.length} claims): median ${ms(quantile(result.latencies, 0.5))}, p99 ${ms(quantile(result.latencies, 0.99))}`,
  );
  console.log(
    `  claims that handed out a dispatch (${result.handing.length}): median ${ms(quantile(result.handing, 0.5))}, p99 ${ms(quantile(result.handing, 0.99))}`,
  );

  // Warm up both paths once, then measure; the order alternates so drift falls on both alike.
  await perClaim(5, 100);
  const rounds = [];
  for (let round = 0; round < 3; round++) {
    const pair =
      round % 2
        ? [await perClaim(50, 250), await perClaim(5, 250)].reverse()
        : [await perClaim(5, 250), await perClaim(50, 250)];
    rounds.push(pair);
  }
  const small = {
    queued: rounds[0][0].queued,
    http: median(rounds.map((r) => r[0].http)),
    direct: median(rounds.map((r) => r[0].direct)),
  };
  const large = {
    queued: rounds[0][1].queued,
    http: median(rounds.map((r) => r[1].http)),
    direct: median(rounds.map((r) => r[1].direct)),
  };
  console.log(
    `per-claim cost, 5 runs queued (${small.queued} dispatches) vs 50 runs queued (${large.queued}):`,
  );
  console.log(
    `  over HTTP: ${ms(small.http)} vs ${ms(large.http)}, ratio ×${(large.http / small.http).toFixed(2)}`,
  );
  console.log(
    `  the claim handler alone: ${ms(small.direct)} vs ${ms(large.direct)}, ratio ×${(large.direct / small.direct).toFixed(2)}`,
  );
  if (result.completed !== RUNS) process.exitCode = 1;
}
