import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import {
  APP_VERSION,
  PASEO_PROTOCOL_VERSION,
  PaseoError,
  daemonUrl,
  decodeFrame,
  describeClose,
  isObject,
  payloadOf,
} from './daemon-api.js';
import type { AgentUpdate, Log, Payload, ServerInfo, StreamEvent } from './daemon-api.js';

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

export {
  APP_VERSION,
  DEFAULT_PORT,
  PASEO_PROTOCOL_VERSION,
  PaseoError,
  createdAgentId,
  daemonUrl,
  describeClose,
  isObject,
  payloadOf,
} from './daemon-api.js';
export type { AgentUpdate, Log, LogLevel, Payload, ServerInfo, StreamEvent } from './daemon-api.js';

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
        const message = decodeFrame(data, isBinary, this.log);
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
      const message = decodeFrame(data, isBinary, this.log);
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
