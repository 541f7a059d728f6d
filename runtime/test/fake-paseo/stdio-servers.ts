import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** A stdio MCP server as an agent's config names it (`mcpServers`). */
interface StdioConfig {
  type: 'stdio';
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

/** One agent's stdio MCP server, started as its provider starts it, and the agent's client of it. */
export interface AgentMcp {
  /** resolves once the client is connected (rejects when the server does not start) */
  ready: Promise<Client>;
  /** what the server wrote on stderr so far */
  stderr(): string;
  /** whether the server's process has exited */
  exited(): boolean;
  /** calls a tool as the agent's model would; the text of its result, or throws with a refusal's */
  call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * What the real daemon does with a stdio MCP server in an agent's config (getpaseo/paseo f3de5689,
 * found by running it): the agent's provider starts it with the configured `env` only — the MCP SDK's
 * default environment (PATH, HOME, …) and that, never the daemon's or the agent's own, so
 * `$PASEO_AGENT_ID` does not reach it — and the server is the provider's child, so archiving the
 * agent (its provider process ends) ends the server too.
 */
export function startStdioServers(config: Record<string, unknown>, cwd: string): AgentMcp[] {
  const servers = isRecord(config.mcpServers) ? Object.values(config.mcpServers) : [];
  return servers.filter(isStdio).map((server) => startOne(server, cwd));
}

function startOne(server: StdioConfig, cwd: string): AgentMcp {
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args ?? [],
    env: server.env ?? {},
    cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  let exited = false;
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  transport.onclose = () => (exited = true);
  const client = new Client({ name: 'fake-paseo-provider', version: '1.0.0' });
  const ready = client.connect(transport).then(() => client);
  // A server that does not start is seen by whoever awaits `ready`.
  ready.catch(() => undefined);
  return {
    ready,
    stderr: () => stderr,
    exited: () => exited,
    async call(name, args) {
      const result = await (await ready).callTool({ name, arguments: args });
      const text = (result.content as { text: string }[]).map((c) => c.text).join('\n');
      if (result.isError) throw new Error(`${name} was refused: ${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    },
    close: async () => {
      await client.close().catch(() => undefined);
      exited = true;
    },
  };
}

function isStdio(value: unknown): value is StdioConfig {
  return isRecord(value) && value.type === 'stdio' && typeof value.command === 'string';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
