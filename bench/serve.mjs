#!/usr/bin/env node
// `kairoku-playbook serve` (issue 9, "Speed"), as a real process on 127.0.0.1:
//
//   memory   the serve process's resident memory (VmRSS, and its peak VmHWM, from /proc) with 50
//            active sim runs (each waiting at its gate), against an idle serve of an empty workspace
//   latency  from a request that writes a run file (pause, then resume, of one of the runs) being
//            sent, to the event of that write arriving at a client of GET /api/v1/events: median and
//            p99 over 100 events. It includes the request's own handling (parse, check, write with
//            fsync, rename), so it bounds the write→event time from above.
//
// One active run per workspace is the rule at start, so the 50 runs are written to the store as a
// `serve` killed mid-way would leave them, and the new `serve` takes them up on start (recovery).
// Run after `npm run build`:
//
//   node bench/serve.mjs [EVENTS]
/* global fetch */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, copyFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { compilePlaybook } from '@kairoku-playbook/compiler';
import { RunStore, advance, createRun } from '@kairoku-playbook/runtime';
import { findServe } from '@kairoku-playbook/runtime/serve';

const EVENTS = Number(process.argv[2] ?? 100);
const RUNS = 50;
const repo = new URL('../', import.meta.url).pathname;
const cli = join(repo, 'cli/dist/kairoku-playbook.js');
const work = realpathSync(mkdtempSync(join(tmpdir(), 'kp-bench-serve-')));

function workspace(name, withPlaybook) {
  const dir = join(work, name);
  mkdirSync(join(dir, 'playbooks'), { recursive: true });
  if (withPlaybook) copyFileSync(join(repo, 'playbooks/pr.yml'), join(dir, 'playbooks/pr.yml'));
  return dir;
}

function startServe(ws, home) {
  const child = spawn(process.execPath, [cli, 'serve', ws, '--listen', '127.0.0.1:0'], {
    env: { ...process.env, KAIROKU_PLAYBOOK_HOME: home },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /(http:\/\/127\.0\.0\.1:\d+)\/\?login=(\S+)/.exec(out);
      // (the API token is in serve's discovery file, written before it prints the login URL)
      if (match) resolve({ child, url: match[1], token: findServe(home, realpathSync(ws)).token });
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
}

function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function api(server, method, path, body) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${server.token}`,
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: await response.json() };
}

function events(server) {
  const waiting = [];
  let buffer = '';
  const req = request(`${server.url}/api/v1/events`, {
    headers: { Authorization: `Bearer ${server.token}` },
  });
  const ready = new Promise((resolve) =>
    req.on('response', (res) => {
      res.setEncoding('utf8');
      resolve();
      res.on('data', (chunk) => {
        const at = performance.now();
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!/^event: run$/m.test(block) || !data) continue;
          const run = JSON.parse(data);
          for (const waiter of [...waiting])
            if (waiter.test(run)) {
              waiting.splice(waiting.indexOf(waiter), 1);
              waiter.resolve(at);
            }
        }
      });
    }),
  );
  req.end();
  return {
    ready,
    when: (test) => new Promise((resolve) => waiting.push({ test, resolve })),
    close: () => req.destroy(),
  };
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

try {
  // An idle serve: the baseline.
  const idle = await startServe(workspace('idle', false), join(work, 'home-idle'));
  await sleep(1000);
  const idleMemory = memoryOf(idle.child.pid);
  idle.child.kill('SIGTERM');

  // 50 active runs, left in the store as a killed serve leaves them.
  const ws = workspace('busy', true);
  const home = join(work, 'home-busy');
  const { ir } = compilePlaybook('playbooks/pr.yml', readFileSync(join(ws, 'playbooks/pr.yml'), 'utf8'));
  const store = new RunStore(home);
  const now = Date.now();
  for (let i = 0; i < RUNS; i++) {
    const created = createRun(ir, {
      id: `pr-bench${String(i).padStart(2, '0')}`,
      inputs: { task: `change ${i}`, strict: false, reviewers: 1, target: 'main' },
      now,
    });
    const started = advance(created, { type: 'start' }, now).state;
    store.save({ ...started, workspace: ws, manager: 'kairoku-playbook serve' });
  }
  const busy = await startServe(ws, home);
  const listed = await api(busy, 'GET', '/api/v1/runs');
  const active = listed.body.runs.filter((r) => r.status === 'running' && r.waiting === 1).length;
  if (active !== RUNS) throw new Error(`expected ${RUNS} runs waiting at their gate, found ${active}`);
  await sleep(1000);
  const busyMemory = memoryOf(busy.child.pid);

  const stream = events(busy);
  await stream.ready;
  const latencies = [];
  const answers = [];
  for (let i = 0; i < EVENTS; i++) {
    const id = `pr-bench${String(Math.floor(i / 2) % RUNS).padStart(2, '0')}`;
    const action = i % 2 === 0 ? 'pause' : 'resume';
    const status = action === 'pause' ? 'paused' : 'running';
    const arrived = stream.when((run) => run.id === id && run.status === status);
    const sent = performance.now();
    const answer = await api(busy, 'POST', `/api/v1/runs/${id}/${action}`, {});
    if (answer.status !== 200) throw new Error(`${action} ${id}: ${JSON.stringify(answer.body)}`);
    answers.push(performance.now() - sent);
    latencies.push((await arrived) - sent);
  }
  stream.close();
  busy.child.kill('SIGTERM');

  const round = (x) => Math.round(x * 100) / 100;
  const result = {
    idle: { rssMiB: round(idleMemory.rssMiB), peakMiB: round(idleMemory.peakMiB) },
    [`with${RUNS}ActiveRuns`]: { rssMiB: round(busyMemory.rssMiB), peakMiB: round(busyMemory.peakMiB) },
    perRunKiB: round(((busyMemory.rssMiB - idleMemory.rssMiB) * 1024) / RUNS),
    events: EVENTS,
    requestToEventMs: { median: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) },
    requestToAnswerMs: { median: round(percentile(answers, 50)), p99: round(percentile(answers, 99)) },
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  rmSync(work, { recursive: true, force: true });
}
