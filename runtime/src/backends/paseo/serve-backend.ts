/**
 * `serve --backend paseo`: runs started by serve are driven by its run host (autopilot; gates wait for
 * a decision from the panel, the API or `runs decide`), their agent steps Paseo agents of the daemon,
 * connected as the CLI's flags say (it parses them: the password from a file or $PASEO_PASSWORD, never
 * a command-line value).
 *
 * Recovery on start (seed 000): each active paseo run of the workspace that serve drives is connected
 * again before the host takes it up, so its agents the daemon still has are adopted (watched again)
 * and those gone are lost by the lost-agent rule; a run whose manager agent is gone fails.
 *
 * Every run's step agents report to one endpoint of serve's (`startSharedReportEndpoint`): on
 * 127.0.0.1, at a port kept in the home (`serve/<workspace hash>.reports.json`), with tokens under the
 * store's key. So an agent adopted after a restart (even a `kill -9`) reports to the same address
 * with the same token, minted again for it, and its report lands. It answers only once the recovery
 * has minted those tokens again (`recovered`). Not serve's own listener: its port may change with
 * each start (`--listen 127.0.0.1:0`, as VS Code starts it), and the agents of the runs it takes up
 * are made before it listens.
 *
 * A start with `newAgent` (seed 000's "Start on a new agent") makes the run managed by a new Paseo
 * agent instead (`paseo.startWithNewManager`): serve neither claims nor drives it; the agent's own
 * `kairoku-playbook mcp --agents paseo` server does, and the panel's decisions on it are applied in
 * place (`RunHost.operate`). That server is named a password file, never given the password.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { hasWorkGoing } from '@kairoku-playbook/machine';
import type { RunState } from '@kairoku-playbook/machine';
import type { Backend, BackendContext } from '../../driver/backend.js';
import { DeferredBackend } from '../../host/deferred-backend.js';
import { HostingRefused } from '../../host/hosting-backend.js';
import type { HostingBackend } from '../../host/hosting-backend.js';
import { HOST_MANAGER } from '../../host/run-host.js';
import { RunStore } from '../../store/run-store.js';
import { startSharedReportEndpoint } from '../report-endpoint.js';
import { PaseoBackend } from './backend.js';
import { PaseoClient } from './client.js';
import { LABELS } from './backend-options.js';
import { listAgents } from './daemon-agents.js';
import {
  MANAGER_BEING_MADE,
  ROLE_LABEL,
  managerAgentOf,
  newManagerName,
  startWithNewManager,
} from './manager-agent.js';
import { PaseoRunWatch } from './run-watch.js';
import { findCurrentAgent, startWithCurrentAgent } from './current-agent.js';

/** The daemon as the CLI's Paseo flags name it, and the defaults of the runs' agents. */
export interface PaseoDaemon {
  host: string;
  password?: string;
  defaultProvider?: string;
  providerMap?: Record<string, string>;
  defaultModel?: string;
}

export interface PaseoHostingRequest {
  daemon: PaseoDaemon;
  /** the password's file (`--paseo-password-file`), which a manager agent's MCP server is named */
  passwordFile?: string;
  /** how this program is started again (`kairoku-playbook`), for a manager agent's MCP server */
  selfCommand: readonly string[];
  /** the store's home */
  home: string;
  /** the workspace serve owns (its real path) */
  workspace: string;
  /** `--paseo-keep-agents`: the agents of runs are never archived (agent-tidy.ts) */
  keepAgents?: boolean;
  log: (line: string) => void;
}

/** Connects Paseo to host a workspace's runs (`serve --backend paseo`); refused when the daemon cannot be reached. */
export async function hostPaseoRuns(request: PaseoHostingRequest): Promise<HostingBackend> {
  const { daemon, home, workspace, log } = request;
  // The daemon is asked once at start: a serve that cannot reach it says so rather than fail every run.
  const client = await connectOnce(daemon, log);
  const reports = await openReports(home, workspace, log, client);
  const connectFor = (state: RunState) =>
    PaseoBackend.connect({
      ...daemonOptions(daemon, state.startOptions),
      cwd: state.workspace ?? workspace,
      workspace: state.ir.workspace,
      runId: state.id,
      playbook: state.ir.id,
      ...(state.branch ? { branch: state.branch } : {}),
      reports,
      snapshots: join(home, 'read-only'),
      log: paseoLog(log),
    });
  const taken = await takeUpRuns(client, home, workspace, connectFor, log, reports);
  const newAgent = newAgentStart(request);
  const backends = new Set<Backend>();
  let watch: PaseoRunWatch | undefined;
  return {
    backendFor: (state) => {
      const connected = taken.ready.get(state.id);
      taken.ready.delete(state.id);
      const backend = connected ?? new DeferredBackend('paseo', () => connectFor(state));
      backends.add(backend);
      return backend;
    },
    managerExists: (manager, runId) =>
      manager === MANAGER_BEING_MADE ? taken.madeManagers.has(runId) : !taken.goneManagers.has(manager),
    recovered: () => reports.open(),
    adopt: (_state: RunState, backend: Backend, context: BackendContext) => {
      if (backend instanceof PaseoBackend) backend.adopt(context);
    },
    watch: (host, recovered) => {
      // A manager the daemon made while the serve that asked for it stopped: recorded now.
      for (const [runId, agentId] of taken.madeManagers) {
        const named = host.setManager(runId, newManagerName(agentId));
        if (named.ok) log(`run ${runId}: took Paseo agent ${agentId}, made before a restart, as its manager`);
      }
      watch = new PaseoRunWatch({
        client,
        host,
        keepAgents: request.keepAgents ?? false,
        log: paseoLog(log),
      });
      const store = new RunStore(home);
      // Not awaited: serve listens meanwhile; the watch logs its own failures.
      void watch.start(store.list().entries, recovered.failed, store.loadActive().runs);
    },
    ...('refused' in newAgent
      ? { unofferedWhy: { newAgent: newAgent.refused } }
      : { startWithNewAgent: newAgent.start }),
    ...currentAgentStart(client, home, workspace),
    startOptions: {
      newAgent: !('refused' in newAgent),
      currentAgent: true,
      worktree: true,
      agents: {
        defaultProvider: daemon.defaultProvider ?? 'claude',
        ...(daemon.defaultModel !== undefined ? { defaultModel: daemon.defaultModel } : {}),
      },
    },
    close: async () => {
      watch?.close();
      await client.close();
      const all = [...taken.ready.values(), ...backends];
      await Promise.allSettled(all.map((b) => b.close?.() ?? Promise.resolve()));
      await reports.close();
    },
  };
}

type Client = Awaited<ReturnType<typeof PaseoClient.connect>>;
type Reports = Awaited<ReturnType<typeof startSharedReportEndpoint>>;

async function connectOnce(daemon: PaseoDaemon, log: (line: string) => void): Promise<Client> {
  try {
    return await PaseoClient.connect({
      host: daemon.host,
      ...(daemon.password !== undefined ? { password: daemon.password } : {}),
      log: paseoLog(log),
    });
  } catch (error) {
    throw new HostingRefused(`serve --backend paseo: ${(error as Error).message}`, { cause: error });
  }
}

async function openReports(
  home: string,
  workspace: string,
  log: (line: string) => void,
  client: Client,
): Promise<Reports> {
  let reports: Reports;
  try {
    reports = await startSharedReportEndpoint({
      home,
      portFile: reportPortFile(home, workspace),
      log: (message) => log(`paseo: ${message}`),
    });
  } catch (error) {
    await client.close();
    const message = `serve --backend paseo: the step agents' report endpoint: ${(error as Error).message}`;
    throw new HostingRefused(message, { cause: error });
  }
  if (reports.movedFrom !== undefined)
    log(
      `the step agents' report endpoint could not listen on port ${reports.movedFrom} again (taken): it listens at ${reports.url}; agents started by an earlier serve cannot report, and are lost when their turn ends`,
    );
  return reports;
}

/**
 * Recovery on start (seed 000): the active paseo runs of the workspace that serve drives, connected
 * again before the host takes them up; the managers of runs other processes managed that are gone.
 */
async function takeUpRuns(
  client: Client,
  home: string,
  workspace: string,
  connectFor: (state: RunState) => Promise<Backend>,
  log: (line: string) => void,
  reports: Reports,
): Promise<{ ready: Map<string, Backend>; goneManagers: Set<string>; madeManagers: Map<string, string> }> {
  const store = new RunStore(home);
  const ready = new Map<string, Backend>();
  const goneManagers = new Set<string>();
  /** runs whose manager an earlier serve was making: the agent the daemon made, by the run's labels */
  const madeManagers = new Map<string, string>();
  try {
    for (const state of store.loadActive().runs) {
      if (state.workspace !== workspace || state.backend !== 'paseo') continue;
      if (!hasWorkGoing(state) || store.owner(state.id) !== undefined) continue;
      if (state.manager === MANAGER_BEING_MADE) {
        // serve stopped while it made the manager: the daemon may have made it all the same.
        const made = await listAgents(client, { [LABELS.run]: state.id, [ROLE_LABEL]: 'manager' });
        const agentId = [...made].find(([, info]) => !info.archived)?.[0];
        if (agentId !== undefined) madeManagers.set(state.id, agentId);
        continue;
      }
      if (state.manager && state.manager !== HOST_MANAGER) {
        if (await managerGone(client, state.id, managerAgentOf(state.manager)))
          goneManagers.add(state.manager);
        continue;
      }
      try {
        ready.set(state.id, await connectFor(state));
      } catch (error) {
        // Its agents cannot be watched: the host's recovery finds none of them, and loses them.
        log(`cannot take up the Paseo agents of run ${state.id}: ${(error as Error).message}`);
      }
    }
  } catch (error) {
    await Promise.allSettled([...ready.values()].map((b) => b.close?.() ?? Promise.resolve()));
    await reports.close();
    await client.close();
    throw error;
  }

  return { ready, goneManagers, madeManagers };
}

/**
 * Paseo's own kind of start, `newAgent`: the run is managed by a new Paseo agent. Its MCP server
 * reaches the daemon as serve does, but never with the password on its command line or in its
 * environment (both are kept in the agent's config by the daemon): a password file is named; a
 * password from $PASEO_PASSWORD cannot be passed on safely, so no new agent then.
 */
function newAgentStart(
  request: PaseoHostingRequest,
): { refused: string } | { start: NonNullable<HostingBackend['startWithNewAgent']> } {
  const { daemon, passwordFile, home, workspace, log } = request;
  if (daemon.password !== undefined && passwordFile === undefined)
    return {
      refused:
        "serve's Paseo password came from $PASEO_PASSWORD, which a manager agent's MCP server cannot be given without writing it into the agent's config: start serve with --paseo-password-file FILE to offer a new agent",
    };
  const self = request.selfCommand;
  const managerServer = (state: RunState) => {
    const chosen = daemonOptions(daemon, state.startOptions);
    return {
      command: self[0]!,
      args: [
        ...self.slice(1),
        'mcp',
        '--agents',
        'paseo',
        '--workspace',
        state.workspace ?? workspace,
        '--paseo-host',
        daemon.host,
        // Its provider may start it without the daemon's environment ($PASEO_AGENT_ID): the run says
        // which agent it serves, once serve has recorded it.
        '--managed-run',
        state.id,
        ...(passwordFile !== undefined ? ['--paseo-password-file', passwordFile] : []),
        ...(chosen.defaultProvider !== undefined ? ['--paseo-provider', chosen.defaultProvider] : []),
        ...Object.entries(chosen.providerMap ?? {}).flatMap(([from, to]) => [
          '--paseo-provider',
          `${from}=${to}`,
        ]),
        ...(chosen.defaultModel !== undefined ? ['--paseo-model', chosen.defaultModel] : []),
      ],
      env: { KAIROKU_PLAYBOOK_HOME: home },
    };
  };
  const startWithNewAgent: NonNullable<HostingBackend['startWithNewAgent']> = async (
    host,
    ir,
    inputs,
    options,
  ) => {
    // Connections of this start's own (a create may take minutes): one made again if the first broke.
    const clients: Client[] = [];
    const closeAll = () => Promise.allSettled(clients.map((c) => c.close()));
    const chosen = daemonOptions(daemon, options);
    const started = await startWithNewManager({
      host,
      ir,
      inputs,
      options,
      provider: chosen.defaultProvider ?? 'claude',
      ...(chosen.defaultModel !== undefined ? { model: chosen.defaultModel } : {}),
      mcpServer: managerServer,
      client: async () => {
        const open = clients.find((c) => c.isOpen);
        if (open) return open;
        const made = await PaseoClient.connect({
          host: daemon.host,
          ...(daemon.password !== undefined ? { password: daemon.password } : {}),
          reconnect: false,
          requestTimeoutMs: 120_000,
          log: paseoLog(log),
        });
        clients.push(made);
        return made;
      },
      log: paseoLog(log),
    });
    // Closed once the manager is made (or the run failed for want of one); that end logs itself.
    if (started.done) void started.done.finally(closeAll);
    else await closeAll();
    return started;
  };

  return { start: startWithNewAgent };
}

/**
 * Seed 000's default Start, with the workspace's current agent (current-agent.ts): found on serve's own
 * connection; the agents that manage a run with work going, from the run index, are not candidates.
 */
function currentAgentStart(
  client: Client,
  home: string,
  workspace: string,
): Pick<HostingBackend, 'currentAgent' | 'startWithCurrentAgent'> {
  const managing = () =>
    new Set(
      new RunStore(home)
        .list()
        .entries.filter((entry) => entry.workGoing && entry.workspace === workspace)
        .flatMap((entry) => managerAgentOf(entry.manager) ?? []),
    );
  return {
    currentAgent: () => findCurrentAgent(client, workspace, managing()),
    startWithCurrentAgent: (host, ir, inputs, options, agentId) =>
      startWithCurrentAgent({ host, ir, inputs, options, agentId, managing: managing(), client }),
  };
}

/** Where serve keeps the port of its step agents' report endpoint, per workspace. */
function reportPortFile(home: string, workspace: string): string {
  const hash = createHash('sha256').update(workspace).digest('hex').slice(0, 16);
  return join(home, 'serve', `${hash}.reports.json`);
}

/** The daemon and the run's provider and model: its start options win over serve's flags. */
function daemonOptions(daemon: PaseoDaemon, chosen: { provider?: string; model?: string } = {}): PaseoDaemon {
  return {
    ...daemon,
    ...(chosen.provider !== undefined ? { defaultProvider: chosen.provider } : {}),
    ...(chosen.model !== undefined ? { defaultModel: chosen.model } : {}),
  };
}

/**
 * Whether the manager agent of a run another process managed is gone: the agent its manager names
 * (`…, Paseo agent ID`: one serve made, judged even before it has step agents) and those its step
 * agents are labelled children of (`paseo.parent-agent-id`); gone when the daemon no longer has it, or
 * has it archived. A run that names no manager agent, whose agents name no parent, has none to judge.
 */
async function managerGone(
  client: { request(type: string, payload: Record<string, unknown>): Promise<Record<string, unknown>> },
  runId: string,
  named: string | undefined,
): Promise<boolean> {
  const listed = await client.request('fetch_agents_request', {
    filter: { labels: { 'kairoku.run': runId }, includeArchived: true },
  });
  const rows = Array.isArray(listed.entries)
    ? listed.entries.map((e: unknown) => (isObject(e) ? e.agent : undefined))
    : Array.isArray(listed.agents)
      ? listed.agents
      : [];
  // The manager agent the run names (one serve made, which may have no step agents yet), and the
  // parents its step agents name.
  const parents = new Set<string>(named !== undefined ? [named] : []);
  for (const row of rows as unknown[]) {
    const labels = isObject(row) && isObject(row.labels) ? row.labels : {};
    const parent = labels['paseo.parent-agent-id'];
    if (typeof parent === 'string' && parent) parents.add(parent);
  }
  for (const parent of parents) {
    const answer = await client.request('fetch_agent_request', { agentId: parent });
    const agent = isObject(answer.agent) ? answer.agent : undefined;
    if (!agent || (typeof agent.archivedAt === 'string' && agent.archivedAt.length > 0)) return true;
  }
  return false;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What the backend logs, as serve logs it: warnings and errors (they may quote the daemon). */
function paseoLog(log: (line: string) => void) {
  return (level: string, message: string) => {
    if (level !== 'info' && level !== 'debug') log(message);
  };
}
