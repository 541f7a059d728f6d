/**
 * `kairoku-playbook init --mcp`: what lets every agent started in a workspace manage playbook runs —
 * seed 000's "an agent gets the manager tools when its workspace contains a playbook", and what serve's
 * Start with the current agent needs (docs/paseo.md, "Start with the workspace's current agent").
 *
 * The Paseo daemon cannot add MCP servers to a live agent, and passes an agent only the servers of its
 * own config, so the tools must come from what each provider reads in the workspace when it starts:
 * - Claude: the daemon starts it with the setting sources "user" and "project"
 *   (getpaseo/paseo f3de5689, packages/server/src/server/agent/providers/claude-agent.ts,
 *   `CLAUDE_SETTING_SOURCES`); the project source reads `.mcp.json` at the workspace's root, and
 *   `.claude/settings.json` enables its servers (`enabledMcpjsonServers`) and allows tools.
 * - codex: its own config (`~/.codex/config.toml`, `[mcp_servers.NAME]`): printed, not written (it is
 *   the person's, not the repository's).
 * - ACP providers: nothing from the workspace (the daemon's `session/new` carries the agent config's
 *   servers only).
 * Files already there are merged: other servers and settings are kept. Never a password.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { commandArgvHere } from '../command-here.js';
import { displayPath } from '../discover.js';
import { UsageError, writeUserFile } from '../io.js';
import type { CommandIo } from '../io.js';

const SERVER = 'kairoku-playbook';

export interface McpSetup {
  folder: string;
  /** `--paseo-host`, when not the daemon's default (127.0.0.1:6767, or $PASEO_HOST where the agent runs) */
  host?: string;
  /** `--paseo-password-file`: the file the server reads the daemon's password from */
  passwordFile?: string;
  /** the manager's tools, as `mcp` serves them */
  tools: readonly string[];
}

/** The server as `.mcp.json` and codex's config name it: the command and its arguments. */
export function managerServer(setup: McpSetup): { command: string; args: string[] } {
  const [command, ...rest] = commandArgvHere(setup.folder);
  return {
    command: command!,
    args: [
      ...rest,
      'mcp',
      '--agents',
      'paseo',
      ...(setup.host !== undefined ? ['--paseo-host', setup.host] : []),
      ...(setup.passwordFile !== undefined ? ['--paseo-password-file', setup.passwordFile] : []),
    ],
  };
}

/** Writes (merging) `.mcp.json` and `.claude/settings.json`; prints codex's lines. */
export function writeMcpSetup(setup: McpSetup, io: CommandIo): void {
  const server = managerServer(setup);
  const mcp = join(setup.folder, '.mcp.json');
  mergeJson(mcp, (config) => {
    const servers = asObject(config.mcpServers);
    return { ...config, mcpServers: { ...servers, [SERVER]: server } };
  });
  io.stdout(`wrote ${displayPath(mcp, io.cwd)} (the ${SERVER} server for Claude agents)\n`);
  const settings = join(setup.folder, '.claude', 'settings.json');
  mergeJson(settings, (config) => {
    const permissions = asObject(config.permissions);
    const allow = stringList(permissions.allow);
    const enabled = stringList(config.enabledMcpjsonServers);
    const tools = setup.tools.map((tool) => `mcp__${SERVER}__${tool}`);
    return {
      ...config,
      enabledMcpjsonServers: [...new Set([...enabled, SERVER])],
      permissions: { ...permissions, allow: [...new Set([...allow, ...tools])] },
    };
  });
  io.stdout(`wrote ${displayPath(settings, io.cwd)} (the server enabled, its tools allowed)\n`);
  const toml = [
    `[mcp_servers.${SERVER}]`,
    `command = ${JSON.stringify(server.command)}`,
    `args = [${server.args.map((a) => JSON.stringify(a)).join(', ')}]`,
  ];
  io.stdout(`\ncodex reads its own config: add to ~/.codex/config.toml\n${toml.join('\n')}\n`);
}

function mergeJson(path: string, change: (config: Record<string, unknown>) => Record<string, unknown>): void {
  let config: Record<string, unknown> = {};
  if (existsSync(path)) {
    try {
      config = asObject(JSON.parse(readFileSync(path, 'utf8')));
    } catch (error) {
      throw new UsageError(
        `${path} is not JSON (${(error as Error).message}): fix it, then run init --mcp again`,
      );
    }
  }
  mkdirSync(dirname(path), { recursive: true });
  writeUserFile(path, `${JSON.stringify(change(config), null, 2)}\n`);
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
