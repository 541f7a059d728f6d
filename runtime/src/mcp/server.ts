import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { stepIr } from '@kairoku-playbook/machine';
import { RunStore, defaultHome } from '../store/run-store.js';
import type { AgentMode } from './backend.js';
import { MANAGER_GUIDE } from '../backends/manager-guide.js';
import { PaseoHost } from '../backends/paseo/host.js';
import type { PaseoAgentsOptions } from '../backends/paseo/host.js';
import { PlaybookProtocol } from './protocol.js';
import { checkStepAgentToken } from '../store/step-token.js';
import { GuardedStdioTransport } from './stdio-transport.js';
import { registerManagerTools, registerReportTool, registerStepAgentTool } from './tools.js';
import { ToolError } from './tool-error.js';

export interface ServeOptions {
  /** the program's version, announced to clients */
  version: string;
  /** the workspace whose playbooks the manager can start (the server's working folder by default) */
  workspace: string;
  home?: string;
  /** who does started steps' work (default `sim`) */
  agents?: AgentMode;
  /** a parsed scenario scripting the sim agents */
  scenario?: unknown;
  /** `agents: 'paseo'`: the daemon, its password, and the manager's Paseo agent */
  paseo?: PaseoAgentsOptions;
  /** the manager's server also exposes report_step_result (tests, harnesses, the sim) */
  withStepTools?: boolean;
  /** a step agent's server: only report_step_result, bound to this run, step and attempt */
  stepAgent?: { run: string; step: string; attempt: number; token: string };
  /** the command line that starts `kairoku-playbook` (for step agents' servers) */
  selfCommand?: readonly string[];
  stdin?: Readable;
  stdout?: Writable;
  /** the longest message line read (default MAX_MCP_MESSAGE_BYTES, 10 MiB) */
  maxMessageBytes?: number;
  /** where warnings go (stderr); stdout carries the protocol */
  log?: (line: string) => void;
}

export interface RunningServer {
  server: McpServer;
  protocol: PlaybookProtocol;
  /** `agents: 'paseo'`: the runs this server hosts, their backends, and the manager's wake-ups */
  paseo: PaseoHost | undefined;
  /** resolves when the client has gone (stdin ended) or the server was closed */
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves the manager protocol over MCP on stdio (`kairoku-playbook mcp`). A manager's server exposes
 * every tool but report_step_result (unless `withStepTools`); a step agent's server exposes only
 * report_step_result, bound to the run, step and attempt its token was made for. A bad binding
 * rejects before anything is served (ToolError: a usage problem).
 */
export async function serveMcp(options: ServeOptions): Promise<RunningServer> {
  const home = options.home ?? defaultHome();
  // With Paseo agents, the daemon is reached before anything is served (an error says why not).
  const made: { protocol?: PlaybookProtocol; server?: McpServer } = {};
  const paseo =
    options.agents === 'paseo' && !options.stepAgent ? await startPaseoHost(options, home, made) : undefined;
  const protocol = new PlaybookProtocol({
    workspace: options.workspace,
    home,
    ...(options.agents ? { agents: options.agents } : {}),
    ...(options.scenario !== undefined ? { scenario: options.scenario } : {}),
    ...(options.selfCommand ? { selfCommand: options.selfCommand } : {}),
    ...(paseo ? { paseo } : {}),
    caller: () => {
      const client = made.server?.server.getClientVersion();
      const who = client ? `${client.name}${client.version ? ` ${client.version}` : ''} (mcp)` : 'mcp client';
      // Read at each start: a server serve gave a run may learn its agent after it started.
      const managerAgent = paseo?.managerAgent;
      return managerAgent ? `${who}, Paseo agent ${managerAgent}` : who;
    },
  });
  made.protocol = protocol;
  const info = { name: 'kairoku-playbook', version: options.version };
  made.server = options.stepAgent
    ? stepAgentServer(protocol, home, options.stepAgent, info)
    : await managerServer(protocol, paseo, options, info);
  return connect(made.server, protocol, paseo, options);
}

/** The live side of a manager's server whose step agents are Paseo agents. */
function startPaseoHost(
  options: ServeOptions,
  home: string,
  made: { protocol?: PlaybookProtocol },
): Promise<PaseoHost> {
  return PaseoHost.start({
    ...(options.paseo ?? {}),
    store: new RunStore(home),
    workspace: workspaceFolder(options.workspace),
    clock: Date.now,
    runHost: () => {
      if (!made.protocol) throw new Error('the Paseo host was asked for a run before the protocol was made');
      return made.protocol.host;
    },
    log: (line) => options.log?.(`warning: ${line}`),
  });
}

type ServerInfo = ConstructorParameters<typeof McpServer>[0];

/** A step agent's server: report_step_result only, once its token is checked against its binding. */
function stepAgentServer(
  protocol: PlaybookProtocol,
  home: string,
  binding: NonNullable<ServeOptions['stepAgent']>,
  info: ServerInfo,
): McpServer {
  if (!checkStepAgentToken(home, binding.run, binding.step, binding.attempt, binding.token))
    throw new ToolError(
      `the token does not match run ${binding.run}, step ${binding.step}, attempt ${binding.attempt}; use the command line start_step gave for this attempt`,
    );
  const state = protocol.store.load(binding.run);
  if (!state) throw new ToolError(`unknown run "${binding.run}" in ${protocol.store.folder}`);
  const ir = stepIr(state, binding.step);
  if (!ir || ir.kind === 'gate')
    throw new ToolError(`run ${binding.run} has no agent or check step "${binding.step}"`);
  const server = new McpServer(info, {
    instructions: `You are the agent of step "${binding.step}" of playbook run ${binding.run}. When your work is done, call report_step_result once with your outcome, a summary and your outputs, then end your turn.`,
  });
  registerStepAgentTool(server, protocol, {
    ...binding,
    outcomes: ir.outcomes.map((o) => o.name),
    outputs: ir.outputs.map((o) => `${o.name}: ${o.type}`),
  });
  return server;
}

/** A manager's server, once the runs a killed server left running are recovered. */
async function managerServer(
  protocol: PlaybookProtocol,
  paseo: PaseoHost | undefined,
  options: ServeOptions,
  info: ServerInfo,
): Promise<McpServer> {
  let problems: ReturnType<PlaybookProtocol['recover']>;
  try {
    problems = protocol.recover();
  } catch (error) {
    await paseo?.close();
    throw error;
  }
  for (const problem of problems) options.log?.(`warning: cannot read ${problem.file}: ${problem.message}`);
  const server = new McpServer(info, { instructions: MANAGER_GUIDE });
  registerManagerTools(server, protocol);
  if (options.withStepTools) registerReportTool(server, protocol);
  return server;
}

/** Serves on stdio until the client goes (stdin ends) or `close` is called. */
async function connect(
  server: McpServer,
  protocol: PlaybookProtocol,
  paseo: PaseoHost | undefined,
  options: ServeOptions,
): Promise<RunningServer> {
  const stdin = options.stdin ?? process.stdin;
  // A message over the limit, not JSON or not JSON-RPC is answered with an error; the session goes on.
  const transport = new GuardedStdioTransport(stdin, options.stdout ?? process.stdout, {
    ...(options.maxMessageBytes ? { maxMessageBytes: options.maxMessageBytes } : {}),
    log: (line) => options.log?.(`warning: ${line}`),
  });
  let done: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (done = resolve));
  let closing: Promise<void> | undefined;
  // The client has gone: the hosted runs are let go (their Paseo agents stay, seed 000).
  const close = (): Promise<void> => {
    if (closing) return closing;
    let finish: () => void = () => undefined;
    closing = new Promise<void>((resolve) => (finish = resolve));
    // `closing` is what callers wait for; this settles it whatever fails (server.close's failure is
    // logged, paseo.close settles everything it closes and does not reject).
    void (async () => {
      try {
        await server.close();
      } catch (error) {
        options.log?.(`warning: ${(error as Error).message}`);
      } finally {
        await paseo?.close();
        done();
        finish();
      }
    })();
    return closing;
  };
  // Listeners cannot wait; close logs its own failures, and `closed` tells the caller when it is done.
  transport.onclose = () => void close();
  transport.onerror = (error) => options.log?.(`warning: ${error.message}`);
  // As above: close logs its own failures.
  stdin.once('end', () => void close());
  try {
    await server.connect(transport);
  } catch (error) {
    await paseo?.close();
    throw error;
  }
  // A restarted server takes up the workspace's runs whose agents are still out there. Not awaited: the
  // server answers at once; takeUp logs each run it cannot take up yet (a tool call tries again).
  if (paseo) void paseo.takeUp();
  return { server, protocol, paseo, closed, close };
}

function workspaceFolder(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}
