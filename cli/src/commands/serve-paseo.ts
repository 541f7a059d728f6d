/**
 * `serve --backend paseo`: runs started by serve are driven by its run host (autopilot; gates wait for
 * a decision from the panel, the API or `runs decide`), their agent steps Paseo agents of the daemon,
 * connected with the flags and password handling of `run --backend paseo` (paseo-options.ts: the
 * password from a file or $PASEO_PASSWORD, never a command-line value).
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
import { join, resolve } from 'node:path';
import type { Backend, BackendContext, RunState } from '@kairoku-playbook/runtime';
import { PASEO_FLAGS, paseoOptions } from './paseo-options.js';
import type { PaseoCliOptions } from './paseo-options.js';
import type { ServeBackend, ServeBackendEntry, ServeBackendRequest } from './serve-backend.js';
import { flag } from '../args.js';
import { UsageError } from '../io.js';
import { selfCommand } from '../self-command.js';
import { PASEO_SERVE_HELP } from './serve-help.js';

export const PASEO_SERVE: ServeBackendEntry = {
  flags: PASEO_FLAGS,
  help: PASEO_SERVE_HELP,
  setup: setupPaseo,
};

// eslint-disable-next-line max-lines-per-function -- over the bound when the rule came in (2026-12-06): to be split, issue 22
async function setupPaseo(request: ServeBackendRequest): Promise<ServeBackend> {
  const { args, env, io, home, workspace, log } = request;
  const daemon = paseoOptions(args, env, io.cwd);
  // Loaded only here: the paseo backend brings ws and the MCP SDK's HTTP transport.
  const { paseo, startSharedReportEndpoint } = await import('@kairoku-playbook/runtime/backends');
  const serve = await import('@kairoku-playbook/runtime/serve');
  const runtime = await import('@kairoku-playbook/runtime');

  // The daemon is asked once at start: a serve that cannot reach it says so rather than fail every run.
  let client: Awaited<ReturnType<typeof paseo.PaseoClient.connect>>;
  try {
    client = await paseo.PaseoClient.connect({
      host: daemon.host,
      ...(daemon.password !== undefined ? { password: daemon.password } : {}),
      log: paseoLog(log),
    });
  } catch (error) {
    throw new UsageError(`serve --backend paseo: ${(error as Error).message}`, { cause: error });
  }

  let reports: Awaited<ReturnType<typeof startSharedReportEndpoint>>;
  try {
    reports = await startSharedReportEndpoint({
      home,
      portFile: reportPortFile(home, workspace),
      log: (message) => log(`paseo: ${message}`),
    });
  } catch (error) {
    await client.close();
    throw new UsageError(
      `serve --backend paseo: the step agents' report endpoint: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  if (reports.movedFrom !== undefined)
    log(
      `the step agents' report endpoint could not listen on port ${reports.movedFrom} again (taken): it listens at ${reports.url}; agents started by an earlier serve cannot report, and are lost when their turn ends`,
    );

  const connectFor = (state: RunState) =>
    paseo.PaseoBackend.connect({
      ...daemonOptions(daemon, state.startOptions),
      cwd: state.workspace ?? workspace,
      workspace: state.ir.workspace,
      runId: state.id,
      playbook: state.ir.id,
      ...(state.branch ? { branch: state.branch } : {}),
      reports,
      log: paseoLog(log),
    });

  const store = new runtime.RunStore(home);
  const ready = new Map<string, Backend>();
  const goneManagers = new Set<string>();
  try {
    for (const state of store.loadAll().runs) {
      if (state.workspace !== workspace || state.backend !== 'paseo') continue;
      if (!serve.hasWorkGoing(state) || store.owner(state.id) !== undefined) continue;
      if (state.manager && state.manager !== serve.HOST_MANAGER) {
        // A run whose manager agent serve was still making when it stopped has no manager to wait for.
        const gone =
          state.manager === paseo.MANAGER_BEING_MADE ||
          (await managerGone(client, state.id, paseo.managerAgentOf(state.manager)));
        if (gone) goneManagers.add(state.manager);
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
    throw error;
  } finally {
    await client.close();
  }

  // A manager agent's MCP server reaches the daemon as serve does, but never with the password on its
  // command line or in its environment (both are kept in the agent's config by the daemon): a password
  // file is named; a password from $PASEO_PASSWORD cannot be passed on safely, so no new agent then.
  const passwordFlag = flag(args, 'paseo-password-file');
  const passwordFile = passwordFlag === undefined ? undefined : resolve(io.cwd, passwordFlag);
  const newAgentRefused =
    daemon.password !== undefined && passwordFile === undefined
      ? "serve's Paseo password came from $PASEO_PASSWORD, which a manager agent's MCP server cannot be given without writing it into the agent's config: start serve with --paseo-password-file FILE to offer a new agent"
      : undefined;
  const self = selfCommand();
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
  const startWithNewAgent: ServeBackend['startWithNewAgent'] = async (host, ir, inputs, options) => {
    let daemonClient: Awaited<ReturnType<typeof paseo.PaseoClient.connect>> | undefined;
    try {
      const chosen = daemonOptions(daemon, options);
      return await paseo.startWithNewManager({
        host,
        ir,
        inputs,
        options,
        provider: chosen.defaultProvider ?? 'claude',
        ...(chosen.defaultModel !== undefined ? { model: chosen.defaultModel } : {}),
        mcpServer: managerServer,
        client: async () =>
          (daemonClient ??= await paseo.PaseoClient.connect({
            host: daemon.host,
            ...(daemon.password !== undefined ? { password: daemon.password } : {}),
            reconnect: false,
            requestTimeoutMs: 120_000,
            log: paseoLog(log),
          })),
        log: paseoLog(log),
      });
    } finally {
      await daemonClient?.close();
    }
  };

  const backends = new Set<Backend>();
  return {
    backendFor: (state) => {
      const connected = ready.get(state.id);
      ready.delete(state.id);
      const backend = connected ?? new serve.DeferredBackend('paseo', () => connectFor(state));
      backends.add(backend);
      return backend;
    },
    managerExists: (manager) => !goneManagers.has(manager),
    recovered: () => reports.open(),
    adopt: (_state: RunState, backend: Backend, context: BackendContext) => {
      if (backend instanceof paseo.PaseoBackend) backend.adopt(context);
    },
    ...(newAgentRefused === undefined
      ? { startWithNewAgent }
      : { unofferedWhy: { newAgent: newAgentRefused } }),
    startOptions: {
      newAgent: newAgentRefused === undefined,
      worktree: true,
      agents: {
        defaultProvider: daemon.defaultProvider ?? 'claude',
        ...(daemon.defaultModel !== undefined ? { defaultModel: daemon.defaultModel } : {}),
      },
    },
    close: async () => {
      await Promise.allSettled([...ready.values(), ...backends].map((b) => b.close?.() ?? Promise.resolve()));
      await reports.close();
    },
  };
}

/** Where serve keeps the port of its step agents' report endpoint, per workspace. */
function reportPortFile(home: string, workspace: string): string {
  const hash = createHash('sha256').update(workspace).digest('hex').slice(0, 16);
  return join(home, 'serve', `${hash}.reports.json`);
}

/** The daemon and the run's provider and model: its start options win over serve's flags. */
function daemonOptions(
  daemon: PaseoCliOptions,
  chosen: { provider?: string; model?: string } = {},
): PaseoCliOptions {
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
