/* eslint-disable max-lines -- over the bound when the rule came in (2026-12-06): to be split, issue 22 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';

/**
 * A client of the Paseo daemon's WebSocket API (docs/paseo.md, "The daemon's API"): the hello handshake,
 * requests correlated by `requestId`, the `agent_stream` events every client receives, and
 * reconnection with capped exponential backoff once a connection has been made.
 *
 * Framing, as the daemon has it: the client's first frame is a bare `{type:"hello", …}` (the daemon
 * closes with 4002 when a session message comes before it); every frame after that, both ways, is a
 * `{type:"session", message}` envelope. The daemon's messages carry their fields in
 * `message.payload`; a message without `payload` is read flat, so either shape is understood.
 * Anything else (frames that are not JSON, unknown shapes or types) is ignored with a warning.
 */

export const PASEO_PROTOCOL_VERSION = 1;
/** Older clients are not shown newer providers (docs/paseo.md, "The daemon's API"). */
export const APP_VERSION = '0.1.65';
export const DEFAULT_PORT = 6767;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Log = (level: LogLevel, message: string) => void;

export interface ReconnectOptions {
  /** the first wait after a lost connection (default 250 ms) */
  initialDelayMs?: number;
  /** the cap on the wait between attempts (default 10 s) */
  maxDelayMs?: number;
  /** how much each failed attempt multiplies the wait (default 2) */
  factor?: number;
}

export interface PaseoClientOptions {
  /** `HOST:PORT`, `HOST` (port 6767), or a `ws://` / `http://` URL; the path defaults to `/ws` */
  host: string;
  /** offered as the WebSocket subprotocol `paseo.bearer.<password>` */
  password?: string;
  /** one id for the client's whole life: the daemon resumes its session when it reconnects */
  clientId?: string;
  /** how long a request may wait for its answer, reconnection included (default 30 s) */
  requestTimeoutMs?: number;
  /** how long the handshake may take, from the TCP connect to `server_info` (default 10 s) */
  handshakeTimeoutMs?: number;
  /** false: a lost connection is not retried */
  reconnect?: ReconnectOptions | false;
  log?: Log;
}

export interface ServerInfo {
  status: 'server_info';
  serverId?: string;
  hostname?: string | null;
  version?: string | null;
  capabilities?: unknown;
  features?: unknown;
  [key: string]: unknown;
}

/** An `agent_update` of a subscription: an agent's snapshot (`upsert`), or one leaving the filter (`remove`). */
export type AgentUpdate = { kind: 'upsert'; agent: Payload } | { kind: 'remove'; agentId: string };

/** An `agent_stream` event: `event.type` is `turn_completed`, `timeline`, … */
export interface StreamEvent {
  agentId: string;
  event: { type: string; [key: string]: unknown };
  timestamp?: string;
  seq?: number;
  epoch?: string;
}

export type Payload = Record<string, unknown>;

/** A failure to reach or to stay connected to the daemon, or a request that failed. */
export class PaseoError extends Error {
  constructor(
    message: string,
    readonly details: {
      /** the WebSocket close code, when the daemon closed the connection */
      closeCode?: number;
      /** `rpc_error`'s code */
      code?: string;
      /** the answer did not come within the request's timeout: the daemon may still act on it */
      timedOut?: boolean;
      /** the connection was lost while a request waited: the daemon may or may not have acted on it */
      connectionLost?: boolean;
      /** retrying cannot help (a wrong password, an incompatible protocol): the client stopped */
      fatal?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'PaseoError';
  }
}

/** What each close code of the daemon means, for the error a user reads. */
export function describeClose(code: number, reason: string): { message: string; fatal: boolean } {
  const said = reason ? ` (${reason})` : '';
  switch (code) {
    case 4401:
      return {
        message: `the Paseo daemon refused the password (close code 4401${said}): set PASEO_PASSWORD to the daemon's password, or give the CLI --paseo-password-file FILE`,
        fatal: true,
      };
    case 4001:
      return {
        message: `the Paseo daemon closed the connection: no hello in time (close code 4001${said})`,
        fatal: true,
      };
    case 4002:
      return {
        message: `the Paseo daemon refused the client's hello as invalid (close code 4002${said})`,
        fatal: true,
      };
    case 4003:
      return {
        message: `the Paseo daemon speaks another protocol version than ${PASEO_PROTOCOL_VERSION} (close code 4003${said}): update Paseo or kairoku-playbook`,
        fatal: true,
      };
    default:
      return { message: `the Paseo daemon closed the connection (close code ${code}${said})`, fatal: false };
  }
}

/** The WebSocket address of a daemon given as `HOST:PORT`, `HOST` or a URL. */
export function daemonUrl(host: string): string {
  const given = host.trim();
  if (!given) throw new PaseoError('no Paseo daemon address: set PASEO_HOST (HOST:PORT)', { fatal: true });
  let url: URL;
  try {
    url = /^[a-z]+:\/\//i.test(given) ? new URL(given) : new URL(`ws://${given}`);
  } catch {
    throw new PaseoError(`"${host}" is not a Paseo daemon address: give HOST:PORT`, { fatal: true });
  }
  if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol === 'https:') url.protocol = 'wss:';
  else if (url.protocol !== 'ws:' && url.protocol !== 'wss:')
    throw new PaseoError(`"${host}" is not a Paseo daemon address: give HOST:PORT or a ws:// URL`, {
      fatal: true,
    });
  if (!url.port && url.protocol === 'ws:') url.port = String(DEFAULT_PORT);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/ws';
  return url.toString();
}

interface Pending {
  type: string;
  resolve(payload: Payload): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

type State = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'closed' | 'failed';

export class PaseoClient {
  readonly url: string;
  readonly clientId: string;
  private socket: WebSocket | undefined;
  /** the socket of a connection attempt still in its handshake */
  private opening: WebSocket | undefined;
  private state: State = 'idle';
  private readonly pending = new Map<string, Pending>();
  private readonly streamListeners = new Set<(event: StreamEvent) => void>();
  private readonly agentUpdateListeners = new Set<(update: AgentUpdate) => void>();
  private readonly reconnectListeners = new Set<() => void>();
  private readonly disconnectListeners = new Set<(error: PaseoError) => void>();
  private readonly fatalListeners = new Set<(error: PaseoError) => void>();
  /** callers waiting for the connection to be open again */
  private openWaiters: { resolve(): void; reject(error: Error): void }[] = [];
  private retryTimer: NodeJS.Timeout | undefined;
  private failure: PaseoError | undefined;
  private readonly log: Log;
  serverInfo: ServerInfo | undefined;
  /** how many connections were made, the first included */
  connections = 0;

  private constructor(private readonly options: PaseoClientOptions) {
    this.url = daemonUrl(options.host);
    this.clientId = options.clientId ?? `kairoku-playbook-${randomUUID()}`;
    this.log = options.log ?? (() => {});
  }

  /** Connects and says hello; rejects with a clear error when the daemon cannot be reached or refuses. */
  static async connect(options: PaseoClientOptions): Promise<PaseoClient> {
    const client = new PaseoClient(options);
    client.state = 'connecting';
    try {
      await client.open();
    } catch (error) {
      client.state = 'failed';
      throw error;
    }
    client.state = 'open';
    return client;
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  /** Every `agent_stream` event; returns the way to stop listening. */
  onStream(listener: (event: StreamEvent) => void): () => void {
    this.streamListeners.add(listener);
    return () => this.streamListeners.delete(listener);
  }

  /**
   * Every `agent_update` of the session's subscription (`fetch_agents_request` with `subscribe`): an
   * agent's state changed (its status, its archiving). Returns the way to stop listening.
   */
  onAgentUpdate(listener: (update: AgentUpdate) => void): () => void {
    this.agentUpdateListeners.add(listener);
    return () => this.agentUpdateListeners.delete(listener);
  }

  /** After each reconnection (hello answered again): the place to fetch what was missed. */
  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  onDisconnect(listener: (error: PaseoError) => void): () => void {
    this.disconnectListeners.add(listener);
    return () => this.disconnectListeners.delete(listener);
  }

  /** The client gave up for good (a refused password, an incompatible daemon). */
  onFatal(listener: (error: PaseoError) => void): () => void {
    this.fatalListeners.add(listener);
    return () => this.fatalListeners.delete(listener);
  }

  /**
   * Sends a request and resolves with its answer's payload (`rpc_error` rejects with its message).
   * While the connection is down, the request waits for the next one, within its timeout.
   */
  async request(type: string, body: Payload = {}, options: { timeoutMs?: number } = {}): Promise<Payload> {
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs ?? 30_000;
    const deadline = Date.now() + timeoutMs;
    await this.whenOpen(timeoutMs, type);
    const socket = this.socket;
    if (!socket || this.state !== 'open')
      throw new PaseoError(`${type}: the connection to the Paseo daemon was lost`, { connectionLost: true });
    const requestId = randomUUID();
    return new Promise<Payload>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          this.pending.delete(requestId);
          reject(
            new PaseoError(`${type}: the Paseo daemon did not answer within ${timeoutMs} ms`, {
              timedOut: true,
            }),
          );
        },
        Math.max(0, deadline - Date.now()),
      );
      this.pending.set(requestId, { type, resolve, reject, timer });
      socket.send(JSON.stringify({ type: 'session', message: { ...body, type, requestId } }), (error) => {
        if (!error) return;
        const waiting = this.pending.get(requestId);
        if (!waiting) return;
        this.pending.delete(requestId);
        clearTimeout(waiting.timer);
        reject(
          new PaseoError(`${type}: could not be sent to the Paseo daemon (${error.message})`, {
            connectionLost: true,
          }),
        );
      });
    });
  }

  /** Stops: no more reconnection; waiting requests are rejected. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    clearTimeout(this.retryTimer);
    const error = new PaseoError('the Paseo client was closed');
    this.rejectAll(error);
    this.releaseWaiters(error);
    this.opening?.terminate();
    const socket = this.socket;
    this.socket = undefined;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        socket.terminate();
        resolve();
      }, 1000);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.close(1000, 'client closing');
    });
  }

  // ---- connection -------------------------------------------------------------------------------

  /** One connection attempt: resolves once the daemon answered the hello with `server_info`. */
  private open(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const fail = (error: PaseoError) => {
        if (settled) return;
        settled = true;
        if (this.opening === socket) this.opening = undefined;
        clearTimeout(timer);
        socket.removeAllListeners();
        socket.on('error', () => {});
        socket.terminate();
        reject(error);
      };
      const timeoutMs = this.options.handshakeTimeoutMs ?? 10_000;
      const protocols = this.options.password !== undefined ? [`paseo.bearer.${this.options.password}`] : [];
      let socket: WebSocket;
      try {
        socket = new WebSocket(this.url, protocols, { handshakeTimeout: timeoutMs });
      } catch (error) {
        reject(
          new PaseoError(
            `cannot connect to the Paseo daemon at ${this.url}: ${(error as Error).message}` +
              (protocols.length ? ' (a password must be a valid WebSocket subprotocol token)' : ''),
            { fatal: true },
          ),
        );
        return;
      }
      this.opening = socket;
      const timer = setTimeout(
        () =>
          fail(
            new PaseoError(`the Paseo daemon at ${this.url} did not answer the hello within ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
      socket.on('error', (error: Error & { code?: string }) => {
        const refused = error.code === 'ECONNREFUSED';
        fail(
          new PaseoError(
            `cannot reach the Paseo daemon at ${this.url}: ${error.message}` +
              (refused ? ' (is the daemon running? PASEO_HOST sets its address)' : ''),
          ),
        );
      });
      socket.on('close', (code: number, reason: Buffer) => {
        const described = describeClose(code, reason.toString());
        fail(new PaseoError(described.message, { closeCode: code, fatal: described.fatal }));
      });
      socket.on('open', () => {
        socket.send(
          JSON.stringify({
            type: 'hello',
            clientId: this.clientId,
            clientType: 'cli',
            protocolVersion: PASEO_PROTOCOL_VERSION,
            appVersion: APP_VERSION,
          }),
        );
      });
      socket.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
        const message = this.decode(data, isBinary);
        if (!message) return;
        const payload = payloadOf(message);
        if (message.type === 'status' && payload.status === 'server_info') {
          if (settled) return;
          settled = true;
          if (this.opening === socket) this.opening = undefined;
          clearTimeout(timer);
          this.serverInfo = payload as ServerInfo;
          this.attach(socket);
          resolve();
          return;
        }
        this.log('debug', `paseo: ${String(message.type)} before server_info, ignored`);
      });
    });
  }

  /** The handshake is done: this socket is the client's connection from now on. */
  private attach(socket: WebSocket): void {
    this.socket = socket;
    this.connections++;
    socket.removeAllListeners('message');
    socket.removeAllListeners('close');
    socket.removeAllListeners('error');
    socket.on('error', (error: Error) => this.log('warn', `paseo: connection error: ${error.message}`));
    socket.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
      const message = this.decode(data, isBinary);
      if (message) this.handle(message);
    });
    socket.on('close', (code: number, reason: Buffer) => this.dropped(socket, code, reason.toString()));
    if (this.state !== 'closed') this.state = 'open';
    this.releaseWaiters();
  }

  private dropped(socket: WebSocket, code: number, reason: string): void {
    if (this.socket !== socket || this.state === 'closed') return;
    this.socket = undefined;
    const described = describeClose(code, reason);
    const error = new PaseoError(described.message, { closeCode: code, fatal: described.fatal });
    this.rejectAll(
      new PaseoError(`the connection to the Paseo daemon was lost (${described.message})`, {
        connectionLost: true,
        closeCode: code,
      }),
    );
    this.emit(this.disconnectListeners, error);
    if (described.fatal || this.options.reconnect === false) {
      this.giveUp(error);
      return;
    }
    this.log('warn', `paseo: ${described.message}; reconnecting`);
    this.state = 'reconnecting';
    this.scheduleRetry(0);
  }

  private scheduleRetry(attempt: number): void {
    const options = this.options.reconnect || {};
    const initial = options.initialDelayMs ?? 250;
    const cap = options.maxDelayMs ?? 10_000;
    const factor = options.factor ?? 2;
    const base = Math.min(cap, initial * factor ** attempt);
    // Half fixed, half random: clients that lost the same daemon do not all come back at once.
    const delay = base / 2 + Math.random() * (base / 2);
    this.retryTimer = setTimeout(() => {
      if (this.state !== 'reconnecting') return;
      this.open().then(
        () => {
          if (this.state === 'closed') {
            this.socket?.close(1000, 'client closing');
            return;
          }
          this.log('info', `paseo: reconnected to ${this.url}`);
          this.emit(this.reconnectListeners, undefined);
        },
        (error: PaseoError) => {
          if (this.state !== 'reconnecting') return;
          if (error.details.fatal) {
            this.giveUp(error);
            return;
          }
          this.log('debug', `paseo: reconnection attempt ${attempt + 1} failed: ${error.message}`);
          this.scheduleRetry(attempt + 1);
        },
      );
    }, delay);
  }

  private giveUp(error: PaseoError): void {
    this.state = 'failed';
    this.failure = error;
    this.log('error', `paseo: ${error.message}; not reconnecting`);
    this.releaseWaiters(error);
    this.emit(this.fatalListeners, error);
  }

  private whenOpen(timeoutMs: number, type: string): Promise<void> {
    if (this.state === 'open') return Promise.resolve();
    if (this.state === 'closed')
      return Promise.reject(new PaseoError(`${type}: the Paseo client was closed`));
    if (this.state === 'failed')
      return Promise.reject(this.failure ?? new PaseoError(`${type}: not connected to the Paseo daemon`));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.openWaiters = this.openWaiters.filter((w) => w !== waiter);
        reject(
          new PaseoError(`${type}: the Paseo daemon could not be reached again within ${timeoutMs} ms`, {
            connectionLost: true,
          }),
        );
      }, timeoutMs);
      const waiter = {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.openWaiters.push(waiter);
    });
  }

  private releaseWaiters(error?: Error): void {
    const waiters = this.openWaiters;
    this.openWaiters = [];
    for (const waiter of waiters) {
      if (error) waiter.reject(error);
      else waiter.resolve();
    }
  }

  private rejectAll(error: PaseoError): void {
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.reject(new PaseoError(`${pending.type}: ${error.message}`, error.details));
    }
  }

  // ---- frames -----------------------------------------------------------------------------------

  /** A frame's session message, or undefined (with a warning) when it is not one. */
  private decode(data: WebSocket.RawData, isBinary: boolean): Payload | undefined {
    if (isBinary) {
      // The daemon multiplexes terminal streams in binary frames; this client opens none.
      this.log('debug', 'paseo: ignored a binary frame');
      return undefined;
    }
    const text = Array.isArray(data)
      ? Buffer.concat(data).toString('utf8')
      : Buffer.from(data as Buffer).toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.log('warn', `paseo: ignored a frame that is not JSON: ${clip(text)}`);
      return undefined;
    }
    if (!isObject(parsed) || typeof parsed.type !== 'string') {
      this.log('warn', `paseo: ignored a frame of unknown shape: ${clip(text)}`);
      return undefined;
    }
    if (parsed.type === 'pong') return undefined;
    if (parsed.type !== 'session') {
      this.log('debug', `paseo: ignored a "${parsed.type}" frame`);
      return undefined;
    }
    if (!isObject(parsed.message) || typeof parsed.message.type !== 'string') {
      this.log('warn', `paseo: ignored a session frame without a message type: ${clip(text)}`);
      return undefined;
    }
    return parsed.message;
  }

  private handle(message: Payload): void {
    const payload = payloadOf(message);
    const requestId = typeof payload.requestId === 'string' ? payload.requestId : undefined;
    switch (message.type) {
      case 'agent_stream': {
        const event = payload.event;
        if (typeof payload.agentId !== 'string' || !isObject(event) || typeof event.type !== 'string') {
          this.log('warn', 'paseo: ignored an agent_stream message without an agent id and event type');
          return;
        }
        this.emit(this.streamListeners, payload as unknown as StreamEvent);
        return;
      }
      case 'agent_update': {
        if (payload.kind === 'upsert' && isObject(payload.agent) && typeof payload.agent.id === 'string')
          this.emit(this.agentUpdateListeners, { kind: 'upsert', agent: payload.agent });
        else if (payload.kind === 'remove' && typeof payload.agentId === 'string')
          this.emit(this.agentUpdateListeners, { kind: 'remove', agentId: payload.agentId });
        else this.log('warn', 'paseo: ignored an agent_update message of unknown shape');
        return;
      }
      case 'rpc_error': {
        const waiting = requestId ? this.take(requestId) : undefined;
        const error = typeof payload.error === 'string' ? payload.error : 'unknown error';
        if (!waiting) {
          this.log('warn', `paseo: rpc_error for no pending request: ${error}`);
          return;
        }
        const code = typeof payload.code === 'string' ? payload.code : undefined;
        waiting.reject(
          new PaseoError(
            `${waiting.type}: the Paseo daemon refused it: ${error}${code ? ` (${code})` : ''}`,
            {
              ...(code !== undefined ? { code } : {}),
            },
          ),
        );
        return;
      }
      case 'status':
        if (payload.status === 'server_info') {
          this.serverInfo = payload as ServerInfo;
          return;
        }
        if (payload.status === 'error') {
          this.log('warn', `paseo: the daemon reported an error: ${String(payload.message ?? '')}`);
          return;
        }
        break;
    }
    if (requestId) {
      const waiting = this.take(requestId);
      if (waiting) {
        waiting.resolve(payload);
        return;
      }
    }
    this.log('debug', `paseo: ignored a "${String(message.type)}" message`);
  }

  private take(requestId: string): Pending | undefined {
    const waiting = this.pending.get(requestId);
    if (!waiting) return undefined;
    this.pending.delete(requestId);
    clearTimeout(waiting.timer);
    return waiting;
  }

  private emit<T>(listeners: Set<(value: T) => void>, value: T): void {
    for (const listener of [...listeners]) {
      try {
        listener(value);
      } catch (error) {
        this.log('error', `paseo: a listener failed: ${(error as Error).stack ?? String(error)}`);
      }
    }
  }
}

/** A message's fields: its `payload` (the daemon's shape), or the message itself when it has none. */
export function payloadOf(message: Payload): Payload {
  return isObject(message.payload) ? message.payload : message;
}

/** The agent id in a `create_agent_request`'s answer (`agentId`, or `agent.id` in older daemons). */
export function createdAgentId(answer: Record<string, unknown>): string | undefined {
  if (typeof answer.agentId === 'string') return answer.agentId;
  return isObject(answer.agent) && typeof answer.agent.id === 'string' ? answer.agent.id : undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 80 ? `${flat.slice(0, 80)}…` : flat;
}
