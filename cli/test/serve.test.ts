import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { serveInfoPath } from '@kairoku-playbook/runtime/serve';
import {
  callServe,
  CLI,
  removeTempDirs,
  runCli,
  startServe as startServeProcess,
  tempDir,
  workspaceWith,
} from '../../test/kit/index.js';
import type { RunDetail, StartAnswer } from '@kairoku-playbook/runtime/serve';

/**
 * `kairoku-playbook serve` as a user runs it: a real process, real HTTP on 127.0.0.1. The kill test:
 * a gate decision the API acknowledged survives `kill -9` of the server; the next serve takes the run
 * up again with its next gate open.
 */

const TWO_GATES = `version: 1
id: twogates
title: Two gates
steps:
  build:
    role: implementer
    prompt: Build it
  first:
    needs: [build]
    gate:
      title: First?
      choices:
        approve: { comment: required, then: next }
        reject: fail
  second:
    needs: [first]
    gate:
      title: Second?
      choices:
        approve: next
        reject: fail
`;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  removeTempDirs();
});

/** Starts serve (the test kit's); its child is killed after the test. */
async function startServe(workspace: string, home: string) {
  const served = await startServeProcess({ workspace, home });
  children.push(served.child);
  return served;
}

function workspaceWithPlaybook(): string {
  return workspaceWith({ 'playbooks/twogates.yml': TWO_GATES }, 'serve-ws-');
}

describe('kairoku-playbook serve', () => {
  it('loses no acknowledged gate decision to kill -9; the next serve shows the next gate open', async () => {
    const workspace = workspaceWithPlaybook();
    const home = tempDir('serve-home-');
    const first = await startServe(workspace, home);
    const info = serveInfoPath(home, workspace);
    expect(existsSync(info)).toBe(true);
    expect(statSync(info).mode & 0o777).toBe(0o600);

    const started = await callServe<StartAnswer>(first, '/api/v1/runs', {
      playbook: 'playbooks/twogates.yml',
      inputs: {},
    });
    expect(started.status).toBe(201);
    const id = started.body.run.id;
    const decided = await callServe<RunDetail>(first, `/api/v1/runs/${id}/gates/first`, {
      choice: 'approve',
      comment: 'looks right',
    });
    expect(decided.status).toBe(200);
    // Acknowledged: now the process dies without a chance to write anything more.
    first.child.kill('SIGKILL');
    await first.exited;
    // The discovery file is stale (its process is gone): the next serve starts anyway.
    const second = await startServe(workspace, home);
    expect(second.token).not.toBe(first.token);
    const detail = await callServe<RunDetail>(second, `/api/v1/runs/${id}`);
    expect(detail.body.run.status).toBe('running');
    const gate = detail.body.steps.find((s) => s.name === 'first')!;
    expect(gate).toMatchObject({ status: 'completed', outcome: 'approve' });
    expect(gate.attempts).toMatchObject([{ outcome: 'approve', comment: 'looks right' }]);
    expect(detail.body.steps.find((s) => s.name === 'second')).toMatchObject({ status: 'waiting' });
    // The first token no longer opens anything.
    expect((await callServe({ url: second.url, token: first.token }, '/api/v1/runs')).status).toBe(401);
    // The run goes on under the new serve.
    const ended = await callServe<RunDetail>(second, `/api/v1/runs/${id}/gates/second`, {
      choice: 'approve',
    });
    expect(ended.body.run.status).toBe('completed');

    // Stopped politely, serve removes its discovery file.
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(existsSync(info)).toBe(false);
  });

  it('prints a new login URL for another browser (serve --login-url); each logs one browser in, once', async () => {
    const workspace = workspaceWithPlaybook();
    const home = tempDir('serve-home-');
    const served = await startServe(workspace, home);
    expect(served.login).not.toContain(served.token);
    const printed = runCli(['serve', workspace, '--login-url'], { home });
    expect(printed.status).toBe(0);
    const another = printed.stdout.trim();
    expect(another).toMatch(new RegExp(`^${served.url}/\\?login=[A-Za-z0-9_-]+$`));
    expect(another).not.toBe(served.login);
    for (const url of [served.login, another]) {
      expect((await fetch(url, { redirect: 'manual' })).status).toBe(303);
      expect((await fetch(url, { redirect: 'manual' })).status).toBe(401);
    }
    // No serve for a folder: says so.
    const none = runCli(['serve', tempDir('serve-none-'), '--login-url'], { home });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/no serve runs for .*start one with kairoku-playbook serve/);
  });

  it('refuses a second serve of the same workspace while one runs', async () => {
    const workspace = workspaceWithPlaybook();
    const home = tempDir('serve-home-');
    const first = await startServe(workspace, home);
    await expect(startServe(workspace, home)).rejects.toThrow(/already serves/);
    first.child.kill('SIGTERM');
    await first.exited;
  });

  it('`run` and `runs pause|resume` go through the serve of the workspace when one is up', async () => {
    const workspace = workspaceWithPlaybook();
    const home = tempDir('serve-home-');
    const server = await startServe(workspace, home);
    const env = { ...process.env, KAIROKU_PLAYBOOK_HOME: home };
    const run = spawn(process.execPath, [CLI, 'run', 'playbooks/twogates.yml'], {
      cwd: workspace,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(run);
    let out = '';
    run.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const runExit = new Promise<number | null>((resolve) => run.on('exit', (code) => resolve(code)));
    // The run is started by the serve: it shows in its API, waiting at its first gate.
    let id: string | undefined;
    while (id === undefined) {
      const runs = await callServe<{ runs: { id: string; waiting: number }[] }>(server, '/api/v1/runs');
      id = runs.body.runs.find((r) => r.waiting === 1)?.id;
      if (id === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    const cliOf = (...args: string[]) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, ...args], { cwd: workspace, env });
        let text = '';
        child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
        child.on('exit', (code) => resolve({ code, out: text }));
      });
    expect(await cliOf('runs', 'pause', id)).toEqual({
      code: 0,
      out: `run ${id} paused (through serve at ${server.url})\n`,
    });
    const refused = await cliOf('runs', 'pause', id);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/the run is not running \(it is paused\)/);
    expect((await cliOf('runs', 'resume', id)).code).toBe(0);
    await callServe(server, `/api/v1/runs/${id}/gates/first`, {
      choice: 'approve',
      comment: 'ok',
    });
    await callServe(server, `/api/v1/runs/${id}/gates/second`, {
      choice: 'approve',
    });
    expect(await runExit).toBe(0);
    expect(out).toContain(`run ${id} started on the serve of this workspace (${server.url})`);
    expect(out).toContain(`run ${id} completed`);
    server.child.kill('SIGTERM');
    await server.exited;
  });
});
