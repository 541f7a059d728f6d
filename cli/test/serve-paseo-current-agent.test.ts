/**
 * Seed 000's default Start on Paseo (issue 30): the run is managed by the workspace's current agent,
 * the person's own agent, which got the manager tools from the workspace's `.mcp.json` (as the daemon
 * starts Claude: the "project" setting source). Against the fake daemon, which starts a Claude agent's
 * project MCP servers with their configured environment only: an idle agent, a busy one (the kickoff
 * waits for the end of its turn), one without the tools, and a serve restarted while the kickoff waits.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunStore } from '@kairoku-playbook/runtime';
import { paseo } from '@kairoku-playbook/runtime/backends';
import type { CurrentAgentAnswer, RunDetail, StartAnswer } from '@kairoku-playbook/runtime/serve';
import {
  callServe,
  CLI,
  FakePaseoDaemon,
  gitRepo,
  relayPlaybook,
  removeDir,
  reports,
  startPaseoServe,
  tempDir,
} from '../../test/kit/index.js';
import type { FakeAgent, Scripts, ServeProcess } from '../../test/kit/index.js';

const RELAY = relayPlaybook({ work: false });

/** The person's agent: its kickoff turn reads the run and starts its step through the playbook's tools. */
const MANAGES: Scripts = {
  person: [
    {
      turns: [
        { hold: true },
        {
          calls: [
            { tool: 'get_run', args: { run: '$run' } },
            { tool: 'start_step', args: { run: '$run', step: 'plan', brief: 'plan it' } },
          ],
        },
        { calls: [{ tool: 'complete_step', args: { run: '$run', step: 'plan', outcome: 'done' } }] },
      ],
    },
  ],
  plan: [reports('done')],
};

const children: ChildProcess[] = [];
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(scripts: Scripts) {
  const daemon = await FakePaseoDaemon.start({ scripts, startsStdioServers: true });
  const root = tempDir('kp-paseo-');
  const repo = gitRepo({ dir: join(root, 'repo') });
  const home = tempDir('serve-current-home-');
  cleanups.push(async () => {
    await daemon.close();
    removeDir(root);
    rmSync(home, { recursive: true, force: true });
  });
  const workspace = realpathSync(repo);
  mkdirSync(join(workspace, 'playbooks'));
  writeFileSync(join(workspace, 'playbooks', 'relay.yml'), RELAY);
  // What `kairoku-playbook init --mcp` writes: the manager's server for every Claude agent of the workspace.
  writeFileSync(
    join(workspace, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        'kairoku-playbook': {
          command: process.execPath,
          args: [CLI, 'mcp', '--agents', 'paseo', '--paseo-host', daemon.host],
          env: { KAIROKU_PLAYBOOK_HOME: home },
        },
      },
    }),
  );
  const client = await paseo.PaseoClient.connect({ host: daemon.host, log: () => undefined });
  cleanups.push(() => client.close());
  const serving = await startPaseoServe(children, workspace, home, ['--paseo-host', daemon.host]);
  return { daemon, workspace, home, client, serving };
}

/** The person makes an agent in the workspace in Paseo's app: its first turn holds until released. */
async function personAgent(
  daemon: FakePaseoDaemon,
  client: Awaited<ReturnType<typeof paseo.PaseoClient.connect>>,
  workspace: string,
  provider = 'claude',
): Promise<FakeAgent> {
  const made = await client.request('create_agent_request', {
    config: { provider, cwd: workspace, title: 'My agent' },
    labels: { 'fake.script': 'person' },
    initialPrompt: 'Help me with this repository',
  });
  return daemon.agents.get(String(made.agentId))!;
}

const waitFor = (check: () => unknown | Promise<unknown>) =>
  vi.waitFor(check, { timeout: 20_000, interval: 100 });

async function startWith(serving: ServeProcess, agentId: string) {
  return callServe<StartAnswer>(serving, '/api/v1/runs', {
    playbook: 'playbooks/relay.yml',
    inputs: {},
    options: { currentAgent: agentId },
  });
}

const status = async (serving: ServeProcess, id: string) =>
  (await callServe<RunDetail>(serving, `/api/v1/runs/${id}`)).body.run.status;

describe('serve --backend paseo: Start with the current agent', () => {
  it('names the current agent; a busy one gets the kickoff when its turn ends, and manages the run through its tools', async () => {
    const { daemon, workspace, home, client, serving } = await setUp(MANAGES);
    const agent = await personAgent(daemon, client, workspace);
    const current = await callServe<CurrentAgentAnswer>(serving, '/api/v1/current-agent');
    expect(current.body).toEqual({
      agent: { id: agent.id, title: 'My agent', provider: 'claude', busy: true },
    });
    const started = await startWith(serving, agent.id);
    expect(started.status).toBe(201);
    const id = started.body.run.id;
    const store = new RunStore(home);
    expect(store.load(id)!).toMatchObject({
      manager: expect.stringContaining(`Paseo agent ${agent.id}`),
      kickoff: { agent: agent.id },
    });
    // Busy: not interrupted, the kickoff waits on the run.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(agent.followUps).toEqual([]);
    expect(store.load(id)!.kickoff!.sentAt).toBeUndefined();
    daemon.release(agent.id);
    await waitFor(() => expect(agent.followUps[0]).toContain(`You manage playbook run ${id}`));
    // Its tools: the step starts as its subagent, the report wakes it, it completes the step.
    await waitFor(() => expect(daemon.agentOf('plan', 1)).toBeDefined());
    expect(daemon.agentOf('plan', 1)!.labels['paseo.parent-agent-id']).toBe(agent.id);
    await waitFor(async () => expect(await status(serving, id)).toBe('completed'));
    expect(store.load(id)!.kickoff!.confirmedAt).toBeDefined();
    // The person's agent is never archived.
    expect(agent.archivedAt).toBeNull();
  });

  it('sends an idle agent its kickoff at once', async () => {
    const { daemon, workspace, client, serving } = await setUp(MANAGES);
    const agent = await personAgent(daemon, client, workspace);
    daemon.release(agent.id);
    await waitFor(() => expect(agent.status).toBe('idle'));
    const id = (await startWith(serving, agent.id)).body.run.id;
    await waitFor(() => expect(agent.followUps[0]).toContain(`You manage playbook run ${id}`));
    await waitFor(async () => expect(await status(serving, id)).toBe('completed'));
  });

  it('fails the run, saying why, when the agent ends its kickoff turn without the tools', async () => {
    const { daemon, workspace, client, serving } = await setUp(MANAGES);
    // A codex agent: the fake daemon gives it no project MCP servers.
    const agent = await personAgent(daemon, client, workspace, 'codex');
    daemon.release(agent.id);
    await waitFor(() => expect(agent.status).toBe('idle'));
    const started = await startWith(serving, agent.id);
    const id = started.body.run.id;
    await waitFor(async () => expect(await status(serving, id)).toBe('failed'));
    const detail = await callServe<RunDetail>(serving, `/api/v1/runs/${id}`);
    expect(detail.body.run.reason).toContain('without calling a playbook tool');
    expect(detail.body.run.reason).toContain('Start it on a new agent instead');
  });

  it('warns that an ACP agent may lack the tools (the daemon gives it no workspace MCP servers); its kickoff turn judges it', async () => {
    const { daemon, workspace, client, serving } = await setUp(MANAGES);
    const agent = await personAgent(daemon, client, workspace, 'copilot');
    const current = await callServe<CurrentAgentAnswer>(serving, '/api/v1/current-agent');
    expect(current.body.agent?.id).toBe(agent.id);
    expect(current.body.warning).toContain('start on a new agent instead');
    daemon.release(agent.id);
    const started = await startWith(serving, agent.id);
    expect(started.status).toBe(201);
    await waitFor(async () => expect(await status(serving, started.body.run.id)).toBe('failed'));
  });

  it('a serve restarted while the kickoff waits delivers it', async () => {
    const { daemon, workspace, home, client, serving } = await setUp(MANAGES);
    const agent = await personAgent(daemon, client, workspace);
    const id = (await startWith(serving, agent.id)).body.run.id;
    serving.child.kill('SIGKILL');
    await serving.exited;
    const second = await startPaseoServe(children, workspace, home, ['--paseo-host', daemon.host]);
    daemon.release(agent.id);
    await waitFor(() => expect(agent.followUps[0]).toContain(`You manage playbook run ${id}`));
    await waitFor(async () => expect(await status(second, id)).toBe('completed'));
  });
});
