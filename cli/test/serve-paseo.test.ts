/**
 * `kairoku-playbook serve --backend paseo` as a user runs it (the built CLI, a real process, real HTTP
 * on 127.0.0.1) against the fake Paseo daemon of the runtime's tests, served in this process. The kill
 * test: a run started through serve's API, serve killed with SIGKILL while the step's agent works, a
 * new serve takes the run up and adopts the agent the daemon still has, and the run completes.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PlaybooksAnswer, RunDetail, StartAnswer } from '@kairoku-playbook/runtime/serve';
import { FakePaseoDaemon, reports, runsUntilCanceled } from '../../runtime/test/fake-paseo/index.js';
import type { Scripts } from '../../runtime/test/fake-paseo/index.js';
import { makeRepo, removeRepo } from '../../runtime/test/fake-paseo/harness.js';

const cli = new URL('../dist/kairoku-playbook.js', import.meta.url).pathname;

const RELAY = `version: 1
id: relay
title: Relay
steps:
  work:
    role: implementer
    prompt: Do the work
    retries: 1
  ship:
    needs: [work]
    gate:
      title: Ship it?
      choices: { approve: next, reject: fail }
`;

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

interface Serving {
  child: ChildProcess;
  url: string;
  token: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startServe(workspace: string, home: string, extra: string[]): Promise<Serving> {
  const env: NodeJS.ProcessEnv = { ...process.env, KAIROKU_PLAYBOOK_HOME: home };
  delete env.PASEO_PASSWORD;
  delete env.PASEO_HOST;
  const child = spawn(
    process.execPath,
    [cli, 'serve', workspace, '--listen', '127.0.0.1:0', '--backend', 'paseo', ...extra],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /open (http:\/\/127\.0\.0\.1:\d+)\/\?token=(\S+)/.exec(out);
      if (match) resolve({ child, url: match[1]!, token: match[2]!, stderr: () => err, exited });
    });
    child.on('exit', (code) => reject(new Error(`serve exited (${code}) before it listened: ${err}`)));
  });
}

async function call<T>(serving: Serving, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${serving.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      Authorization: `Bearer ${serving.token}`,
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as T };
}

async function setUp(scripts: Scripts) {
  const daemon = await FakePaseoDaemon.start({ scripts });
  const { root, repo } = makeRepo();
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'serve-paseo-home-')));
  cleanups.push(async () => {
    await daemon.close();
    removeRepo(root);
    rmSync(home, { recursive: true, force: true });
  });
  mkdirSync(join(repo, 'playbooks'));
  writeFileSync(join(repo, 'playbooks', 'relay.yml'), RELAY);
  return { daemon, workspace: realpathSync(repo), home };
}

const step = (detail: RunDetail, name: string) => detail.steps.find((s) => s.name === name)!;

describe('kairoku-playbook serve --backend paseo', () => {
  it('adopts a Paseo agent that outlived kill -9 of serve, and the run completes', async () => {
    const { daemon, workspace, home } = await setUp({
      work: [runsUntilCanceled({ outcome: 'done' }), reports('done')],
    });
    const flags = ['--paseo-host', daemon.host];
    const first = await startServe(workspace, home, flags);

    // The start form offers the provider and model of steps that name none, and a worktree.
    const cards = await call<PlaybooksAnswer>(first, '/api/v1/playbooks');
    expect(cards.body.playbooks[0]!.startOptions).toEqual({
      newAgent: false,
      worktree: true,
      agents: { defaultProvider: 'claude' },
    });
    const started = await call<StartAnswer>(first, '/api/v1/runs', {
      playbook: 'playbooks/relay.yml',
      inputs: {},
      options: { provider: 'codex', model: 'gpt-test', worktree: true },
    });
    expect(started.status).toBe(201);
    const id = started.body.run.id;
    const branch = `playbooks/relay-${id.slice(-6)}`;

    // The step's agent works (its turn is held); serve has recorded it before it dies.
    await vi.waitFor(
      async () => {
        const detail = await call<RunDetail>(first, `/api/v1/runs/${id}`);
        expect(step(detail.body, 'work')).toMatchObject({ status: 'running' });
        expect(daemon.agentOf('work', 1)?.status).toBe('running');
        expect(JSON.stringify(step(detail.body, 'work').attempts)).toContain(daemon.agentOf('work', 1)!.id);
      },
      { timeout: 20_000, interval: 50 },
    );
    const agent = daemon.agentOf('work', 1)!;
    expect(agent).toMatchObject({ provider: 'codex', model: 'gpt-test' });
    // A worktree of its own, on the run's branch: not the workspace.
    expect(realpathSync(agent.cwd)).not.toBe(workspace);
    expect(
      execFileSync('git', ['branch', '--show-current'], { cwd: agent.cwd, encoding: 'utf8' }).trim(),
    ).toBe(branch);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startServe(workspace, home, flags);
    expect(second.stderr()).toContain(`took up 1 active run(s): ${id}`);
    // Adopted: the attempt is still running, not lost.
    const taken = await call<RunDetail>(second, `/api/v1/runs/${id}`);
    expect(step(taken.body, 'work')).toMatchObject({ status: 'running' });
    expect(step(taken.body, 'work').attempts).toHaveLength(1);
    expect(daemon.agentOf('work', 2)).toBeUndefined();

    // The agent's turn ends. Its report token died with the killed serve, so its report cannot land;
    // the lost-agent rule retries the step, on the same provider and model, and the retry reports.
    daemon.release(agent.id);
    await vi.waitFor(
      async () => {
        const detail = await call<RunDetail>(second, `/api/v1/runs/${id}`);
        expect(step(detail.body, 'ship')).toMatchObject({ status: 'waiting' });
      },
      { timeout: 20_000, interval: 50 },
    );
    // The retry works in the same worktree (taken up again by its branch, not made twice).
    expect(daemon.agentOf('work', 2)).toMatchObject({ provider: 'codex', model: 'gpt-test', cwd: agent.cwd });
    const retried = await call<RunDetail>(second, `/api/v1/runs/${id}`);
    expect(step(retried.body, 'work').attempts).toMatchObject([
      { attempt: 1, agent: agent.id, ended: 'lost' },
      { attempt: 2, outcome: 'done' },
    ]);
    const decided = await call<RunDetail>(second, `/api/v1/runs/${id}/gates/ship`, { choice: 'approve' });
    expect(decided.body.run.status).toBe('completed');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('refuses options the backend does not have and values that do not fit; `run` goes through it on paseo', async () => {
    const { daemon, workspace, home } = await setUp({ work: [reports('done')] });
    const serving = await startServe(workspace, home, ['--paseo-host', daemon.host]);
    const bad = await call<{ refusal: { code: string; field?: string } }>(serving, '/api/v1/runs', {
      playbook: 'playbooks/relay.yml',
      inputs: {},
      options: { provider: 'no spaces allowed' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.refusal.field).toBe('/options/provider');
    const newAgent = await call<{ refusal: { code: string } }>(serving, '/api/v1/runs', {
      playbook: 'playbooks/relay.yml',
      inputs: {},
      options: { newAgent: true },
    });
    expect(newAgent).toMatchObject({ status: 422, body: { refusal: { code: 'option-unsupported' } } });

    // `run` in the workspace goes through serve, on serve's backend; another backend is refused.
    const env = { ...process.env, KAIROKU_PLAYBOOK_HOME: home };
    const cliOf = (...args: string[]) => {
      const child = spawn(process.execPath, [cli, ...args], { cwd: workspace, env });
      children.push(child);
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
      return new Promise<{ code: number | null; out: string }>((resolve) =>
        child.on('exit', (code) => resolve({ code, out: text })),
      );
    };
    const sim = await cliOf('run', 'playbooks/relay.yml', '--backend', 'sim');
    expect(sim.code).toBe(2);
    expect(sim.out).toContain("drives this workspace's runs on paseo: run it with --backend paseo");
    const flagged = await cliOf('run', 'playbooks/relay.yml', '--paseo-host', daemon.host);
    expect(flagged.code).toBe(2);
    expect(flagged.out).toContain('--paseo-host does not apply while kairoku-playbook serve');
    const running = cliOf('run', 'playbooks/relay.yml', '--backend', 'paseo');
    let id: string | undefined;
    await vi.waitFor(
      async () => {
        const runs = await call<{ runs: { id: string; waiting: number }[] }>(serving, '/api/v1/runs');
        id = runs.body.runs.find((r) => r.waiting === 1)?.id;
        expect(id).toBeDefined();
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(daemon.agentOf('work', 1)).toBeDefined();
    await call(serving, `/api/v1/runs/${id}/gates/ship`, { choice: 'approve' });
    const ran = await running;
    expect(ran.code).toBe(0);
    expect(ran.out).toContain(`run ${id} completed`);
    serving.child.kill('SIGTERM');
    await serving.exited;
  });

  it('says so and stops when the daemon cannot be reached', async () => {
    const { workspace, home } = await setUp({});
    await expect(startServe(workspace, home, ['--paseo-host', '127.0.0.1:1'])).rejects.toThrow(
      /serve --backend paseo: /,
    );
  });
});
