/**
 * The Paseo daemon's WebSocket API as the client speaks it (docs/paseo.md, "The daemon's API"): its
 * versions, messages, errors and close codes, the daemon's address, and the frames it sends.
 */
import type WebSocket from 'ws';

export const PASEO_PROTOCOL_VERSION = 1;
/** Older clients are not shown newer providers (docs/paseo.md, "The daemon's API"). */
export const APP_VERSION = '0.1.65';
export const DEFAULT_PORT = 6767;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Log = (level: LogLevel, message: string) => void;

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

/** A frame's session message, or undefined (with a warning) when it is not one. */
export function decodeFrame(data: WebSocket.RawData, isBinary: boolean, log: Log): Payload | undefined {
  if (isBinary) {
    // The daemon multiplexes terminal streams in binary frames; this client opens none.
    log('debug', 'paseo: ignored a binary frame');
    return undefined;
  }
  const text = Array.isArray(data)
    ? Buffer.concat(data).toString('utf8')
    : Buffer.from(data as Buffer).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    log('warn', `paseo: ignored a frame that is not JSON: ${clip(text)}`);
    return undefined;
  }
  if (!isObject(parsed) || typeof parsed.type !== 'string') {
    log('warn', `paseo: ignored a frame of unknown shape: ${clip(text)}`);
    return undefined;
  }
  if (parsed.type === 'pong') return undefined;
  if (parsed.type !== 'session') {
    log('debug', `paseo: ignored a "${parsed.type}" frame`);
    return undefined;
  }
  if (!isObject(parsed.message) || typeof parsed.message.type !== 'string') {
    log('warn', `paseo: ignored a session frame without a message type: ${clip(text)}`);
    return undefined;
  }
  return parsed.message;
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
