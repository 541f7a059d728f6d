import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import WebSocket, { WebSocketServer } from 'ws';
import type { AgentScript, AgentTurn, ScriptedReport, Scripts } from './scripts.js';
import { startStdioServers } from './stdio-servers.js';
import { tempDir } from '../../../test/kit/temp.js';
import type { AgentMcp } from './stdio-servers.js';

/**
 * A protocol-faithful fake of the Paseo daemon (docs/paseo.md, "The daemon's API", and the framing of
 * the daemon's own source): a WebSocket server at `/ws` and `GET /api/health` on one HTTP server on
 * 127.0.0.1. The client's first frame must be a bare `hello` within the deadline (4001), valid
 * (4002), of protocol version 1 (4003); a password is checked on the subprotocol
 * `paseo.bearer.<password>` (4401). Every other frame is a `{type:"session", message}` envelope, the
 * daemon's messages carrying their fields in `payload`. Agents are scripted (see scripts.ts): their
 * turns stream `user_message → turn_started → assistant_message… → turn_completed →
 * attention_required` to every client, and they report through the MCP server in their
 * `mcpServers` with the SDK's real Streamable HTTP client.
 *
 * Faults on demand: `dropConnections()`, `restart()` (agents forgotten), `setOffline()` (upgrades
 * refused with 503), `sendGarbage()`.
 */

export interface FakePaseoOptions {
  password?: string;
  /** the hello deadline (the daemon's is 15 s) */
  helloTimeoutMs?: number;
  scripts?: Scripts;
  /** providers the daemon knows; those that get `mcpServers` are claude, codex, opencode and copilot */
  providers?: string[];
  /** where worktrees are made (default: a temporary folder, removed by `close`) */
  home?: string;
  version?: string;
  /** mark `checkout` worktrees for the first agent's branch auto-name too (the daemon does not) */
  autoNameCheckouts?: boolean;
  /**
   * hold each create_agent_request until `releaseCreates()` (a slow create, as the daemon's 0.6 to
   * 9.5 s): the agent is made, its first turn started and the answer sent only then
   */
  holdCreates?: boolean;
  /** answer create_agent_request only after the first turn's events went out (a slow answer) */
  answerCreateLate?: boolean;
  /**
   * how long an archive takes between canceling the agent's turn and marking it archived and closed
   * (default 20 ms; the daemon took about a second): a message sent meanwhile starts a turn that the
   * close then ends without any stream event, as on the daemon
   */
  archiveDelayMs?: number;
  /**
   * the agent is made and its first turn starts at once, but create_agent_request is answered only
   * this much later (the daemon took over 30 s under load, after the turn had begun)
   */
  createAnswerDelayMs?: number;
  /**
   * start the stdio MCP servers of an agent's config as its provider does (claude, codex, opencode,
   * copilot), with their configured environment only, and end them when the agent is archived
   * (`FakeAgent.mcp`): what the real daemon's providers do (see stdio-servers.ts)
   */
  startsStdioServers?: boolean;
}

export interface FakeAgent {
  id: string;
  provider: string;
  cwd: string;
  title: string | null;
  model: string | null;
  config: Record<string, unknown>;
  labels: Record<string, string>;
  initialPrompt: string | undefined;
  status: 'initializing' | 'idle' | 'running' | 'error' | 'closed';
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
  /**
   * the system prompt the provider was given: the config's for claude, codex, opencode and pi; none
   * for the others, which speak ACP and ignore it (as the daemon's providers do)
   */
  systemPrompt: string | null;
  /** every message it was sent after its first (reminders, nudges) */
  followUps: string[];
  timeline: Record<string, unknown>[];
  /** turns begun so far */
  turns: number;
  seq: number;
  epoch: string;
  turn?: { canceled: boolean; wake?: () => void };
  /** its stdio MCP servers, started as its provider starts them (`startsStdioServers`) */
  mcp?: AgentMcp[];
}

export interface ReportCall {
  agentId: string;
  step: string;
  attempt: number;
  report: ScriptedReport;
  /** the tool's answer was an error (a refusal), or the call failed */
  refused: boolean;
  text: string;
}

export interface ReceivedRequest {
  type: string;
  message: Record<string, unknown>;
}

const MCP_PROVIDERS = new Set(['claude', 'codex', 'opencode', 'copilot']);
/** providers that pass config.systemPrompt on; ACP ones (copilot, custom `extends: "acp"`) do not */
const SYSTEM_PROMPT_PROVIDERS = new Set(['claude', 'codex', 'opencode', 'pi']);
const MAX_TITLE = 40;

interface Connection {
  ws: WebSocket;
  hello: boolean;
  timer?: NodeJS.Timeout;
}

export class FakePaseoDaemon {
  readonly agents = new Map<string, FakeAgent>();
  /** each connection's `fetch_agents_request` subscription (one per session, as on the daemon) */
  private readonly subscriptions = new Map<WebSocket, Record<string, unknown>>();
  /** every session request received, in order */
  readonly requests: ReceivedRequest[] = [];
  readonly hellos: Record<string, unknown>[] = [];
  readonly reports: ReportCall[] = [];
  readonly worktrees: string[] = [];
  /** branches the first agent of a branch-off worktree renamed, as the daemon does */
  readonly autoRenamed: { worktree: string; branch: string }[] = [];
  /** branch-off worktrees whose first agent will rename their branch */
  private readonly autoNamePending = new Set<string>();
  /**
   * agents the daemon is still making (`fetch_agent_request` answers "Agent not found"), as when an
   * ACP provider starts its MCP servers during `session/new`, before the daemon registers the agent
   */
  readonly registering = new Set<string>();
  /** create_agent_requests waiting for `releaseCreates` */
  private readonly held: (() => void)[] = [];
  scripts: Scripts;
  serverId = `srv_${randomUUID().slice(0, 8)}`;
  /** how many times the daemon was restarted */
  restarts = 0;
  /** WebSocket upgrades refused while offline */
  refusedUpgrades = 0;
  private readonly connections = new Set<Connection>();
  private offline = false;
  private readonly sockets = new Set<Socket>();
  private readonly wss: WebSocketServer;
  private readonly home: string;
  private readonly ownHome: boolean;
  private readonly providers: Set<string>;
  /** turns still at work (their MCP calls), so `close` can wait for them */
  private readonly busy = new Set<Promise<void>>();

  private constructor(
    private readonly server: Server,
    private readonly options: FakePaseoOptions,
  ) {
    this.scripts = options.scripts ?? {};
    this.providers = new Set(options.providers ?? ['claude', 'codex', 'opencode', 'copilot', 'mock']);
    this.ownHome = options.home === undefined;
    this.home = options.home ?? tempDir('fake-paseo-');
    this.wss = new WebSocketServer({
      noServer: true,
      handleProtocols: (protocols) => [...protocols].find((p) => p.startsWith('paseo.bearer.')) ?? false,
    });
    this.wss.on('connection', (ws) => this.accept(ws));
    server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      if (this.offline) {
        this.refusedUpgrades++;
        socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      if ((req.url ?? '').split('?')[0] !== '/ws') {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit('connection', ws, req));
    });
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async start(options: FakePaseoOptions = {}): Promise<FakePaseoDaemon> {
    const server = createServer((req, res) => {
      if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/api/health') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'ok' }));
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not found' }));
    });
    const daemon = new FakePaseoDaemon(server, options);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return daemon;
  }

  /** `127.0.0.1:PORT`, as PASEO_HOST takes it */
  get host(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** connections that said hello and are open */
  get clients(): number {
    return [...this.connections].filter((c) => c.hello && c.ws.readyState === WebSocket.OPEN).length;
  }

  /** the requests of one type received so far */
  received(type: string): Record<string, unknown>[] {
    return this.requests.filter((r) => r.type === type).map((r) => r.message);
  }

  /** the agent of a step's attempt, by its labels */
  agentOf(step: string, attempt = 1): FakeAgent | undefined {
    return [...this.agents.values()].find(
      (a) => a.labels['kairoku.step'] === step && a.labels['kairoku.attempt'] === String(attempt),
    );
  }

  // ---- faults -------------------------------------------------------------------------------------

  /** Cuts every connection at once (no close frame); agents carry on. */
  dropConnections(): void {
    for (const connection of this.connections) connection.ws.terminate();
    this.connections.clear();
  }

  /** While offline, connections are cut and new ones refused (HTTP 503); agents carry on. */
  setOffline(offline: boolean): void {
    this.offline = offline;
    if (offline) this.dropConnections();
  }

  /** A restart that lost every agent: connections cut, agents forgotten, a new server id. */
  restart(): void {
    for (const agent of this.agents.values()) {
      if (agent.turn) {
        agent.turn.canceled = true;
        agent.turn.wake?.();
      }
    }
    this.agents.clear();
    this.restarts++;
    this.serverId = `srv_${randomUUID().slice(0, 8)}`;
    this.dropConnections();
  }

  /** Frames a client must survive: not JSON, wrong shapes, unknown types, binary. */
  sendGarbage(): void {
    const frames: (string | Buffer)[] = [
      'this is not json {',
      '[1,2,3]',
      '"a string"',
      JSON.stringify({ type: 'session' }),
      JSON.stringify({ type: 'session', message: 'nope' }),
      JSON.stringify({ type: 'session', message: { type: 'agent_stream', payload: { agentId: 7 } } }),
      JSON.stringify({ type: 'session', message: { type: 'a_message_from_the_future', payload: { x: 1 } } }),
      JSON.stringify({ type: 'session', message: { type: 'rpc_error', payload: { requestId: 'nobody' } } }),
      JSON.stringify({ type: 'something_else', payload: {} }),
      Buffer.from([1, 2, 3, 4]),
    ];
    for (const connection of this.connections) {
      if (!connection.hello) continue;
      for (const frame of frames) connection.ws.send(frame, { binary: typeof frame !== 'string' });
    }
  }

  /** create_agent_requests held (`holdCreates`) */
  get heldCreates(): number {
    return this.held.length;
  }

  /** Makes the agents of the held create_agent_requests and answers them. */
  releaseCreates(): void {
    for (const create of this.held.splice(0)) create();
  }

  /** Lets a held turn go on (to its reports, then its end). */
  release(agentId: string): void {
    const turn = this.agents.get(agentId)?.turn;
    turn?.wake?.();
  }

  /** Waits until no agent's turn is at work any more (held turns wait for their release or cancel). */
  async quiet(): Promise<void> {
    while (this.busy.size) await Promise.allSettled([...this.busy]);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.agents.values()].flatMap((a) => (a.mcp ?? []).map((m) => m.close())));
    for (const agent of this.agents.values()) {
      if (agent.turn) {
        agent.turn.canceled = true;
        agent.turn.wake?.();
      }
    }
    await Promise.allSettled([...this.busy]);
    for (const connection of this.connections) {
      clearTimeout(connection.timer);
      connection.ws.terminate();
    }
    this.wss.close();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.ownHome) rmSync(this.home, { recursive: true, force: true });
  }

  // ---- connections --------------------------------------------------------------------------------

  private accept(ws: WebSocket): void {
    const connection: Connection = { ws, hello: false };
    this.connections.add(connection);
    ws.on('close', () => {
      clearTimeout(connection.timer);
      this.connections.delete(connection);
      this.subscriptions.delete(connection.ws);
    });
    ws.on('error', () => {});
    if (this.options.password !== undefined && ws.protocol !== `paseo.bearer.${this.options.password}`) {
      ws.close(4401, 'Unauthorized');
      return;
    }
    connection.timer = setTimeout(
      () => ws.close(4001, 'Hello timeout'),
      this.options.helloTimeoutMs ?? 15_000,
    );
    ws.on('message', (data: WebSocket.RawData, isBinary: boolean) =>
      this.onFrame(connection, data, isBinary),
    );
  }

  private onFrame(connection: Connection, data: WebSocket.RawData, isBinary: boolean): void {
    const { ws } = connection;
    let parsed: unknown;
    try {
      if (isBinary) throw new Error('binary');
      parsed = JSON.parse(String(data));
    } catch {
      if (!connection.hello) return this.refuseHello(connection, 4002, 'Invalid hello');
      return this.send(ws, { type: 'status', payload: { status: 'error', message: 'Invalid message' } });
    }
    const frame = isRecord(parsed) ? parsed : {};
    if (frame.type === 'ping') return void ws.send(JSON.stringify({ type: 'pong' }));
    if (!connection.hello) {
      if (frame.type !== 'hello') return this.refuseHello(connection, 4002, 'Session message before hello');
      if (
        typeof frame.clientId !== 'string' ||
        typeof frame.protocolVersion !== 'number' ||
        typeof frame.clientType !== 'string'
      )
        return this.refuseHello(connection, 4002, 'Invalid hello');
      if (frame.protocolVersion !== 1)
        return this.refuseHello(connection, 4003, 'Incompatible protocol version');
      if (!frame.clientId.trim()) return this.refuseHello(connection, 4002, 'Invalid hello');
      clearTimeout(connection.timer);
      connection.hello = true;
      this.hellos.push(frame);
      this.send(ws, {
        type: 'status',
        payload: {
          status: 'server_info',
          serverId: this.serverId,
          hostname: 'fake-paseo',
          version: this.options.version ?? '0.1.65',
          capabilities: {},
          features: {},
        },
      });
      return;
    }
    if (frame.type === 'hello') {
      ws.close(4002, 'Unexpected hello');
      return;
    }
    if (frame.type !== 'session' || !isRecord(frame.message) || typeof frame.message.type !== 'string') {
      const requestId = isRecord(frame.message) ? frame.message.requestId : undefined;
      if (typeof requestId === 'string')
        return this.send(ws, {
          type: 'rpc_error',
          payload: { requestId, error: 'Invalid message', code: 'invalid_message' },
        });
      return this.send(ws, { type: 'status', payload: { status: 'error', message: 'Invalid message' } });
    }
    const message = frame.message as Record<string, unknown> & { type: string };
    this.requests.push({ type: message.type, message });
    try {
      this.handle(ws, message);
    } catch (error) {
      this.rpcError(ws, message, (error as Error).message, 'internal_error');
    }
  }

  private refuseHello(connection: Connection, code: number, reason: string): void {
    clearTimeout(connection.timer);
    connection.ws.close(code, reason);
  }

  private send(ws: WebSocket, message: Record<string, unknown>): void {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'session', message }));
  }

  private broadcast(message: Record<string, unknown>): void {
    for (const connection of this.connections) if (connection.hello) this.send(connection.ws, message);
  }

  private rpcError(ws: WebSocket, message: Record<string, unknown>, error: string, code: string): void {
    this.send(ws, {
      type: 'rpc_error',
      payload: { requestId: message.requestId, requestType: message.type, error, code },
    });
  }

  // ---- requests -----------------------------------------------------------------------------------

  private handle(ws: WebSocket, message: Record<string, unknown> & { type: string }): void {
    const requestId = message.requestId;
    const reply = (type: string, payload: Record<string, unknown>) =>
      this.send(ws, { type, payload: { ...payload, requestId } });
    if (typeof requestId !== 'string' && message.type !== 'cancel_agent_request')
      return this.rpcError(ws, message, 'Invalid message', 'invalid_message');
    switch (message.type) {
      case 'create_agent_request':
        return this.createAgent(ws, message);
      case 'fetch_agents_request': {
        const filter = isRecord(message.filter) ? message.filter : {};
        const labels = isRecord(filter.labels) ? (filter.labels as Record<string, string>) : {};
        const agents = [...this.agents.values()].filter((a) => matchesFilter(a, filter, labels));
        // With `subscribe`, the session gets `agent_update` for the agents the filter matches.
        const subscriptionId = isRecord(message.subscribe)
          ? String(message.subscribe.subscriptionId ?? randomUUID())
          : null;
        if (subscriptionId) this.subscriptions.set(ws, filter);
        return reply('fetch_agents_response', {
          subscriptionId,
          entries: agents.map((agent) => ({ agent: snapshot(agent), project: projectOf(agent) })),
          pageInfo: { nextCursor: null, prevCursor: null, hasMore: false },
        });
      }
      case 'fetch_agent_request': {
        const id = String(message.agentId);
        const agent = this.registering.has(id) ? undefined : this.agents.get(id);
        return reply('fetch_agent_response', {
          agent: agent ? snapshot(agent) : null,
          project: agent ? projectOf(agent) : null,
          error: agent ? null : `Agent not found: ${id}`,
        });
      }
      case 'send_agent_message_request': {
        const agent = this.agents.get(String(message.agentId));
        if (!agent)
          return reply('send_agent_message_response', {
            agentId: message.agentId,
            accepted: false,
            error: 'Agent not found',
          });
        if (agent.archivedAt) {
          // As the daemon does (sendPromptToAgent: unarchiveAgentState, then ensureAgentLoaded): a
          // message to an archived agent brings it back and runs the turn.
          agent.archivedAt = null;
          agent.status = 'idle';
          this.agentUpdate(agent);
        }
        const text = String(message.text ?? '');
        agent.followUps.push(text);
        if (agent.status === 'error' && !agent.turn) {
          // As the daemon does after a failed turn (session.ts, waitForAgentRunStart): the prompt is
          // dispatched, the wait for its run to start sees the agent still in `error` and answers
          // `accepted: false`, and the new turn starts all the same.
          reply('send_agent_message_response', {
            agentId: agent.id,
            accepted: false,
            error: `Agent ${agent.id} failed to start`,
          });
          this.startTurn(agent, text);
          return;
        }
        reply('send_agent_message_response', { agentId: agent.id, accepted: true, error: null });
        // A message to a running agent steers its turn; to an idle one it starts the next turn.
        if (!agent.turn) this.startTurn(agent, text);
        return;
      }
      case 'cancel_agent_request': {
        const agent = this.agents.get(String(message.agentId));
        if (agent) this.cancelTurn(agent);
        if (typeof requestId === 'string')
          reply('cancel_agent_response', {
            agentId: message.agentId,
            accepted: agent !== undefined,
            error: agent ? null : 'Agent not found',
          });
        return;
      }
      case 'wait_for_finish_request': {
        const agent = this.agents.get(String(message.agentId));
        if (!agent)
          return reply('wait_for_finish_response', {
            status: 'error',
            final: null,
            error: 'Agent not found',
            lastMessage: null,
          });
        const answer = () =>
          reply('wait_for_finish_response', {
            status: 'idle',
            final: snapshot(agent),
            error: null,
            lastMessage: lastMessage(agent),
          });
        if (!agent.turn) return answer();
        const timeoutMs = typeof message.timeoutMs === 'number' ? message.timeoutMs : 600_000;
        const started = Date.now();
        const poll = setInterval(() => {
          if (!agent.turn) {
            clearInterval(poll);
            answer();
          } else if (Date.now() - started > timeoutMs) {
            clearInterval(poll);
            reply('wait_for_finish_response', {
              status: 'timeout',
              final: snapshot(agent),
              error: null,
              lastMessage: null,
            });
          }
        }, 10);
        return;
      }
      case 'fetch_agent_timeline_request': {
        const agent = this.agents.get(String(message.agentId));
        if (!agent) return this.rpcError(ws, message, 'Agent not found', 'not_found');
        return reply('fetch_agent_timeline_response', {
          agentId: agent.id,
          entries: agent.timeline.map((item, index) => ({
            item,
            seqStart: index,
            seqEnd: index,
            timestamp: item.at,
          })),
          error: null,
        });
      }
      case 'archive_agent_request': {
        const agent = this.agents.get(String(message.agentId));
        if (!agent) return this.rpcError(ws, message, 'Agent not found', 'not_found');
        // Answered once archived, as the daemon does; archive cannot fail for an agent that exists.
        void this.archive(agent.id).then((archivedAt) =>
          reply('agent_archived', { agentId: agent.id, archivedAt }),
        );
        return;
      }
      case 'update_agent_request': {
        const agent = this.agents.get(String(message.agentId));
        if (!agent)
          return reply('update_agent_response', {
            agentId: message.agentId,
            accepted: false,
            error: 'Agent not found',
          });
        if (typeof message.name === 'string') agent.title = message.name;
        if (isRecord(message.labels)) Object.assign(agent.labels, message.labels);
        return reply('update_agent_response', { agentId: agent.id, accepted: true, error: null });
      }
      case 'create_paseo_worktree_request': {
        try {
          const path =
            message.action === 'checkout'
              ? this.checkoutWorktree(String(message.cwd), message.worktreeSlug, message.refName)
              : this.makeWorktree(String(message.cwd), message.worktreeSlug, message.refName);
          // As the daemon does (its "first agent branch auto-name"): a branch-off worktree made
          // without a first agent's context gets its branch renamed by the first agent made in it.
          if (
            (message.action !== 'checkout' || this.options.autoNameCheckouts) &&
            !isRecord(message.firstAgentContext)
          )
            this.autoNamePending.add(path);
          return reply('create_paseo_worktree_response', {
            workspace: { id: `wks_${randomUUID().slice(0, 8)}`, workspaceDirectory: path, kind: 'worktree' },
            error: null,
            setupTerminalId: null,
          });
        } catch (error) {
          return reply('create_paseo_worktree_response', {
            workspace: null,
            error: (error as Error).message,
            errorCode: 'UNKNOWN',
            setupTerminalId: null,
          });
        }
      }
      case 'paseo_worktree_list_request':
        return reply('paseo_worktree_list_response', {
          worktrees: this.worktrees
            .filter((path) => existsSync(path))
            .map((path) => ({
              worktreePath: path,
              branchName: git(path, ['rev-parse', '--abbrev-ref', 'HEAD']),
              head: git(path, ['rev-parse', 'HEAD']),
            })),
          error: null,
        });
      default:
        return this.rpcError(ws, message, 'Unknown request schema', 'unknown_schema');
    }
  }

  private createAgent(ws: WebSocket, message: Record<string, unknown>): void {
    if (this.options.holdCreates) {
      this.held.push(() => this.makeAgent(ws, message));
      return;
    }
    this.makeAgent(ws, message);
  }

  private makeAgent(ws: WebSocket, message: Record<string, unknown>): void {
    const requestId = message.requestId;
    const config = isRecord(message.config) ? message.config : undefined;
    if (!config || typeof config.provider !== 'string' || typeof config.cwd !== 'string')
      return this.rpcError(ws, message, 'Invalid message', 'invalid_message');
    if (
      typeof config.title === 'string' &&
      (config.title.trim().length === 0 || config.title.trim().length > MAX_TITLE)
    )
      return this.rpcError(
        ws,
        message,
        `Invalid message: title must be 1 to ${MAX_TITLE} characters`,
        'invalid_message',
      );
    const failed = (error: string, errorCode: string) =>
      this.send(ws, {
        type: 'status',
        payload: { status: 'agent_create_failed', requestId, error, errorCode },
      });
    if (!this.providers.has(config.provider))
      return failed(`Unknown provider "${config.provider}"`, 'unknown_provider');
    let cwd = config.cwd;
    const gitSetup = isRecord(message.git) ? message.git : undefined;
    try {
      if (gitSetup?.createWorktree === true)
        cwd = this.makeWorktree(cwd, gitSetup.worktreeSlug, gitSetup.baseBranch, gitSetup.newBranchName);
    } catch (error) {
      return failed((error as Error).message, 'worktree_failed');
    }
    if (!existsSync(cwd)) return failed(`Working directory does not exist: ${cwd}`, 'invalid_cwd');
    const now = new Date().toISOString();
    const prompt =
      typeof message.initialPrompt === 'string' && message.initialPrompt ? message.initialPrompt : undefined;
    try {
      this.autoNameBranch(cwd, prompt);
    } catch (error) {
      const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
      return failed(stderr || (error as Error).message, 'branch_rename_failed');
    }
    const agent: FakeAgent = {
      id: randomUUID(),
      provider: config.provider,
      cwd,
      title: typeof config.title === 'string' ? config.title : 'Generated title',
      model: typeof config.model === 'string' ? config.model : null,
      config,
      labels: isRecord(message.labels) ? { ...(message.labels as Record<string, string>) } : {},
      initialPrompt: prompt,
      systemPrompt:
        SYSTEM_PROMPT_PROVIDERS.has(config.provider) && typeof config.systemPrompt === 'string'
          ? config.systemPrompt
          : null,
      status: 'idle',
      createdAt: now,
      updatedAt: now,
      archivedAt: null,
      followUps: [],
      timeline: [],
      turns: 0,
      seq: 0,
      epoch: randomUUID().slice(0, 8),
    };
    this.agents.set(agent.id, agent);
    // As the daemon's ACP providers do in session/new: the servers start before create is answered.
    if (this.options.startsStdioServers && MCP_PROVIDERS.has(agent.provider))
      agent.mcp = startStdioServers(withProjectServers(config, agent.provider, cwd), cwd);
    if (prompt) agent.status = 'running';
    const answer = () =>
      this.send(ws, {
        type: 'status',
        payload: { status: 'agent_created', requestId, agentId: agent.id, agent: snapshot(agent) },
      });
    if (this.options.createAnswerDelayMs) {
      if (prompt) this.startTurn(agent, prompt);
      setTimeout(answer, this.options.createAnswerDelayMs);
      return;
    }
    if (prompt && this.options.answerCreateLate) {
      // The first turn's events (all of them, for a turn that does not wait) go out before the answer.
      this.startTurn(agent, prompt);
      answer();
      return;
    }
    answer();
    if (prompt) this.startTurn(agent, prompt);
  }

  // ---- agents -------------------------------------------------------------------------------------

  /**
   * Archives an agent as the daemon does (archiveAgentForClose), as a person does in Paseo's app: its
   * running turn is interrupted (turn_canceled), then, `archiveDelayMs` later, it is marked archived
   * and closed, and subscribed sessions get its `agent_update`. A turn started between the two (a
   * message sent on the cancel) is ended by the close without any stream event.
   */
  archive(agentId: string): Promise<string> {
    const agent = this.agents.get(agentId);
    if (!agent) return Promise.reject(new Error(`Agent not found: ${agentId}`));
    this.cancelTurn(agent);
    const close = (): string => {
      const archivedAt = new Date().toISOString();
      agent.archivedAt = archivedAt;
      if (agent.turn) {
        agent.turn.canceled = true;
        agent.turn.wake?.();
        agent.turn = undefined;
      }
      agent.status = 'closed';
      // The provider's process ends, and its stdio MCP servers with it.
      for (const server of agent.mcp ?? []) void server.close();
      this.agentUpdate(agent);
      return archivedAt;
    };
    // 0: archived at once, before any message the cancel brings can arrive.
    const delay = this.options.archiveDelayMs ?? 20;
    if (delay === 0) return Promise.resolve(close());
    return new Promise((resolve) => setTimeout(() => resolve(close()), delay));
  }

  private cancelTurn(agent: FakeAgent): void {
    if (!agent.turn) return;
    agent.turn.canceled = true;
    agent.turn.wake?.();
    agent.turn = undefined;
    agent.status = 'idle';
    this.stream(agent, { type: 'turn_canceled', reason: 'Canceled by user' });
  }

  /** `agent_update` to the sessions whose subscription matches the agent (archived ones included if asked). */
  private agentUpdate(agent: FakeAgent): void {
    for (const connection of this.connections) {
      const filter = this.subscriptions.get(connection.ws);
      if (!connection.hello || !filter) continue;
      const labels = isRecord(filter.labels) ? (filter.labels as Record<string, string>) : {};
      this.send(
        connection.ws,
        matchesFilter(agent, filter, labels)
          ? {
              type: 'agent_update',
              payload: { kind: 'upsert', agent: snapshot(agent), project: projectOf(agent) },
            }
          : { type: 'agent_update', payload: { kind: 'remove', agentId: agent.id } },
      );
    }
  }

  private startTurn(agent: FakeAgent, text: string): void {
    if (this.agents.get(agent.id) !== agent) return;
    const index = agent.turns++;
    const turn: NonNullable<FakeAgent['turn']> = { canceled: false };
    agent.turn = turn;
    agent.status = 'running';
    const work = this.runTurn(agent, turn, this.turnOf(agent, index), text).catch(() => {});
    this.busy.add(work);
    // `work` never rejects (caught above): this only forgets it once settled.
    void work.finally(() => this.busy.delete(work));
  }

  private async runTurn(
    agent: FakeAgent,
    turn: NonNullable<FakeAgent['turn']>,
    script: AgentTurn,
    text: string,
  ): Promise<void> {
    const gone = () => turn.canceled || this.agents.get(agent.id) !== agent;
    this.stream(agent, { type: 'timeline', item: { type: 'user_message', text } });
    this.stream(agent, { type: 'turn_started' });
    this.stream(agent, { type: 'timeline', item: { type: 'assistant_message', text: 'Working on it.' } });
    if (script.asksPermission)
      this.stream(agent, {
        type: 'permission_requested',
        request: { id: `perm_${agent.turns}`, name: script.asksPermission, kind: 'tool' },
      });
    if (script.write) {
      const path = join(agent.cwd, script.write.path);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, script.write.content);
    }
    if (script.hold) await new Promise<void>((resolve) => (turn.wake = resolve));
    turn.wake = undefined;
    if (gone()) return;
    for (const report of script.reports ?? []) {
      await this.report(agent, report);
      if (gone()) return;
    }
    for (const call of script.calls ?? []) {
      await this.callTool(agent, call, text);
      if (gone()) return;
    }
    agent.turn = undefined;
    agent.status = 'idle';
    agent.updatedAt = new Date().toISOString();
    if (script.fail) {
      agent.status = 'error';
      this.stream(agent, { type: 'turn_failed', error: script.fail });
      this.stream(agent, {
        type: 'attention_required',
        reason: 'error',
        timestamp: new Date().toISOString(),
        shouldNotify: false,
      });
      return;
    }
    this.stream(agent, { type: 'timeline', item: { type: 'assistant_message', text: 'Done.' } });
    this.stream(agent, { type: 'turn_completed' });
    this.stream(agent, {
      type: 'attention_required',
      reason: 'finished',
      timestamp: new Date().toISOString(),
      shouldNotify: false,
    });
    if (script.deleted) this.agents.delete(agent.id);
  }

  /** A tool call through the agent's stdio MCP server, streamed as Claude's timeline shows it. */
  private async callTool(
    agent: FakeAgent,
    call: NonNullable<AgentTurn['calls']>[number],
    text: string,
  ): Promise<void> {
    const server = agent.mcp?.[0];
    if (!server) return;
    const run = /(?:manage playbook run|Playbook run) ([A-Za-z0-9._-]+)/.exec(text)?.[1];
    const args = Object.fromEntries(
      Object.entries(call.args).map(([key, value]) => [key, value === '$run' ? run : value]),
    );
    let output: string;
    try {
      output = JSON.stringify(await server.call(call.tool, args));
    } catch (error) {
      output = (error as Error).message;
    }
    this.stream(agent, {
      type: 'timeline',
      item: {
        type: 'tool_call',
        callId: randomUUID(),
        name: `mcp__kairoku-playbook__${call.tool}`,
        input: args,
        output,
        status: 'completed',
      },
    });
  }

  /** One report, as an agent makes it: the MCP tool of the server in its config, over HTTP. */
  private async report(agent: FakeAgent, report: ScriptedReport): Promise<void> {
    const call: ReportCall = {
      agentId: agent.id,
      step: agent.labels['kairoku.step'] ?? '',
      attempt: Number(agent.labels['kairoku.attempt'] ?? 0),
      report,
      refused: true,
      text: '',
    };
    this.reports.push(call);
    const servers = isRecord(agent.config.mcpServers) ? agent.config.mcpServers : {};
    const server = Object.values(servers).find(
      (s): s is { type: 'http'; url: string; headers?: Record<string, string> } =>
        isRecord(s) && s.type === 'http' && typeof s.url === 'string',
    );
    if (!server || !MCP_PROVIDERS.has(agent.provider)) {
      call.text = `provider ${agent.provider} has no MCP server to report through`;
      return;
    }
    const client = new Client({ name: 'fake-paseo-agent', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: server.headers ?? {} },
    });
    try {
      await client.connect(transport);
      const result = await client.callTool({
        name: 'report_step_result',
        arguments: {
          outcome: report.outcome,
          ...(report.summary !== undefined ? { summary: report.summary } : {}),
          ...(report.outputs !== undefined ? { outputs: report.outputs } : {}),
        },
      });
      const content = Array.isArray(result.content) ? result.content : [];
      call.text = content.map((c) => (isRecord(c) && typeof c.text === 'string' ? c.text : '')).join('\n');
      call.refused = result.isError === true;
      this.stream(agent, {
        type: 'timeline',
        item: {
          type: 'tool_call',
          callId: randomUUID(),
          name: 'report_step_result',
          input: report,
          output: call.text,
          status: call.refused ? 'failed' : 'completed',
          error: call.refused ? { message: call.text } : null,
        },
      });
    } catch (error) {
      call.text = (error as Error).message;
    } finally {
      await client.close().catch(() => {});
    }
  }

  private turnOf(agent: FakeAgent, index: number): AgentTurn {
    const list = this.scripts[agent.labels['kairoku.step'] ?? agent.labels['fake.script'] ?? ''];
    const attempt = Number(agent.labels['kairoku.attempt'] ?? 1);
    const script: AgentScript | undefined = list?.length
      ? list[Math.min(Math.max(attempt, 1), list.length) - 1]
      : undefined;
    return script?.turns[index] ?? {};
  }

  private stream(agent: FakeAgent, event: Record<string, unknown>): void {
    const timestamp = new Date().toISOString();
    const seq = agent.seq++;
    if (event.type === 'timeline')
      agent.timeline.push({ ...(event.item as Record<string, unknown>), at: timestamp });
    this.broadcast({
      type: 'agent_stream',
      payload: {
        agentId: agent.id,
        event: { ...event, provider: agent.provider },
        timestamp,
        seq,
        epoch: agent.epoch,
      },
    });
  }

  /**
   * `action: "checkout"` of an existing branch (the daemon's `checkout-branch`): a worktree of that
   * branch, not marked for the first agent's branch auto-name; the one of the same slug when it exists.
   */
  private checkoutWorktree(cwd: string, slug: unknown, refName: unknown): string {
    if (typeof refName !== 'string' || !refName.trim())
      throw new Error('action "checkout" requires refName or githubPrNumber');
    const name = typeof slug === 'string' && slug ? slugify(slug) : slugify(refName);
    const path = join(this.home, 'worktrees', name);
    if (this.worktrees.includes(path) && existsSync(path)) return path;
    mkdirSync(dirname(path), { recursive: true });
    execFileSync('git', ['-C', cwd, 'worktree', 'add', path, refName.trim()], { stdio: 'pipe' });
    this.worktrees.push(path);
    return path;
  }

  /**
   * The daemon's first-agent branch auto-name (paseo-worktree-service.ts): the first agent created in
   * a pending worktree renames the branch checked out there after its first message
   * (`git branch -m`), once; a rename git refuses (a branch of that name exists) fails the create.
   */
  private autoNameBranch(cwd: string, prompt: string | undefined): void {
    if (!this.autoNamePending.has(cwd) || !prompt) return;
    this.autoNamePending.delete(cwd);
    const name = slugify(prompt);
    if (!name) return;
    execFileSync('git', ['-C', cwd, 'branch', '-m', name], { stdio: 'pipe' });
    this.autoRenamed.push({ worktree: cwd, branch: name });
  }

  private makeWorktree(cwd: string, slug: unknown, base: unknown, branch?: unknown): string {
    const name = typeof slug === 'string' && slug ? slug : `worktree-${randomUUID().slice(0, 6)}`;
    const path = join(this.home, 'worktrees', name);
    mkdirSync(dirname(path), { recursive: true });
    const ref = typeof base === 'string' && base ? base : 'HEAD';
    execFileSync(
      'git',
      ['-C', cwd, 'worktree', 'add', '-b', typeof branch === 'string' && branch ? branch : name, path, ref],
      {
        stdio: 'pipe',
      },
    );
    this.worktrees.push(path);
    return path;
  }
}

function matchesFilter(
  agent: FakeAgent,
  filter: Record<string, unknown>,
  labels: Record<string, string>,
): boolean {
  return (
    (filter.includeArchived === true || !agent.archivedAt) &&
    Object.entries(labels).every(([name, value]) => agent.labels[name] === value)
  );
}

/**
 * A Claude agent also gets the project's MCP servers: the daemon starts Claude with the setting sources
 * "user" and "project" (claude-agent.ts), and the project source reads `.mcp.json` at the workspace's
 * root. Other providers get only their config's.
 */
function withProjectServers(
  config: Record<string, unknown>,
  provider: string,
  cwd: string,
): Record<string, unknown> {
  const file = join(cwd, '.mcp.json');
  if (provider !== 'claude' || !existsSync(file)) return config;
  const project = JSON.parse(readFileSync(file, 'utf8')) as {
    mcpServers?: Record<string, Record<string, unknown>>;
  };
  const servers = Object.fromEntries(
    Object.entries(project.mcpServers ?? {}).map(([name, server]) => [name, { type: 'stdio', ...server }]),
  );
  return { ...config, mcpServers: { ...servers, ...(isRecord(config.mcpServers) ? config.mcpServers : {}) } };
}

function snapshot(agent: FakeAgent): Record<string, unknown> {
  return {
    id: agent.id,
    provider: agent.provider,
    cwd: agent.cwd,
    model: agent.model,
    createdAt: agent.createdAt,
    updatedAt: agent.updatedAt,
    lastUserMessageAt: agent.updatedAt,
    status: agent.status,
    capabilities: {
      supportsStreaming: true,
      supportsSessionPersistence: true,
      supportsDynamicModes: false,
      supportsMcpServers: MCP_PROVIDERS.has(agent.provider),
      supportsReasoningStream: false,
      supportsToolInvocations: true,
    },
    currentModeId: null,
    availableModes: [],
    pendingPermissions: [],
    persistence: null,
    title: agent.title,
    labels: { ...agent.labels },
    requiresAttention: agent.status === 'idle',
    attentionReason: agent.status === 'idle' ? 'finished' : null,
    archivedAt: agent.archivedAt,
  };
}

function projectOf(agent: FakeAgent): Record<string, unknown> {
  return {
    projectKey: agent.cwd,
    projectName: agent.cwd.split('/').pop() ?? agent.cwd,
    checkout: { cwd: agent.cwd },
  };
}

function lastMessage(agent: FakeAgent): string | null {
  const last = [...agent.timeline].reverse().find((item) => item.type === 'assistant_message');
  return last && typeof last.text === 'string' ? last.text : null;
}

function git(dir: string, args: string[]): string | null {
  try {
    return execFileSync('git', ['-C', dir, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch {
    return null;
  }
}

/** The daemon's slugify (utils/worktree.ts): lower case, runs of other characters to `-`, 50 at most. */
function slugify(input: string): string {
  const slug = input
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (slug.length <= 50) return slug;
  const truncated = slug.slice(0, 50);
  const lastHyphen = truncated.lastIndexOf('-');
  return lastHyphen > 25 ? truncated.slice(0, lastHyphen) : truncated;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
