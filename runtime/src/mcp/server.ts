import type { Readable, Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { defaultHome } from '../store/run-store.js';
import type { AgentMode } from './backend.js';
import { MANAGER_GUIDE } from './guide.js';
import { PlaybookProtocol } from './protocol.js';
import { checkStepAgentToken } from './token.js';
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
  /** the manager's server also exposes report_step_result (tests, harnesses, the sim) */
  withStepTools?: boolean;
  /** a step agent's server: only report_step_result, bound to this run, step and attempt */
  stepAgent?: { run: string; step: string; attempt: number; token: string };
  /** the command line that starts `kairoku-playbook` (for step agents' servers) */
  selfCommand?: readonly string[];
  stdin?: Readable;
  stdout?: Writable;
  /** where warnings go (stderr); stdout carries the protocol */
  log?: (line: string) => void;
}

export interface RunningServer {
  server: McpServer;
  protocol: PlaybookProtocol;
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
  let server: McpServer;
  const protocol = new PlaybookProtocol({
    workspace: options.workspace,
    home,
    ...(options.agents ? { agents: options.agents } : {}),
    ...(options.scenario !== undefined ? { scenario: options.scenario } : {}),
    ...(options.selfCommand ? { selfCommand: options.selfCommand } : {}),
    caller: () => {
      const client = server?.server.getClientVersion();
      return client ? `${client.name}${client.version ? ` ${client.version}` : ''} (mcp)` : 'mcp client';
    },
  });
  const info = { name: 'kairoku-playbook', version: options.version };

  if (options.stepAgent) {
    const binding = options.stepAgent;
    if (!checkStepAgentToken(home, binding.run, binding.step, binding.attempt, binding.token))
      throw new ToolError(
        `the token does not match run ${binding.run}, step ${binding.step}, attempt ${binding.attempt}; use the command line start_step gave for this attempt`,
      );
    const state = protocol.store.load(binding.run);
    if (!state) throw new ToolError(`unknown run "${binding.run}" in ${protocol.store.folder}`);
    const ir =
      state.ir.steps.find((s) => s.name === binding.step) ??
      state.ir.after.find((a) => `after.${a.name}` === binding.step);
    if (!ir || ir.kind === 'gate')
      throw new ToolError(`run ${binding.run} has no agent or check step "${binding.step}"`);
    server = new McpServer(info, {
      instructions: `You are the agent of step "${binding.step}" of playbook run ${binding.run}. When your work is done, call report_step_result once with your outcome, a summary and your outputs, then end your turn.`,
    });
    registerStepAgentTool(server, protocol, {
      ...binding,
      outcomes: ir.outcomes.map((o) => o.name),
      outputs: ir.outputs.map((o) => `${o.name}: ${o.type}`),
    });
  } else {
    for (const problem of protocol.recover())
      options.log?.(`warning: cannot read ${problem.file}: ${problem.message}`);
    server = new McpServer(info, { instructions: MANAGER_GUIDE });
    registerManagerTools(server, protocol);
    if (options.withStepTools) registerReportTool(server, protocol);
  }

  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  let done: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (done = resolve));
  transport.onclose = () => done();
  transport.onerror = (error) => options.log?.(`warning: ${error.message}`);
  const close = async () => {
    await server.close();
    done();
  };
  stdin.once('end', () => void close());
  await server.connect(transport);
  return { server, protocol, closed, close };
}
