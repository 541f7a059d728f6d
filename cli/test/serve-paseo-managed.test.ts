/**
 * Managed runs (serve's "Start on a new agent") that survive what the real Paseo daemon does to them
 * (issue 25), against the fake daemon taught the real one's behaviours: its providers start a manager's
 * stdio MCP server with the configured environment only (no `$PASEO_AGENT_ID`), archiving the manager
 * ends that server, and a create may be answered long after the agent was made. The built CLI, real
 * processes, real HTTP on 127.0.0.1.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunStore } from '@kairoku-playbook/runtime';
import type { RunDetail, StartAnswer } from '@kairoku-playbook/runtime/serve';
import { FakePaseoDaemon, reports, runsUntilCanceled } from '../../runtime/test/fake-paseo/index.js';
import type { FakeAgent, FakePaseoOptions, Scripts } from '../../runtime/test/fake-paseo/index.js';
import { makeRepo, removeRepo } from '../../runtime/test/fake-paseo/harness.js';
import { callServe, startPaseoServe } from './support/paseo-serve.js';

const RELAY = `version: 1
id: relay
title: Relay
steps:
  plan:
    role: implementer
    prompt: Plan the work
  work:
    needs: [plan]
    role: implementer
    prompt: Do the work
`;

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(scripts: Scripts, options: FakePaseoOptions = {}) {
  const daemon = await FakePaseoDaemon.start({ scripts, startsStdioServers: true, ...options });
  const { root, repo } = makeRepo();
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'serve-managed-home-')));
  cleanups.push(async () => {
    await daemon.close();
    removeRepo(root);
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
    const { id, manager } = await startManaged(serving, daemon);
    await waitFor(() => expect(new RunStore(home).load(id)!.manager).toContain(manager.id));
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
    expect(run.warnings).toEqual([
      expect.stringContaining(`managed by Paseo agent ${manager.id}, which this server cannot wake`),
    ]);
    await tool('start_step', { run: id, step: 'plan' });
    await waitFor(() => expect(stderr).toContain('which this server cannot wake'));
  });
});
