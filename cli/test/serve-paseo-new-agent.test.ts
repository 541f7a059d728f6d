/**
 * `serve --backend paseo`'s "Start on a new agent" (seed 000) as a user runs it: the built CLI, real
 * HTTP on 127.0.0.1, the fake Paseo daemon of the runtime's tests. serve makes the run and a manager
 * agent on the daemon; the test plays the daemon's side of that agent (it starts the stdio MCP server
 * the agent was given, with PASEO_AGENT_ID set as the daemon does) and the manager (the MCP SDK's
 * client): it starts and completes the steps, opens the gate, the gate is decided through serve's API,
 * and the manager is woken with the decision. serve never claims the run.
 */
import { execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunStore } from '@kairoku-playbook/runtime';
import type { RunDetail, StartAnswer } from '@kairoku-playbook/runtime/serve';
import {
  callServe,
  FakePaseoDaemon,
  gitRepo,
  relayPlaybook,
  removeDir,
  reports,
  startPaseoServe,
  tempDir,
} from '../../test/kit/index.js';
import type { FakeAgent, FakePaseoOptions, Scripts } from '../../test/kit/index.js';

const PASSWORD = 'not-on-any-command-line';

const RELAY = relayPlaybook({ gate: true });

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(scripts: Scripts, password?: string, options: FakePaseoOptions = {}) {
  const daemon = await FakePaseoDaemon.start({ scripts, ...(password ? { password } : {}), ...options });
  const root = tempDir('kp-paseo-');
  const repo = gitRepo({ dir: join(root, 'repo') });
  const home = tempDir('serve-new-agent-home-');
  cleanups.push(async () => {
    await daemon.close();
    removeDir(root);
    rmSync(home, { recursive: true, force: true });
  });
  mkdirSync(join(repo, 'playbooks'));
  writeFileSync(join(repo, 'playbooks', 'relay.yml'), RELAY);
  return { daemon, workspace: realpathSync(repo), home };
}

const managerOf = (daemon: FakePaseoDaemon) =>
  [...daemon.agents.values()].find((a) => a.labels['kairoku.role'] === 'manager');

/** The manager agent serve makes in the background after answering the Start, once recorded on the run. */
async function madeManager(daemon: FakePaseoDaemon, home: string, id: string): Promise<FakeAgent> {
  await vi.waitFor(
    () => expect(new RunStore(home).load(id)!.manager).toContain(`Paseo agent ${managerOf(daemon)?.id}`),
    {
      timeout: 20_000,
      interval: 50,
    },
  );
  return managerOf(daemon)!;
}

interface StdioConfig {
  type: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The daemon's side: the manager agent's stdio MCP server started as its provider would, with PASEO_AGENT_ID. */
async function playManager(agent: FakeAgent) {
  const server = (agent.config.mcpServers as Record<string, StdioConfig>)['kairoku-playbook']!;
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: { ...server.env, PASEO_AGENT_ID: agent.id },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'claude-code', version: '1.0.0' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content as { text: string }[]).map((c) => c.text).join('\n');
    if (result.isError) throw new Error(`${name} was refused: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
}

describe('serve --backend paseo: Start on a new agent', () => {
  it('makes a manager agent that drives the run over MCP; a gate decided in the panel wakes it; serve never claims the run', async () => {
    const { daemon, workspace, home } = await setUp(
      { plan: [reports('done')], work: [reports('done')] },
      PASSWORD,
    );
    const passwordFile = join(home, 'paseo-password');
    writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
    const serving = await startServe(workspace, home, [
      '--paseo-host',
      daemon.host,
      '--paseo-password-file',
      passwordFile,
    ]);
    const started = await call<StartAnswer>(serving, '/api/v1/runs', {
      playbook: 'playbooks/relay.yml',
      inputs: {},
      options: { newAgent: true, provider: 'codex' },
    });
    expect(started.status).toBe(201);
    const id = started.body.run.id;

    // The manager agent: in the workspace, labelled, its instructions and kickoff, no password anywhere.
    const manager = await madeManager(daemon, home, id);
    expect(manager).toMatchObject({ provider: 'codex', cwd: workspace });
    expect(manager.labels).toMatchObject({ 'kairoku.run': id, 'kairoku.role': 'manager' });
    expect(manager.systemPrompt).toContain('You are the Playbook Manager');
    expect(manager.initialPrompt).toContain(`get_run with run "${id}"`);
    expect(JSON.stringify(manager.config)).not.toContain(PASSWORD);
    const server = (manager.config.mcpServers as Record<string, StdioConfig>)['kairoku-playbook']!;
    expect(server).toMatchObject({ type: 'stdio', env: { KAIROKU_PLAYBOOK_HOME: home } });
    expect(server.args).toEqual(
      expect.arrayContaining(['mcp', '--agents', 'paseo', '--paseo-password-file', passwordFile]),
    );
    const store = new RunStore(home);
    expect(store.load(id)!.manager).toBe(`kairoku-playbook serve (a new agent), Paseo agent ${manager.id}`);

    // The test plays the manager, through the server the agent was given.
    const tool = await playManager(manager);
    expect(await tool('get_run', { run: id })).toMatchObject({ status: 'running' });
    for (const step of ['plan', 'work']) {
      await tool('start_step', { run: id, step, brief: `do ${step}` });
      await vi.waitFor(
        async () => {
          const run = await tool('get_run', { run: id });
          expect(JSON.stringify(run)).toMatch(new RegExp(`"name":"${step}"[^}]*"status":"reported"`));
        },
        { timeout: 20_000, interval: 100 },
      );
      await tool('complete_step', { run: id, step, outcome: 'done' });
    }
    // Step agents are the manager's subagents.
    expect(daemon.agentOf('plan', 1)!.labels['paseo.parent-agent-id']).toBe(manager.id);
    await tool('request_gate', { run: id, step: 'ship', summary: 'ready to ship' });
    const before = manager.followUps.length;

    // The gate is decided in the panel: applied in place, and the manager is woken with it.
    const decided = await call<RunDetail>(serving, `/api/v1/runs/${id}/gates/ship`, { choice: 'approve' });
    expect(decided.status).toBe(200);
    expect(decided.body.run.status).toBe('completed');
    await vi.waitFor(() => expect(manager.followUps.slice(before).join('\n')).toMatch(/ship.*approve/), {
      timeout: 20_000,
      interval: 100,
    });
    expect(store.load(id)!.manager).toBe(`kairoku-playbook serve (a new agent), Paseo agent ${manager.id}`);
    expect(store.owner(id)).not.toBe(serving.child.pid);
    expect(serving.stderr()).not.toContain('took up');
  });

  it("with a worktree of its own too: the manager and its step agents work in it, on the run's branch", async () => {
    const { daemon, workspace, home } = await setUp({ plan: [reports('done')] });
    const serving = await startServe(workspace, home, ['--paseo-host', daemon.host]);
    const started = await call<StartAnswer>(serving, '/api/v1/runs', {
      playbook: 'playbooks/relay.yml',
      inputs: {},
      options: { newAgent: true, worktree: true },
    });
    expect(started.status).toBe(201);
    const id = started.body.run.id;
    const manager = await madeManager(daemon, home, id);
    expect(realpathSync(manager.cwd)).not.toBe(workspace);
    expect(
      execFileSync('git', ['branch', '--show-current'], { cwd: manager.cwd, encoding: 'utf8' }).trim(),
    ).toBe(`playbooks/relay-${id.slice(-6)}`);
    const tool = await playManager(manager);
    await tool('start_step', { run: id, step: 'plan' });
    await vi.waitFor(() => expect(daemon.agentOf('plan', 1)).toBeDefined(), {
      timeout: 20_000,
      interval: 100,
    });
    // Found again by its branch, not made twice.
    expect(daemon.agentOf('plan', 1)!.cwd).toBe(manager.cwd);
    expect(daemon.worktrees).toHaveLength(1);
  });

  it('after a restart, leaves a run to its live manager agent (operable in place), and fails it once the agent is gone', async () => {
    const { daemon, workspace, home } = await setUp({});
    const flags = ['--paseo-host', daemon.host];
    const first = await startServe(workspace, home, flags);
    const started = await call<StartAnswer>(first, '/api/v1/runs', {
      playbook: 'playbooks/relay.yml',
      inputs: {},
      options: { newAgent: true },
    });
    expect(started.status).toBe(201);
    const id = started.body.run.id;
    const manager = await madeManager(daemon, home, id);
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));

    // Alive (and with no step agent yet): left to it, not taken up, not failed; the panel pauses it in place.
    const second = await startServe(workspace, home, flags);
    expect(second.stderr()).not.toContain('took up');
    expect(second.stderr()).not.toContain('failed 1 run');
    const paused = await call<RunDetail>(second, `/api/v1/runs/${id}/pause`, {});
    expect(paused.body.run.status).toBe('paused');
    const store = new RunStore(home);
    expect(store.load(id)!.manager).toContain(`Paseo agent ${manager.id}`);
    expect(store.owner(id)).toBeUndefined();
    second.child.kill('SIGKILL');
    await new Promise((resolve) => second.child.once('exit', resolve));

    // Gone (archived): the next serve fails the run, as seed 000 says.
    await daemon.archive(manager.id);
    const third = await startServe(workspace, home, flags);
    expect(third.stderr()).toContain(`failed 1 run(s) whose manager is gone: ${id}`);
    const failed = await call<RunDetail>(third, `/api/v1/runs/${id}`);
    expect(failed.body.run.status).toBe('failed');
  });

  it('answers the Start at once, says the manager is being made, and fails the run, saying why, when the daemon does not make it', async () => {
    const { daemon, workspace, home } = await setUp({});
    const serving = await startServe(workspace, home, ['--paseo-host', daemon.host]);
    const started = await call<StartAnswer>(serving, '/api/v1/runs', {
      playbook: 'playbooks/relay.yml',
      inputs: {},
      options: { newAgent: true, provider: 'nosuch' },
    });
    expect(started.status).toBe(201);
    const id = started.body.run.id;
    await vi.waitFor(
      async () =>
        expect((await call<RunDetail>(serving, `/api/v1/runs/${id}`)).body.run.status).toBe('failed'),
      { timeout: 20_000, interval: 50 },
    );
    const run = await call<RunDetail>(serving, `/api/v1/runs/${id}`);
    expect(run.body.run.reason).toContain('Paseo did not make its manager agent');
    expect(JSON.stringify(run.body)).toContain('Unknown provider \\"nosuch\\"');
  });

  it('while the daemon makes the manager, the run says so; a serve restarted meanwhile takes the agent made as its manager', async () => {
    const { daemon, workspace, home } = await setUp({}, undefined, { holdCreates: true });
    const flags = ['--paseo-host', daemon.host];
    const first = await startServe(workspace, home, flags);
    const started = await call<StartAnswer>(first, '/api/v1/runs', {
      playbook: 'playbooks/relay.yml',
      inputs: {},
      options: { newAgent: true },
    });
    expect(started.status).toBe(201);
    const id = started.body.run.id;
    const making = await call<RunDetail>(first, `/api/v1/runs/${id}`);
    expect(making.body.run.manager).toEqual({ name: expect.any(String), making: true });
    await vi.waitFor(() => expect(daemon.received('create_agent_request')).toHaveLength(1), {
      timeout: 20_000,
      interval: 50,
    });
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    daemon.releaseCreates();
    await vi.waitFor(() => expect(managerOf(daemon)).toBeDefined(), { timeout: 20_000, interval: 50 });
    const second = await startServe(workspace, home, flags);
    expect(second.stderr()).not.toContain('failed 1 run');
    const manager = await madeManager(daemon, home, id);
    const taken = await call<RunDetail>(second, `/api/v1/runs/${id}`);
    expect(taken.body.run).toMatchObject({
      status: 'running',
      manager: { name: expect.stringContaining(manager.id) },
    });
    expect(taken.body.run.manager!.making).toBeUndefined();
  });

  it("refuses a start given a secret input (its value would not reach the manager agent's steps)", async () => {
    const { daemon, workspace, home } = await setUp({});
    writeFileSync(
      join(workspace, 'playbooks', 'secret.yml'),
      `version: 1
id: secret
title: Secret
inputs:
  token: { type: string, secret: true }
steps:
  plan:
    role: implementer
    prompt: Plan the work
`,
    );
    const serving = await startServe(workspace, home, ['--paseo-host', daemon.host]);
    const refused = await call<{ refusal: { code: string; field: string } }>(serving, '/api/v1/runs', {
      playbook: 'playbooks/secret.yml',
      inputs: { token: 'hush' },
      options: { newAgent: true },
    });
    expect(refused).toMatchObject({
      status: 422,
      body: { refusal: { code: 'secret-inputs-unsupported', field: '/options/newAgent' } },
    });
    expect(managerOf(daemon)).toBeUndefined();
    const runs = await call<{ runs: unknown[] }>(serving, '/api/v1/runs');
    expect(runs.body.runs).toEqual([]);
  });

  it('is not offered when the password came from $PASEO_PASSWORD: the refusal says to use a file', async () => {
    const { daemon, workspace, home } = await setUp({}, PASSWORD);
    const serving = await startServe(workspace, home, ['--paseo-host', daemon.host], {
      PASEO_PASSWORD: PASSWORD,
    });
    const cards = await call<{ playbooks: { startOptions: { newAgent: boolean } }[] }>(
      serving,
      '/api/v1/playbooks',
    );
    expect(cards.body.playbooks[0]!.startOptions.newAgent).toBe(false);
    const refused = await call<{ refusal: { code: string; message: string } }>(serving, '/api/v1/runs', {
      playbook: 'playbooks/relay.yml',
      inputs: {},
      options: { newAgent: true },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.refusal.code).toBe('option-unsupported');
    expect(refused.body.refusal.message).toContain('--paseo-password-file');
    expect(managerOf(daemon)).toBeUndefined();
  });
});

const startServe = (workspace: string, home: string, extra: string[], env: NodeJS.ProcessEnv = {}) =>
  startPaseoServe(children, workspace, home, extra, env);
const call = callServe;
