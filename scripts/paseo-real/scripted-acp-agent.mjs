#!/usr/bin/env node
// A scripted ACP agent for checking the `paseo` backend against a real Paseo daemon by hand
// (docs/paseo.md, "Checking against the real daemon"). The daemon runs it as a custom provider
// ($PASEO_HOME/config.json: agents.providers.<id> = {extends: "acp", label, command: [node, this
// file, --acp-sdk, …, --script, …]}) and speaks ACP to it over stdio. It plays a step agent (or a
// Playbook Manager) without a model: each prompt is matched against the rules of a small JSON
// script, and the turn does what the rule says, calling the MCP servers the daemon forwarded in
// `session/new` (an http one with its bearer header, a stdio one as a child process).
//
//   --acp-sdk FILE   the daemon's own @agentclientprotocol/sdk (…/node_modules/@agentclientprotocol/sdk/dist/acp.js)
//   --script FILE    the rules, read again at every prompt (check.mjs rewrites it between checks)
//   --log FILE       one JSON line per thing seen or done (default: the script's folder, agents.log)
//
// The script: {"newSessionDelayMs"?: N, "stdioEnv"?: "configured", "rules": [{"match": "regexp",
// "turns": [TURN, …]}]} ("configured": stdio MCP servers get only their configured env). The
// first rule whose regexp matches the session's first prompt plays that session; its Nth prompt
// plays turns[N] (the last one again when there are fewer). A TURN is
//   {"delayMs"?: N, "write"?: {"path": "text"}, "fail"?: "message", "hang"?: true,
//    "calls"?: [{"server"?: "name", "tool": "name", "args": {…}}]}
// run in that order: wait, write files in the session's cwd, call the tools (a string value
// "$run" in args is the run id an earlier call's result named), then throw `fail` (the daemon
// sees a failed turn) or wait for a cancel (`hang`), else end the turn.
import { randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const argv = process.argv.slice(2);
const option = (name) => {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
};
const sdkPath = option('--acp-sdk');
const scriptPath = option('--script');
if (!sdkPath || !scriptPath) {
  process.stderr.write('usage: scripted-acp-agent.mjs --acp-sdk FILE --script FILE [--log FILE]\n');
  process.exit(2);
}
const logPath = option('--log') ?? join(dirname(resolve(scriptPath)), 'agents.log');
const acp = await import(pathToFileURL(resolve(sdkPath)).href);

function log(entry) {
  const line = {
    at: new Date().toISOString(),
    pid: process.pid,
    agent: process.env.PASEO_AGENT_ID,
    ...entry,
  };
  appendFileSync(logPath, `${JSON.stringify(line)}\n`);
}

function readScript() {
  try {
    return JSON.parse(readFileSync(scriptPath, 'utf8'));
  } catch (error) {
    log({ kind: 'script-unreadable', error: String(error) });
    return { rules: [] };
  }
}

const sleep = (ms, signal) =>
  new Promise((done, fail) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      fail(new Error('canceled'));
    });
  });

function promptText(prompt) {
  return prompt
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}

class ScriptedAgent {
  sessions = new Map();

  constructor(connection) {
    this.connection = connection;
  }

  async initialize() {
    log({ kind: 'initialize' });
    return { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: { loadSession: false } };
  }

  async newSession(params) {
    const script = readScript();
    // Probes (model and mode lists) open sessions without MCP servers: not worth a delay.
    const probe = !params.mcpServers?.length;
    log({
      kind: 'session-new',
      cwd: params.cwd,
      probe,
      mcpServers: params.mcpServers.map((server) => ({
        name: server.name,
        type: server.type ?? 'stdio',
        url: server.url,
        headers: server.headers?.map((header) => header.name),
      })),
    });
    if (!probe && script.newSessionDelayMs) await sleep(script.newSessionDelayMs);
    const sessionId = randomUUID();
    const session = {
      cwd: params.cwd,
      servers: params.mcpServers,
      clients: new Map(),
      prompts: 0,
      rule: undefined,
      abort: undefined,
      run: undefined,
    };
    this.sessions.set(sessionId, session);
    // Like a real agent, start the stdio MCP servers with the session (before the daemon has
    // registered the agent), so a manager's server meets the daemon as it would in real use.
    for (const server of params.mcpServers)
      if (server.type !== 'http' && server.type !== 'sse') await this.client(session, server);
    return { sessionId };
  }

  async authenticate() {
    return {};
  }

  async setSessionMode() {
    return {};
  }

  async cancel(params) {
    log({ kind: 'cancel' });
    this.sessions.get(params.sessionId)?.abort?.abort();
  }

  async prompt(params) {
    const session = this.sessions.get(params.sessionId);
    if (!session) throw new Error(`unknown session ${params.sessionId}`);
    const text = promptText(params.prompt);
    const index = session.prompts++;
    if (index === 0) {
      const rules = readScript().rules ?? [];
      session.rule = rules.find((rule) => new RegExp(rule.match).test(text));
    }
    // A manager's kickoff names its run ("You manage playbook run ID …"), as its wake-ups do
    // ("Playbook run ID:"): `$run` from then on.
    session.run ??= /(?:manage playbook run|Playbook run) ([A-Za-z0-9._-]+)/.exec(text)?.[1];
    const turns = session.rule?.turns ?? [{}];
    const turn = turns[Math.min(index, turns.length - 1)] ?? {};
    log({ kind: 'prompt', index, rule: session.rule?.match ?? null, text });
    session.abort = new globalThis.AbortController();
    const signal = session.abort.signal;
    try {
      await this.say(params.sessionId, `Scripted turn ${index} (${session.rule?.match ?? 'no rule'}).`);
      if (turn.delayMs) await sleep(turn.delayMs, signal);
      for (const [path, content] of Object.entries(turn.write ?? {})) {
        const target = resolve(session.cwd, path);
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, content);
      }
      for (const call of turn.calls ?? []) await this.call(params.sessionId, session, call);
      if (turn.fail) {
        log({ kind: 'fail', message: turn.fail });
        throw new Error(turn.fail);
      }
      if (turn.hang) await sleep(2 ** 31 - 1, signal);
    } catch (error) {
      if (signal.aborted) {
        log({ kind: 'turn-canceled' });
        return { stopReason: 'cancelled' };
      }
      throw error;
    } finally {
      session.abort = undefined;
    }
    log({ kind: 'turn-end' });
    return { stopReason: 'end_turn' };
  }

  async say(sessionId, text) {
    await this.connection.sessionUpdate({
      sessionId,
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
    });
  }

  async call(sessionId, session, call) {
    const server = call.server
      ? session.servers.find((candidate) => candidate.name === call.server)
      : session.servers[0];
    if (!server) throw new Error(`no MCP server ${call.server ?? '(any)'} in this session`);
    const client = await this.client(session, server);
    const args = JSON.parse(JSON.stringify(call.args ?? {}), (_key, value) =>
      value === '$run' ? session.run : value,
    );
    const result = await client.callTool({ name: call.tool, arguments: args });
    const text = (result.content ?? []).map((part) => part.text ?? '').join('\n');
    log({ kind: 'tool', server: server.name, tool: call.tool, args, isError: result.isError === true, text });
    try {
      const parsed = JSON.parse(text);
      if (typeof parsed.run === 'string') session.run ??= parsed.run;
    } catch {
      // not JSON: nothing to remember
    }
    await this.say(sessionId, `Called ${call.tool}: ${text.slice(0, 200)}`);
  }

  async client(session, server) {
    const known = session.clients.get(server.name);
    if (known) return known;
    const client = new Client({ name: 'scripted-acp-agent', version: '1.0.0' });
    if (server.type === 'http') {
      const headers = Object.fromEntries((server.headers ?? []).map((h) => [h.name, h.value]));
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }),
      );
    } else {
      // Some agents hand their own environment (PASEO_AGENT_ID included) to their stdio servers; others
      // (the MCP SDK's default, codex's whitelist) only the configured one: the script's `stdioEnv`.
      const configured = Object.fromEntries((server.env ?? []).map((e) => [e.name, e.value]));
      const env =
        readScript().stdioEnv === 'configured'
          ? { PATH: process.env.PATH, HOME: process.env.HOME, ...configured }
          : { ...process.env, ...configured };
      const transport = new StdioClientTransport({
        command: server.command,
        args: server.args ?? [],
        env,
        cwd: session.cwd,
        stderr: 'pipe',
      });
      // The server's own log lines, kept in the agents' log for the check to read.
      transport.stderr?.on('data', (chunk) =>
        log({ kind: 'mcp-stderr', server: server.name, text: String(chunk).trimEnd() }),
      );
      await client.connect(transport);
    }
    session.clients.set(server.name, client);
    return client;
  }
}

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
new acp.AgentSideConnection((connection) => new ScriptedAgent(connection), stream);
