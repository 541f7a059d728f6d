/**
 * `kairoku-playbook serve --backend paseo` as a user runs it (the built CLI, a real process, real HTTP
 * on 127.0.0.1) against the fake Paseo daemon of the runtime's tests, served in this process. The kill
 * test: a run started through serve's API, serve killed with SIGKILL while the step's agent works, a
 * new serve takes the run up and adopts the agent the daemon still has, the agent's report lands
 * through the address and token it was given, and the run completes.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PlaybooksAnswer, RunDetail, StartAnswer } from '@kairoku-playbook/runtime/serve';
import {
  callServe,
  CLI,
  FakePaseoDaemon,
  gitRepo,
  relayPlaybook,
  removeDir,
  reports,
  runsUntilCanceled,
  startPaseoServe,
  tempDir,
} from '../../test/kit/index.js';
import type { FakeAgent, Scripts, ServeProcess } from '../../test/kit/index.js';

const RELAY = relayPlaybook({ retries: 1, gate: true });

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setUp(scripts: Scripts) {
  const daemon = await FakePaseoDaemon.start({ scripts });
  const root = tempDir('kp-paseo-');
  const repo = gitRepo({ dir: join(root, 'repo') });
  const home = tempDir('serve-paseo-home-');
  cleanups.push(async () => {
    await daemon.close();
    removeDir(root);
    rmSync(home, { recursive: true, force: true });
  });
  mkdirSync(join(repo, 'playbooks'));
  writeFileSync(join(repo, 'playbooks', 'relay.yml'), RELAY);
  return { daemon, workspace: realpathSync(repo), home };
}

const step = (detail: RunDetail, name: string) => detail.steps.find((s) => s.name === name)!;

/** The report endpoint a step agent was given: its address and bearer token. */
function mcpOf(agent: FakeAgent): { url: string; authorization: string } {
  const server = (
    agent.config.mcpServers as Record<string, { url: string; headers: Record<string, string> }>
  )['kairoku-playbook']!;
  return { url: server.url, authorization: server.headers.Authorization! };
}

/** A call to the report endpoint with an agent's token, on a connection of its own. */
function report(agent: FakeAgent): Promise<{ status: number; text: string }> {
  const { url, authorization } = mcpOf(agent);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          authorization,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'report_step_result', arguments: { outcome: 'done' } },
      }),
    );
  });
}

describe('kairoku-playbook serve --backend paseo', () => {
  /** Starts the relay through the API and waits until `work`'s agent works (its turn held). */
  async function untilWorking(serving: ServeProcess, daemon: FakePaseoDaemon) {
    const started = await call<StartAnswer>(serving, '/api/v1/runs', {
      playbook: 'playbooks/relay.yml',
      inputs: {},
      options: { provider: 'codex', model: 'gpt-test', worktree: true },
    });
    expect(started.status).toBe(201);
    const id = started.body.run.id;
    // serve has recorded the agent before it dies.
    await vi.waitFor(
      async () => {
        const detail = await call<RunDetail>(serving, `/api/v1/runs/${id}`);
        expect(step(detail.body, 'work')).toMatchObject({ status: 'running' });
        expect(daemon.agentOf('work', 1)?.status).toBe('running');
        expect(JSON.stringify(step(detail.body, 'work').attempts)).toContain(daemon.agentOf('work', 1)!.id);
      },
      { timeout: 20_000, interval: 50 },
    );
    return { id, agent: daemon.agentOf('work', 1)! };
  }

  it('adopts a Paseo agent that outlived kill -9 of serve, whose report then lands, and the run completes', async () => {
    const { daemon, workspace, home } = await setUp({
      plan: [reports('done')],
      work: [runsUntilCanceled({ outcome: 'done' }), reports('done')],
    });
    const flags = ['--paseo-host', daemon.host];
    const first = await startServe(workspace, home, flags);

    // The start form offers the provider and model of steps that name none, and a worktree.
    const cards = await call<PlaybooksAnswer>(first, '/api/v1/playbooks');
    expect(cards.body.playbooks[0]!.startOptions).toEqual({
      newAgent: true,
      currentAgent: true,
      worktree: true,
      agents: { defaultProvider: 'claude' },
    });
    const { id, agent } = await untilWorking(first, daemon);
    const branch = `playbooks/relay-${id.slice(-6)}`;
    expect(agent).toMatchObject({ provider: 'codex', model: 'gpt-test' });
    // A worktree of its own, on the run's branch: not the workspace.
    expect(realpathSync(agent.cwd)).not.toBe(workspace);
    expect(
      execFileSync('git', ['branch', '--show-current'], { cwd: agent.cwd, encoding: 'utf8' }).trim(),
    ).toBe(branch);
    const planned = daemon.agentOf('plan', 1)!;
    first.child.kill('SIGKILL');
    await first.exited;

    // A new serve, on another --listen port: the report endpoint is at the port the first one kept.
    const second = await startServe(workspace, home, flags);
    expect(second.stderr()).toContain(`took up 1 active run(s): ${id}`);
    expect(second.url).not.toBe(first.url);
    // Adopted: the attempt is still running, not lost.
    const taken = await call<RunDetail>(second, `/api/v1/runs/${id}`);
    expect(step(taken.body, 'work')).toMatchObject({ status: 'running' });
    expect(step(taken.body, 'work').attempts).toHaveLength(1);
    // The token of an attempt that ended (plan's, which reported) is still refused after the restart.
    expect(await report(planned)).toMatchObject({ status: 401 });

    // The agent's turn ends: it reports through the address and token it was given, and the report lands.
    daemon.release(agent.id);
    await vi.waitFor(
      async () => {
        const detail = await call<RunDetail>(second, `/api/v1/runs/${id}`);
        expect(step(detail.body, 'ship')).toMatchObject({ status: 'waiting' });
      },
      { timeout: 20_000, interval: 50 },
    );
    await daemon.quiet();
    expect(daemon.reports.filter((r) => r.step === 'work')).toMatchObject([
      { agentId: agent.id, attempt: 1, refused: false },
    ]);
    expect(daemon.agentOf('work', 2)).toBeUndefined();
    const reported = await call<RunDetail>(second, `/api/v1/runs/${id}`);
    expect(step(reported.body, 'work').attempts).toMatchObject([
      { attempt: 1, agent: agent.id, outcome: 'done' },
    ]);
    // Its token was revoked with the report: a replay is refused.
    expect(await report(agent)).toMatchObject({ status: 401, text: expect.stringMatching(/revoked/) });
    const decided = await call<RunDetail>(second, `/api/v1/runs/${id}/gates/ship`, { choice: 'approve' });
    expect(decided.body.run.status).toBe('completed');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('loses an adopted agent, saying why, when its report port was taken meanwhile; the retry completes', async () => {
    const { daemon, workspace, home } = await setUp({
      plan: [reports('done')],
      work: [runsUntilCanceled({ outcome: 'done' }), reports('done')],
    });
    const flags = ['--paseo-host', daemon.host];
    const first = await startServe(workspace, home, flags);
    const { id, agent } = await untilWorking(first, daemon);
    first.child.kill('SIGKILL');
    await first.exited;
    // Another program takes the port the agent reports to (it hangs up on what comes).
    const port = Number(new URL(mcpOf(agent).url).port);
    const kept = readdirSync(join(home, 'serve')).filter((name) => name.endsWith('.reports.json'));
    expect(kept.map((name) => JSON.parse(readFileSync(join(home, 'serve', name), 'utf8')))).toEqual([
      { port },
    ]);
    const squatter = createNetServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => squatter.close(() => resolve())));

    const second = await startServe(workspace, home, flags);
    expect(second.stderr()).toContain(`could not listen on port ${port} again (taken)`);
    daemon.release(agent.id);
    await vi.waitFor(
      async () => {
        const detail = await call<RunDetail>(second, `/api/v1/runs/${id}`);
        expect(step(detail.body, 'ship')).toMatchObject({ status: 'waiting' });
      },
      { timeout: 20_000, interval: 50 },
    );
    // The retry works in the same worktree (taken up again by its branch, not made twice), on the
    // same provider and model, and reports to the new port.
    expect(daemon.agentOf('work', 2)).toMatchObject({ provider: 'codex', model: 'gpt-test', cwd: agent.cwd });
    const retried = await call<RunDetail>(second, `/api/v1/runs/${id}`);
    expect(step(retried.body, 'work').attempts).toMatchObject([
      { attempt: 1, agent: agent.id, ended: 'lost' },
      { attempt: 2, outcome: 'done' },
    ]);
    const lost = await call<{ history: { text: string }[] }>(second, `/api/v1/runs/${id}`);
    expect(JSON.stringify(lost.body)).toContain(
      `it reports to port ${port}, and the report endpoint listens on`,
    );
    const decided = await call<RunDetail>(second, `/api/v1/runs/${id}/gates/ship`, { choice: 'approve' });
    expect(decided.body.run.status).toBe('completed');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it("adopts a read-only role's agent after kill -9 of serve: its snapshot was kept, its report is checked and lands", async () => {
    const { daemon, workspace, home } = await setUp({
      plan: [runsUntilCanceled({ outcome: 'done' })],
      work: [reports('done')],
    });
    writeFileSync(
      join(workspace, 'playbooks', 'relay.yml'),
      RELAY.replace('role: implementer', 'role: planner'),
    );
    const flags = ['--paseo-host', daemon.host];
    const first = await startServe(workspace, home, flags);
    const started = await call<StartAnswer>(first, '/api/v1/runs', {
      playbook: 'playbooks/relay.yml',
      inputs: {},
    });
    const id = started.body.run.id;
    await vi.waitFor(
      async () => {
        const detail = await call<RunDetail>(first, `/api/v1/runs/${id}`);
        expect(JSON.stringify(step(detail.body, 'plan').attempts)).toContain(
          daemon.agentOf('plan', 1)?.id ?? '?',
        );
      },
      { timeout: 20_000, interval: 50 },
    );
    const agent = daemon.agentOf('plan', 1)!;
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startServe(workspace, home, flags);
    expect(second.stderr()).toContain(`took up 1 active run(s): ${id}`);
    daemon.release(agent.id);
    await vi.waitFor(
      async () => {
        const detail = await call<RunDetail>(second, `/api/v1/runs/${id}`);
        expect(step(detail.body, 'ship')).toMatchObject({ status: 'waiting' });
      },
      { timeout: 20_000, interval: 50 },
    );
    await daemon.quiet();
    expect(daemon.reports.filter((r) => r.step === 'plan')).toMatchObject([
      { agentId: agent.id, refused: false },
    ]);
    const detail = await call<RunDetail>(second, `/api/v1/runs/${id}`);
    expect(step(detail.body, 'plan').attempts).toMatchObject([
      { attempt: 1, agent: agent.id, outcome: 'done' },
    ]);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('refuses options the backend does not have and values that do not fit; `run` goes through it on paseo', async () => {
    const { daemon, workspace, home } = await setUp({ plan: [reports('done')], work: [reports('done')] });
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
      options: { newAgent: 'yes' },
    });
    expect(newAgent).toMatchObject({
      status: 400,
      body: { refusal: { code: 'bad-request', field: '/options/newAgent' } },
    });

    // `run` in the workspace goes through serve, on serve's backend; another backend is refused.
    const env = { ...process.env, KAIROKU_PLAYBOOK_HOME: home };
    const cliOf = (...args: string[]) => {
      const child = spawn(process.execPath, [CLI, ...args], { cwd: workspace, env });
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

const startServe = (workspace: string, home: string, extra: string[]) =>
  startPaseoServe(children, workspace, home, extra);
const call = callServe;
