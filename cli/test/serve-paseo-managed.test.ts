/**
 * Managed runs (serve's "Start on a new agent") that survive what the real Paseo daemon does to them
 * (issue 25), against the fake daemon taught the real one's behaviours: its providers start a manager's
 * stdio MCP server with the configured environment only (no `$PASEO_AGENT_ID`), archiving the manager
 * ends that server, and a create may be answered long after the agent was made. The built CLI, real
 * processes, real HTTP on 127.0.0.1.
 */
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
  runsUntilCanceled,
  startPaseoServe,
  tempDir,
} from '../../test/kit/index.js';
import type { FakeAgent, FakePaseoOptions, Scripts } from '../../test/kit/index.js';

const RELAY = relayPlaybook();

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(scripts: Scripts, options: FakePaseoOptions = {}) {
  const daemon = await FakePaseoDaemon.start({ scripts, startsStdioServers: true, ...options });
  const root = tempDir('kp-paseo-');
  const repo = gitRepo({ dir: join(root, 'repo') });
  const home = tempDir('serve-managed-home-');
  cleanups.push(async () => {
    await daemon.close();
    removeDir(root);
    rmSync(home, { recursive: true, force: true });
  });
  mkdirSync(join(repo, 'playbooks'));
  writeFileSync(join(repo, 'playbooks', 'relay.yml'), RELAY);
  const workspace = realpathSync(repo);
  const serving = await startPaseoServe(children, workspace, home, ['--paseo-host', daemon.host]);
  return { daemon, workspace, home, serving };
}

const managerOf = (daemon: FakePaseoDaemon) =>
  [...daemon.agents.values()].find((a) => a.labels['kairoku.role'] === 'manager');

async function startManaged(serving: Awaited<ReturnType<typeof setUp>>['serving'], daemon: FakePaseoDaemon) {
  const started = await callServe<StartAnswer>(serving, '/api/v1/runs', {
    playbook: 'playbooks/relay.yml',
    inputs: {},
    options: { newAgent: true, provider: 'codex' },
  });
  expect(started.status).toBe(201);
  let manager: FakeAgent | undefined;
  await vi.waitFor(() => expect((manager = managerOf(daemon))?.mcp?.length).toBe(1), {
    timeout: 20_000,
    interval: 50,
  });
  return { id: started.body.run.id, manager: manager!, mcp: manager!.mcp![0]! };
}

const waitFor = (check: () => unknown | Promise<unknown>) =>
  vi.waitFor(check, { timeout: 20_000, interval: 100 });

describe('serve --backend paseo: managed runs', () => {
  it("a manager's server started without $PASEO_AGENT_ID learns its agent from the run, and wakes it", async () => {
    const { daemon, home, serving } = await setUp({ plan: [reports('done')] });
    const { id, manager, mcp } = await startManaged(serving, daemon);
    // The server serve wrote names the run, not the agent (its id was not known yet).
    const server = (manager.config.mcpServers as Record<string, { args: string[]; env: object }>)[
      'kairoku-playbook'
    ]!;
    expect(server.args).toEqual(expect.arrayContaining(['--managed-run', id]));
    expect(server.env).toEqual({ KAIROKU_PLAYBOOK_HOME: home });
    expect(manager.config.extra).toBeUndefined();
    await mcp.call('start_step', { run: id, step: 'plan', brief: 'plan it' });
    await waitFor(() => expect(daemon.agentOf('plan', 1)).toBeDefined());
    // A subagent of its manager, which is woken once the step reported.
    expect(daemon.agentOf('plan', 1)!.labels['paseo.parent-agent-id']).toBe(manager.id);
    await waitFor(() => expect(manager.followUps.join('\n')).toMatch(/plan/));
    expect(await mcp.call('get_run', { run: id })).not.toHaveProperty('warnings');
    expect(mcp.stderr()).toContain(`serving the manager agent run ${id} names (Paseo agent ${manager.id})`);
  });

  it('a server that cannot tell which agent it serves says so on stderr and in get_run', async () => {
    const { daemon, workspace, home, serving } = await setUp({ plan: [reports('done')] });
    const { id, manager, mcp } = await startManaged(serving, daemon);
    await waitFor(() => expect(new RunStore(home).load(id)!.manager).toContain(manager.id));
    await mcp.close();
    // The same server as an older serve wrote it: no --managed-run, and no $PASEO_AGENT_ID.
    const server = (manager.config.mcpServers as Record<string, { command: string; args: string[] }>)[
      'kairoku-playbook'
    ]!;
    const at = server.args.indexOf('--managed-run');
    const transport = new StdioClientTransport({
      command: server.command,
      args: [...server.args.slice(0, at), ...server.args.slice(at + 2)],
      env: { KAIROKU_PLAYBOOK_HOME: home },
      cwd: workspace,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'old-manager', version: '1.0.0' });
    await client.connect(transport);
    cleanups.push(() => client.close());
    const tool = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      return JSON.parse((result.content as { text: string }[])[0]!.text) as Record<string, unknown>;
    };
    const run = await tool('get_run', { run: id });
    expect(run.warnings).toContainEqual(
      expect.stringContaining(`managed by Paseo agent ${manager.id}, which this server cannot wake`),
    );
    await tool('start_step', { run: id, step: 'plan' });
    await waitFor(() => expect(stderr).toContain('which this server cannot wake'));
  });

  it('fails a run at once when its manager is archived, and stops its running step agents', async () => {
    const { daemon, home, serving } = await setUp({ plan: [runsUntilCanceled({ outcome: 'done' })] });
    const { id, manager, mcp } = await startManaged(serving, daemon);
    await mcp.call('start_step', { run: id, step: 'plan' });
    await waitFor(() => expect(daemon.agentOf('plan', 1)?.status).toBe('running'));
    const plan = daemon.agentOf('plan', 1)!;
    await daemon.archive(manager.id);
    // Archiving ended the manager's own server, as on the real daemon: serve notices.
    await waitFor(() => expect(mcp.exited()).toBe(true));
    await waitFor(async () => {
      const detail = await callServe<RunDetail>(serving, `/api/v1/runs/${id}`);
      expect(detail.body.run.status).toBe('failed');
    });
    const detail = await callServe<RunDetail>(serving, `/api/v1/runs/${id}`);
    expect(JSON.stringify(detail.body)).toContain(`its manager agent ${manager.id} is gone (archived)`);
    await waitFor(() =>
      expect(daemon.received('cancel_agent_request')).toContainEqual(
        expect.objectContaining({ agentId: plan.id }),
      ),
    );
    await waitFor(() => expect(plan.status).not.toBe('running'));
    expect(new RunStore(home).load(id)!.status).toBe('failed');
  });

  it('at a restart, stops the step agents of a run it fails because its manager went while serve was down', async () => {
    const { daemon, workspace, home, serving } = await setUp({
      plan: [runsUntilCanceled({ outcome: 'done' })],
    });
    const { id, manager, mcp } = await startManaged(serving, daemon);
    await mcp.call('start_step', { run: id, step: 'plan' });
    await waitFor(() => expect(daemon.agentOf('plan', 1)?.status).toBe('running'));
    const plan = daemon.agentOf('plan', 1)!;
    serving.child.kill('SIGKILL');
    await serving.exited;
    await daemon.archive(manager.id);
    const second = await startPaseoServe(children, workspace, home, ['--paseo-host', daemon.host]);
    expect(second.stderr()).toContain(`failed 1 run(s) whose manager is gone: ${id}`);
    await waitFor(() =>
      expect(daemon.received('cancel_agent_request')).toContainEqual(
        expect.objectContaining({ agentId: plan.id }),
      ),
    );
    await waitFor(() => expect(plan.status).not.toBe('running'));
  });

  it('archives step agents once their attempt ended, and the manager serve made once its run ended', async () => {
    const { daemon, serving } = await setUp({ plan: [reports('done')], work: [reports('done')] });
    const { id, manager, mcp } = await startManaged(serving, daemon);
    for (const step of ['plan', 'work']) {
      await mcp.call('start_step', { run: id, step });
      await waitFor(async () =>
        expect(JSON.stringify(await mcp.call('get_run', { run: id }))).toMatch(
          new RegExp(`"name":"${step}"[^}]*"status":"reported"`),
        ),
      );
      await mcp.call('complete_step', { run: id, step, outcome: 'done' });
      // Its attempt ended: its agent is archived (its conversation kept); the manager of a run going on is not.
      await waitFor(() => expect(daemon.agentOf(step, 1)!.archivedAt).not.toBeNull());
      if (step === 'plan') expect(manager.archivedAt).toBeNull();
    }
    await waitFor(async () =>
      expect((await callServe<RunDetail>(serving, `/api/v1/runs/${id}`)).body.run.status).toBe('completed'),
    );
    // The run ended: its manager, once idle after the wake-up that says so, is archived too.
    await waitFor(() => expect(manager.archivedAt).not.toBeNull());
  });

  it('with --paseo-keep-agents, archives nothing; a run serve drives itself has its agents archived by default', async () => {
    const { daemon, workspace, home, serving } = await setUp({
      plan: [reports('done')],
      work: [reports('done')],
    });
    const started = await callServe<StartAnswer>(serving, '/api/v1/runs', {
      playbook: 'playbooks/relay.yml',
      inputs: {},
    });
    const id = started.body.run.id;
    await waitFor(async () =>
      expect((await callServe<RunDetail>(serving, `/api/v1/runs/${id}`)).body.run.status).toBe('completed'),
    );
    await waitFor(() => expect(daemon.agentOf('work', 1)?.archivedAt).not.toBeNull());
    expect(daemon.agentOf('plan', 1)!.archivedAt).not.toBeNull();
    // A Claude step agent has its one tool pre-approved (seed 000); a codex manager gets no Claude options.
    expect(daemon.agentOf('plan', 1)!.config.extra).toEqual({
      claude: { allowedTools: ['mcp__kairoku-playbook__report_step_result'] },
    });

    serving.child.kill('SIGTERM');
    await serving.exited;
    const keeping = await startPaseoServe(children, workspace, home, [
      '--paseo-host',
      daemon.host,
      '--paseo-keep-agents',
    ]);
    const again = await callServe<StartAnswer>(keeping, '/api/v1/runs', {
      playbook: 'playbooks/relay.yml',
      inputs: {},
    });
    const kept = again.body.run.id;
    await waitFor(async () =>
      expect((await callServe<RunDetail>(keeping, `/api/v1/runs/${kept}`)).body.run.status).toBe('completed'),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const agents = [...daemon.agents.values()].filter((a) => a.labels['kairoku.run'] === kept);
    expect(agents).toHaveLength(2);
    expect(agents.map((a) => a.archivedAt)).toEqual([null, null]);
  });
});
