#!/usr/bin/env node
// serve's workspace (issue 22, item 2): over a workspace of 50 playbooks, in-process, on 127.0.0.1:
//
//   reads   playbook files opened per Start (POST /api/v1/runs) and per GET /api/v1/playbooks: every
//           `open` of a `.yml` file under the workspace, counted by wrapping node:fs's openSync (the one
//           the bounded read uses), so the same script counts any version of serve
//   time    GET /api/v1/playbooks, median and p90 of 30, after a warm-up
//
// Run after `npm run build`: node bench/serve-workspace.mjs
/* global fetch */
import fs, { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const repo = new URL('../', import.meta.url).pathname;
const { startServe } = await import(join(repo, 'runtime/dist/serve/server.js'));
const { RunHost } = await import(join(repo, 'runtime/dist/host/run-host.js'));
const { simBackendFor } = await import(join(repo, 'runtime/dist/serve/backends.js'));

const PLAYBOOKS = 50;
const work = realpathSync(mkdtempSync(join(tmpdir(), 'kp-bench-ws-')));
const root = join(work, 'ws');
const home = join(work, 'home');
mkdirSync(join(root, 'playbooks'), { recursive: true });
mkdirSync(home);
const steps = Array.from(
  { length: 12 },
  (_, i) =>
    `  s${i}:\n    role: implementer\n${i ? `    needs: [s${i - 1}]\n` : ''}    prompt: Do part ${i} of {{ inputs.task }}.\n`,
).join('');
for (let n = 0; n < PLAYBOOKS; n++)
  writeFileSync(
    join(root, 'playbooks', `p${n}.yml`),
    `version: 1\nid: p${n}\ntitle: Playbook ${n}\ninputs:\n  task: { type: string }\nsteps:\n${steps}`,
  );

let opened = 0;
const openSync = fs.openSync;
fs.openSync = (path, ...rest) => {
  if (String(path).startsWith(root) && /\.ya?ml$/.test(String(path))) opened++;
  return openSync(path, ...rest);
};
syncBuiltinESMExports();

const host = new RunHost({ home, workspace: root, backend: 'sim', backendFor: simBackendFor(undefined) });
host.recover();
const serve = await startServe({ host, listen: { host: '127.0.0.1', port: 0 } });
const api = (path, body) =>
  fetch(`${serve.url}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: {
      Authorization: `Bearer ${serve.token}`,
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  }).then(async (r) => ({ status: r.status, body: await r.json() }));

await api('/api/v1/playbooks');
await new Promise((resolve) => setTimeout(resolve, 300)); // (the first load and its watch settle)

opened = 0;
const started = await api('/api/v1/runs', { playbook: 'playbooks/p3.yml', inputs: { task: 'x' } });
const readsPerStart = opened;

const times = [];
opened = 0;
for (let i = 0; i < 30; i++) {
  const t = performance.now();
  const answer = await api('/api/v1/playbooks');
  times.push(performance.now() - t);
  if (answer.body.playbooks.length !== PLAYBOOKS) throw new Error('not every playbook listed');
}
const readsPerList = opened / 30;
times.sort((a, b) => a - b);
await serve.close();
host.close();
rmSync(work, { recursive: true, force: true });
const ms = (x) => Math.round(x * 10) / 10;
console.log(
  JSON.stringify({
    playbooks: PLAYBOOKS,
    startStatus: started.status,
    readsPerStart,
    readsPerGetPlaybooks: readsPerList,
    getPlaybooksMs: { median: ms(times[15]), p90: ms(times[27]) },
  }),
);
