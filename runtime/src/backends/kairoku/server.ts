import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { LIMITS, PROTOCOL_VERSION, ROUTES, checkBody, describeProblems, errorBody } from './protocol.js';
import type { Route } from './protocol.js';
import { describeForbidden, forbiddenKey } from '@kairoku-playbook/machine';
import { resolveBindAddress } from '../bind-address.js';
import type { Lookup } from '../bind-address.js';
import { LISTENER_OPTIONS, discardBody, readBody } from '../http-body.js';
import type { BodyLimits } from '../http-body.js';
import type { ReportService } from '../report-endpoint.js';
import type { TlsIdentity } from './tls.js';

/** What answers the routes once a request is authenticated and fits its schema. */
export interface ProtocolHandler {
  handle(route: Route, body: unknown): { status: number; body: unknown };
  /** a request refused before it reached a dispatch (a bad credential or body), or a server bug */
  fault(text: string, body?: unknown): void;
}

export interface KairokuServer {
  /** `http://HOST:PORT` or `https://HOST:PORT`, the address runners are given as the app URL */
  url: string;
  /** the address bound (what the host resolved to) */
  address: string;
  port: number;
  close(): Promise<void>;
}

export interface KairokuServerOptions {
  host: string;
  port: number;
  appToken: string;
  /**
   * bind an interface other machines can reach (the wildcard never): the routes are behind the app
   * credential; without `tls` they are plain HTTP. Off by default.
   */
  allowNonLoopback?: boolean;
  /** serve over TLS with this certificate and key */
  tls?: TlsIdentity;
  /**
   * refuse a routable address unless `tls` is given (`serve`): a credential sent in the clear is not
   * offered beyond this machine
   */
  requireTlsOffLoopback?: boolean;
  /** the wildcard, spelled `0.0.0.0` or `::` (every interface by name), with TLS only */
  allowWildcard?: boolean;
  /**
   * the step agents' report endpoint, served on this same listener at `/mcp` (outside the app
   * credential: each request carries its dispatch's own token, RF-008)
   */
  reports?: ReportService;
  /**
   * the URL runners and their agents are given instead of the one this listener's address makes
   * (a name runners resolve, a port forwarded to this one): `https://ci-box.example.com:7421`
   */
  publicUrl?: string;
  /** the resolver (tests); default Node's `dns.lookup` */
  lookup?: Lookup;
  /** how long a request body may take to arrive (tests); default that of http-body.ts */
  bodyTimeoutMs?: number;
}

/**
 * The app's side of the runner protocol over HTTP (docs/kairoku-protocol.md): `POST /v1/ROUTE` under
 * one bearer credential (a wrong one is 401, RF-012). Every request body is checked against its
 * schema (400 with ajv's findings), and every response this server sends against its own: a response
 * that does not fit is a bug, answered 500 rather than sent.
 */
export async function startKairokuServer(
  handler: ProtocolHandler,
  options: KairokuServerOptions,
): Promise<KairokuServer> {
  if (options.appToken.length < 16) throw new Error('the app credential must be at least 16 characters');
  const bindTo = await bindAddressOf(options);
  const serving: Serving = {
    handler,
    expected: digest(options.appToken),
    limits: {
      maxBytes: LIMITS.bodyBytes,
      ...(options.bodyTimeoutMs !== undefined ? { timeoutMs: options.bodyTimeoutMs } : {}),
    },
  };
  const reports = options.reports;
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (reports && (req.url ?? '').split('?')[0] === '/mcp') return reports.handle(req, res);
    serveRequest(req, res, serving).catch((error: unknown) => {
      handler.fault(`kairoku server error: ${(error as Error).stack ?? String(error)}`);
      if (!res.headersSent) send(res, 500, errorBody('internal', 'the app failed to answer'));
      else res.end();
    });
  };
  const server: Server = options.tls
    ? createTlsServer({ ...LISTENER_OPTIONS, cert: options.tls.cert, key: options.tls.key }, listener)
    : createServer(LISTENER_OPTIONS, listener);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, bindTo, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  // Bound to every interface by name: runners and agents are told the machine's name.
  const shown = address.address === '0.0.0.0' || address.address === '::' ? hostname() : address.address;
  const host = shown.includes(':') ? `[${shown}]` : shown;
  return {
    url: options.publicUrl ?? `${options.tls ? 'https' : 'http'}://${host}:${address.port}`,
    address: address.address,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The address to bind: loopback only unless allowed, and off loopback only over TLS when required. */
function bindAddressOf(options: KairokuServerOptions): Promise<string> {
  const tlsOnly = options.requireTlsOffLoopback === true;
  return resolveBindAddress(options.host, {
    what: 'the Kairoku app',
    allowNonLoopback: tlsOnly ? options.tls !== undefined : (options.allowNonLoopback ?? false),
    allowWildcard: options.tls !== undefined && options.allowWildcard === true,
    howToAllow: tlsOnly
      ? 'serve it over TLS: --tls-cert FILE --tls-key FILE, or --tls-self-signed'
      : 'say so with --allow-remote-runners (run --backend kairoku)',
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
}

interface Serving {
  handler: ProtocolHandler;
  /** the digest of the app credential, compared in constant time */
  expected: Buffer;
  limits: BodyLimits;
}

/** One runner request: its route, method and credential, then its body, then the handler's answer. */
async function serveRequest(req: IncomingMessage, res: ServerResponse, serving: Serving): Promise<void> {
  const route = admit(req, res, serving);
  if (route === undefined) return;
  const request = await requestBody(req, res, route, serving);
  if (request === undefined) return;
  const { handler } = serving;
  const answer = handler.handle(route, request.body);
  const schema = answer.status === 200 ? `${route}.response` : 'error';
  const wrong = checkBody(schema, answer.body);
  if (wrong.length) {
    handler.fault(`BUG: the ${route} response does not fit ${schema}: ${describeProblems(wrong)}`);
    return send(
      res,
      500,
      errorBody('internal', `the app built a ${route} response that does not fit its schema`),
    );
  }
  send(res, answer.status, answer.body);
}

/** The request's route, or undefined once it was refused: an unknown route, another method, a bad credential. */
function admit(req: IncomingMessage, res: ServerResponse, serving: Serving): Route | undefined {
  const { handler, limits } = serving;
  const path = (req.url ?? '').split('?')[0]!;
  const route = /^\/v1\/([a-z-]+)$/.exec(path)?.[1] as Route | undefined;
  if (route === undefined || !ROUTES.includes(route)) {
    discardBody(req, limits);
    send(
      res,
      404,
      errorBody('not-found', `no route ${path}; the routes are ${ROUTES.map((r) => `/v1/${r}`).join(', ')}`),
    );
    return undefined;
  }
  if (req.method !== 'POST') {
    discardBody(req, limits);
    send(res, 405, errorBody('method-not-allowed', `${path} takes POST, not ${req.method}`));
    return undefined;
  }
  const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (token === undefined || !timingSafeEqual(digest(token), serving.expected)) {
    discardBody(req, limits);
    handler.fault(`refused a ${route} request: ${token === undefined ? 'no' : 'a wrong'} app credential`);
    send(
      res,
      401,
      errorBody(
        'unauthorized',
        token === undefined
          ? 'no app credential: send Authorization: Bearer <app token>'
          : 'the app credential is wrong or was revoked: stop and ask the operator (RF-012)',
      ),
    );
    return undefined;
  }
  return route;
}

/** The request's body, or undefined once it was refused: too large or slow, not JSON, or not its schema. */
async function requestBody(
  req: IncomingMessage,
  res: ServerResponse,
  route: Route,
  serving: Serving,
): Promise<{ body: unknown } | undefined> {
  const { handler } = serving;
  const text = await readBody(req, serving.limits);
  if (!text.ok) {
    handler.fault(`refused a ${route} request: ${text.reason}`);
    send(res, text.status, errorBody(text.status === 413 ? 'too-large' : 'bad-request', text.reason));
    return undefined;
  }
  let body: unknown;
  try {
    body = JSON.parse(text.text);
  } catch (error) {
    handler.fault(`refused a ${route} request: the body is not JSON`);
    send(res, 400, errorBody('bad-request', `the body is not JSON: ${(error as Error).message}`));
    return undefined;
  }
  const forbidden = forbiddenKey(body);
  if (forbidden) {
    const message = `the ${route} request was refused: ${describeForbidden(forbidden)}`;
    handler.fault(`refused a ${route} request: ${message}`);
    send(res, 400, errorBody('bad-request', message));
    return undefined;
  }
  const problems = checkBody(`${route}.request`, body);
  if (problems.length) {
    const message = `the ${route} request does not fit its schema: ${describeProblems(problems)}`;
    handler.fault(`refused a ${route} request: ${message}`, body);
    send(res, 400, errorBody('bad-request', message, problems));
    return undefined;
  }
  return { body };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'kairoku-protocol': String(PROTOCOL_VERSION),
  });
  res.end(text);
}
