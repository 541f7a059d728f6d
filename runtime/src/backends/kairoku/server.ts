import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LIMITS, PROTOCOL_VERSION, ROUTES, checkBody, describeProblems, errorBody } from './protocol.js';
import type { Route } from './protocol.js';
import { describeForbidden, forbiddenKey } from '../../core/schemas.js';
import { resolveBindAddress } from '../bind-address.js';
import type { Lookup } from '../bind-address.js';
import { LISTENER_OPTIONS, discardBody, readBody } from '../http-body.js';

/** What answers the routes once a request is authenticated and fits its schema. */
export interface ProtocolHandler {
  handle(route: Route, body: unknown): { status: number; body: unknown };
  /** a request refused before it reached a dispatch (a bad credential or body), or a server bug */
  fault(text: string, body?: unknown): void;
}

export interface KairokuServer {
  /** `http://HOST:PORT`, the address runners are given as the app URL */
  url: string;
  close(): Promise<void>;
}

export interface KairokuServerOptions {
  host: string;
  port: number;
  appToken: string;
  /**
   * bind an interface other machines can reach (the wildcard never): the routes are behind the app
   * credential, but over plain HTTP; off by default
   */
  allowNonLoopback?: boolean;
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
  const bindTo = await resolveBindAddress(options.host, {
    what: 'the Kairoku app',
    allowNonLoopback: options.allowNonLoopback ?? false,
    howToAllow: 'say so with --allow-remote-runners (run --backend kairoku)',
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
  const expected = digest(options.appToken);
  const server: Server = createServer(LISTENER_OPTIONS, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      handler.fault(`kairoku server error: ${(error as Error).stack ?? String(error)}`);
      if (!res.headersSent) send(res, 500, errorBody('internal', 'the app failed to answer'));
      else res.end();
    });
  });

  const limits = {
    maxBytes: LIMITS.bodyBytes,
    ...(options.bodyTimeoutMs !== undefined ? { timeoutMs: options.bodyTimeoutMs } : {}),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0]!;
    const route = /^\/v1\/([a-z-]+)$/.exec(path)?.[1] as Route | undefined;
    if (route === undefined || !ROUTES.includes(route)) {
      discardBody(req, limits);
      return send(
        res,
        404,
        errorBody(
          'not-found',
          `no route ${path}; the routes are ${ROUTES.map((r) => `/v1/${r}`).join(', ')}`,
        ),
      );
    }
    if (req.method !== 'POST') {
      discardBody(req, limits);
      return send(res, 405, errorBody('method-not-allowed', `${path} takes POST, not ${req.method}`));
    }
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined || !timingSafeEqual(digest(token), expected)) {
      discardBody(req, limits);
      handler.fault(`refused a ${route} request: ${token === undefined ? 'no' : 'a wrong'} app credential`);
      return send(
        res,
        401,
        errorBody(
          'unauthorized',
          token === undefined
            ? 'no app credential: send Authorization: Bearer <app token>'
            : 'the app credential is wrong or was revoked: stop and ask the operator (RF-012)',
        ),
      );
    }
    const text = await readBody(req, limits);
    if (!text.ok) {
      handler.fault(`refused a ${route} request: ${text.reason}`);
      return send(
        res,
        text.status,
        errorBody(text.status === 413 ? 'too-large' : 'bad-request', text.reason),
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(text.text);
    } catch (error) {
      handler.fault(`refused a ${route} request: the body is not JSON`);
      return send(res, 400, errorBody('bad-request', `the body is not JSON: ${(error as Error).message}`));
    }
    const forbidden = forbiddenKey(body);
    if (forbidden) {
      const message = `the ${route} request was refused: ${describeForbidden(forbidden)}`;
      handler.fault(`refused a ${route} request: ${message}`);
      return send(res, 400, errorBody('bad-request', message));
    }
    const problems = checkBody(`${route}.request`, body);
    if (problems.length) {
      const message = `the ${route} request does not fit its schema: ${describeProblems(problems)}`;
      handler.fault(`refused a ${route} request: ${message}`, body);
      return send(res, 400, errorBody('bad-request', message, problems));
    }
    const answer = handler.handle(route, body);
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

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, bindTo, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
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
