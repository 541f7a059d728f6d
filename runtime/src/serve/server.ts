import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { resolveBindAddress } from '../backends/bind-address.js';
import { LISTENER_OPTIONS, discardBody, readBody } from '../backends/http-body.js';
import type { RunState } from '../core/state.js';
import type { Ir, WorkspaceFileSystem } from '@kairoku-playbook/compiler';
import type { HostResult, RunHost, StartOptions } from '../host/run-host.js';
import { appliedElsewhere, routeOperation } from './operation-routes.js';
import { answerClientError, refuse, refuseWith, send } from './answers.js';
import { serveAsset } from './assets.js';
import { servedWorkspaceOf } from './loaded-workspace.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import type { PlaybookCard, RunEventData } from './api-types.js';
import { checkAnswer, checkRequest } from './schemas.js';
import type { AnswerKind, RequestKind } from './schemas.js';
import { playbookCard, runDetail, runListItem } from './views.js';

export interface ServeOptions {
  host: RunHost;
  /** where to listen (default 127.0.0.1:7420; port 0 picks a free one); loopback only */
  listen?: { host: string; port: number };
  /** the session token (default: 32 random bytes); given by tests, never logged */
  token?: string;
  /** the panel's built files (`index.html`, and what it loads as `assets/NAME`: `panel.js`, …) */
  assetsDir?: string;
  /** the same files held in memory, name → text (the CLI's bundle embeds them); `assetsDir` wins */
  panelFiles?: Readonly<Record<string, string>>;
  /** what the backend supports at start (the start form's options) */
  startOptions?: PlaybookCard['startOptions'];
  /**
   * a start with `newAgent`: the run is made with a manager agent of its own (`paseo`), which drives
   * it instead of serve; offered when `startOptions.newAgent` is
   */
  startWithNewAgent?: (
    ir: Ir,
    inputs: Record<string, unknown>,
    options: StartOptions,
  ) => Promise<HostResult<{ state: RunState; warnings: string[] }>>;
  /** why a start option is not offered here, said in its refusal (default: the backend has none) */
  unofferedWhy?: Partial<Record<'newAgent' | 'worktree', string>>;
  /** a line per request (method, path without query, status); never a token or a body */
  log?: (line: string) => void;
  /**
   * how long an operation on a run another live process drives waits for that process to take it
   * (it looks once a second; default 5 s): past it, the request is taken back and refused
   */
  askTimeoutMs?: number;
  /** events kept for clients that reconnect (default 1000) */
  keepEvents?: number;
  /** a comment on idle event streams, so proxies and clients see the stream alive (default 15 s) */
  heartbeatMs?: number;
  /**
   * watch the workspace for playbook changes (default true): the loaded workspace is kept and loaded
   * again after a change; without a working watch it is looked at every `watchPlaybooksMs` (default 2 s)
   */
  watchPlaybooks?: boolean;
  watchPlaybooksMs?: number;
  /** the file system the workspace is loaded from (default the disk); tests count its reads */
  workspaceFs?: WorkspaceFileSystem;
}

export interface RunningServe {
  /** `http://ADDRESS:PORT`, the address serve is bound to (`http://127.0.0.1:7420`, `http://[::1]:7420`) */
  url: string;
  port: number;
  token: string;
  /** the login URL that logs a browser in (`/?token=…`), any number of browsers while the server runs */
  loginUrl: string;
  close(): Promise<void>;
}

export const SESSION_COOKIE = 'kairoku_session';
/** Every answer carries it: no inline script or style, nothing from elsewhere. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'";
const BODY_LIMIT = 256 * 1024;

interface StreamEvent {
  id: number;
  event: 'run' | 'playbooks';
  data: string;
}

/**
 * `kairoku-playbook serve`'s HTTP side (docs/serve.md): the panel's files and the API under
 * `/api/v1`, over a `RunHost`. Binds loopback only (there is no TLS, so an address other machines
 * could reach is refused). Every request is checked for its Host (DNS rebinding) and Origin, and for
 * the session (the cookie the login URL sets, or a bearer token); every answer has a strict CSP.
 */
// eslint-disable-next-line max-lines-per-function -- over the bound when the rule came in (2026-12-06): to be split, issue 22
export async function startServe(options: ServeOptions): Promise<RunningServe> {
  const host = options.host;
  const token = options.token ?? randomBytes(32).toString('base64url');
  const listenHost = options.listen?.host ?? '127.0.0.1';
  const address = await resolveBindAddress(listenHost, {
    what: `serve --listen ${listenHost}`,
    allowNonLoopback: false,
    howToAllow: 'serve has no TLS: it binds loopback only (127.0.0.1 or ::1)',
  });
  const startOptions = options.startOptions ?? { newAgent: false, worktree: false };
  const log = options.log ?? (() => undefined);
  const keep = options.keepEvents ?? 1000;
  const seen = new SeenRuns(join(host.store.home, 'serve', 'seen.json'));

  // ---- events ---------------------------------------------------------------------------------
  const events: StreamEvent[] = [];
  let lastId = Date.now();
  const streams = new Set<ServerResponse>();
  const publish = (event: StreamEvent['event'], data: unknown) => {
    const entry: StreamEvent = { id: ++lastId, event, data: JSON.stringify(data) };
    events.push(entry);
    if (events.length > keep) events.splice(0, events.length - keep);
    for (const stream of streams) stream.write(frame(entry));
  };
  const unsubscribe = host.subscribe(({ state, version }) => {
    // The store is shared by every workspace of this home: a serve streams its own workspace's runs.
    if (state.workspace !== host.workspace) return;
    const data: RunEventData = { ...runListItem(state, seen.has(state.id)), version };
    publish('run', data);
  });
  // Runs other processes write (a manager agent's MCP server, `runs cancel` on a run serve does not
  // drive) reach the page as they land too.
  host.watchOtherWriters(log);
  const workspace = servedWorkspaceOf(host.workspace, options, () => publish('playbooks', {}));

  // ---- the server -----------------------------------------------------------------------------
  let port = 0;
  // The Host a request may name: the address serve is bound to, as its URL says it (`[::1]` for IPv6),
  // and `localhost`; plus the other loopback spelling when serve is on the usual one.
  const hostPart = address.includes(':') ? `[${address}]` : address;
  const allowedHosts = () =>
    new Set([
      `${hostPart}:${port}`,
      `localhost:${port}`,
      ...(address === '127.0.0.1' || address === '::1' ? [`127.0.0.1:${port}`, `[::1]:${port}`] : []),
    ]);

  const server = createServer(LISTENER_OPTIONS, (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    res.on('finish', () => log(`${req.method} ${path} ${res.statusCode}`));
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    handle(req, res).catch((error: unknown) => {
      log(`serve: ${(error as Error).message}`);
      if (!res.headersSent)
        send(res, 500, { refusal: { code: 'internal', message: 'the server failed; see its log' } });
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    if (!allowedHosts().has(req.headers.host ?? '')) {
      discardBody(req, { maxBytes: 0 });
      return refuse(
        res,
        403,
        'bad-host',
        `the Host header must name this server (http://${hostPart}:${port})`,
      );
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedHosts().has(origin.replace(/^http:\/\//, '')))
      return refuse(res, 403, 'bad-origin', 'requests from other sites are refused');

    // The login URL: a right token sets the session cookie and leaves the token out of the address bar.
    if (method === 'GET' && url.pathname === '/' && url.searchParams.has('token')) {
      if (!sameToken(url.searchParams.get('token') ?? '', token))
        return refuse(
          res,
          401,
          'bad-token',
          'this token is not the one serve printed; open the URL it printed',
        );
      res.setHeader('Set-Cookie', `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`);
      res.writeHead(303, { Location: '/' });
      res.end();
      return;
    }
    if (!authorized(req, token)) {
      discardBody(req, { maxBytes: 0 });
      return refuse(
        res,
        401,
        'unauthorized',
        'open the URL kairoku-playbook serve printed (it logs this browser in), or send Authorization: Bearer TOKEN',
      );
    }
    if (!url.pathname.startsWith('/api/')) {
      if (method !== 'GET' && method !== 'HEAD')
        return refuse(res, 405, 'method-not-allowed', 'the page takes GET');
      return serveAsset(res, url.pathname, options.assetsDir, options.panelFiles);
    }
    return api(req, res, url, method);
  }

  async function api(req: IncomingMessage, res: ServerResponse, url: URL, method: string): Promise<void> {
    const parts = url.pathname
      .replace(/^\/api\/v1\/?/, '')
      .split('/')
      .filter(Boolean)
      .map(decodeURIComponent);
    if (!url.pathname.startsWith('/api/v1/') && url.pathname !== '/api/v1')
      return refuse(res, 404, 'no-route', 'the API is under /api/v1');
    const [head, id] = parts;
    // A run id is a file name in the store: anything else names no run (not a 500 from the store).
    if (head === 'runs' && id !== undefined && !RUN_ID.test(id)) {
      discardBody(req, { maxBytes: 0 });
      return refuse(res, 404, 'unknown-run', `there is no run "${id}"`);
    }

    if (method === 'GET') {
      discardBody(req, { maxBytes: 0 });
      if (head === 'playbooks' && parts.length === 1)
        return answer(res, 200, 'playbooks', { playbooks: cards() });
      if (head === 'events' && parts.length === 1) return openStream(req, res);
      if (head === 'runs' && parts.length === 1) {
        const archived = url.searchParams.get('archived') === '1';
        const runs = host
          .list()
          .runs.filter((r) => r.workspace === host.workspace && (archived || r.archivedAt === undefined))
          .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
          .map((r) => runListItem(r, seen.has(r.id)));
        return answer(res, 200, 'runs', { runs });
      }
      if (head === 'runs' && id !== undefined && parts.length === 2) {
        const got = host.get(id);
        if (!got.ok) return refuseWith(res, got.refusal);
        if (got.value.workspace !== host.workspace)
          return refuse(res, 404, 'unknown-run', `run ${id} belongs to another workspace`);
        if (got.value.status === 'completed') seen.add(id);
        return answer(res, 200, 'run', runDetail(got.value, host.version(id), seen.has(id)));
      }
      return refuse(res, 404, 'no-route', `no route GET ${url.pathname}`);
    }
    if (method !== 'POST') return refuse(res, 405, 'method-not-allowed', 'the API takes GET and POST');

    if (head === 'runs' && parts.length === 1) {
      const body = await bodyOf(req, res, 'start');
      if (body === undefined) return;
      return start(
        res,
        body as {
          playbook: string;
          inputs: Record<string, unknown>;
          options?: { newAgent?: boolean; worktree?: boolean };
        },
      );
    }
    if (head !== 'runs' || id === undefined)
      return refuse(res, 404, 'no-route', `no route POST ${url.pathname}`);
    // An operator's operation, routed by the operations' table (`host/operations.ts`).
    const routed = routeOperation(parts.slice(2));
    if (!routed) {
      discardBody(req, { maxBytes: 0 });
      return refuse(res, 404, 'no-route', `no route POST ${url.pathname}`);
    }
    const body = (await bodyOf(req, res, routed.spec.body as RequestKind)) as
      Record<string, string> | undefined;
    if (body === undefined) return;
    const operation = routed.spec.read(routed.params, body);
    const got = host.get(id);
    if (!got.ok) return refuseWith(res, got.refusal);
    if (got.value.workspace !== host.workspace)
      return refuse(res, 404, 'unknown-run', `run ${id} belongs to another workspace`);
    let asked: { owner: number; request: string } | undefined;
    const result = host.operate(id, operation, (owner, request) => (asked = { owner, request }));
    if (!result.ok) return refuseWith(res, result.refusal);
    // A run another live process drives was asked to apply it: answered once that process has.
    if (asked) {
      const applied = await appliedElsewhere(host.store, id, asked, result.value, options.askTimeoutMs);
      if (!applied.ok) return refuseWith(res, applied.refusal);
      return answer(res, 200, 'run', runDetail(applied.value, host.version(id), seen.has(id)));
    }
    return answer(res, 200, 'run', runDetail(result.value, host.version(id), seen.has(id)));
  }

  async function start(
    res: ServerResponse,
    body: {
      playbook: string;
      inputs: Record<string, unknown>;
      options?: { newAgent?: boolean; worktree?: boolean; provider?: string; model?: string };
    },
  ): Promise<void> {
    const snapshot = workspace.snapshot();
    const found = snapshot.playbooks.find((p) => p.file === body.playbook);
    if (!found)
      return refuse(
        res,
        404,
        'unknown-playbook',
        `there is no playbook "${body.playbook}" in this workspace`,
        '/playbook',
      );
    if (!found.ir)
      return refuse(
        res,
        409,
        'playbook-has-errors',
        playbookCard(found, startOptions).why ?? 'the playbook has errors',
        '/playbook',
      );
    for (const option of ['newAgent', 'worktree'] as const)
      if (
        body.options?.[option] &&
        (!startOptions[option] || (option === 'newAgent' && !options.startWithNewAgent))
      )
        return refuse(
          res,
          422,
          'option-unsupported',
          options.unofferedWhy?.[option] ?? `the ${host.backendName} backend has no "${option}" option`,
          `/options/${option}`,
        );
    for (const option of ['provider', 'model'] as const)
      if (body.options?.[option] !== undefined && !startOptions.agents)
        return refuse(
          res,
          422,
          'option-unsupported',
          `the ${host.backendName} backend has no "${option}" option: its agents are not chosen by provider or model`,
          `/options/${option}`,
        );
    const { provider, model, worktree, newAgent } = body.options ?? {};
    const chosen: StartOptions = {
      ...(provider !== undefined ? { provider } : {}),
      ...(model !== undefined ? { model } : {}),
      ...(worktree ? { worktree } : {}),
    };
    const started =
      newAgent && options.startWithNewAgent
        ? await options.startWithNewAgent(found.ir, body.inputs, chosen)
        : host.start(found.ir, body.inputs, chosen);
    if (!started.ok) {
      // The daemon did not make the manager agent: the run failed, and the answer says why.
      if (started.refusal.code === 'manager-agent-failed')
        return refuse(res, 502, started.refusal.code, started.refusal.message);
      return refuseWith(res, started.refusal);
    }
    answer(res, 201, 'started', {
      run: runListItem(started.value.state, false),
      warnings: started.value.warnings,
    });
  }

  function cards(): PlaybookCard[] {
    return workspace.snapshot().playbooks.map((p) => playbookCard(p, startOptions));
  }

  function openStream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
    });
    res.write('retry: 1000\n\n');
    const last = Number(req.headers['last-event-id'] ?? NaN);
    if (Number.isFinite(last)) {
      const oldest = events[0]?.id ?? lastId + 1;
      if (last < oldest - 1) res.write(`id: ${lastId}\nevent: reset\ndata: {}\n\n`);
      else for (const entry of events) if (entry.id > last) res.write(frame(entry));
    }
    streams.add(res);
    const heartbeat = setInterval(() => res.write(': alive\n\n'), options.heartbeatMs ?? 15_000);
    heartbeat.unref();
    // The response's close, not the request's: a request closes once its (empty) body is read.
    res.on('close', () => {
      clearInterval(heartbeat);
      streams.delete(res);
    });
  }

  async function bodyOf(req: IncomingMessage, res: ServerResponse, kind: RequestKind): Promise<unknown> {
    const type = req.headers['content-type'] ?? '';
    const read = await readBody(req, { maxBytes: BODY_LIMIT });
    if (!read.ok) {
      refuse(res, read.status, read.status === 413 ? 'too-large' : 'bad-body', read.reason);
      return undefined;
    }
    if (read.text.trim() === '' && (kind === 'empty' || kind === 'cancel')) return {};
    if (!/^application\/json\b/i.test(type)) {
      refuse(res, 415, 'not-json', 'send the body as application/json');
      return undefined;
    }
    let body: unknown;
    try {
      body = JSON.parse(read.text);
    } catch (error) {
      refuse(res, 400, 'bad-json', `the body is not JSON: ${(error as Error).message}`);
      return undefined;
    }
    const problem = checkRequest(kind, body);
    if (problem) {
      refuse(res, 400, 'bad-request', problem.message, problem.field);
      return undefined;
    }
    return body;
  }

  function answer(res: ServerResponse, status: number, kind: AnswerKind, body: unknown): void {
    const problem = checkAnswer(kind, body);
    if (problem) {
      log(`serve: BUG: the ${kind} answer does not fit its schema: ${problem}`);
      return send(res, 500, {
        refusal: { code: 'internal', message: 'the server built a wrong answer; see its log' },
      });
    }
    send(res, status, body);
  }

  server.on('clientError', (error: NodeJS.ErrnoException, socket) =>
    answerClientError(error, socket, SECURITY_HEADERS),
  );
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(options.listen?.port ?? 7420, address, () => {
      server.off('error', fail);
      ready();
    });
  });
  port = (server.address() as AddressInfo).port;
  // The URL names the address serve listens on: `[::1]` when that is where it is, never an address
  // nothing listens on.
  const url = `http://${hostPart}:${port}`;
  return {
    url,
    port,
    token,
    loginUrl: `${url}/?token=${token}`,
    close: async () => {
      unsubscribe();
      workspace.close();
      for (const stream of streams) stream.end();
      streams.clear();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  // The login URL holds the token: it never leaves in a Referer.
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function frame(entry: StreamEvent): string {
  return `id: ${entry.id}\nevent: ${entry.event}\ndata: ${entry.data}\n\n`;
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function authorized(req: IncomingMessage, token: string): boolean {
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (bearer !== undefined) return sameToken(bearer, token);
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === SESSION_COOKIE && sameToken(value.join('='), token)) return true;
  }
  return false;
}

/** Completed runs whose tab was opened (a completed run stays green until then), kept across restarts. */
class SeenRuns {
  private readonly ids: Set<string>;

  constructor(private readonly path: string) {
    let ids: string[] = [];
    try {
      const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
      if (Array.isArray(parsed)) ids = parsed.filter((x): x is string => typeof x === 'string');
    } catch {
      // none yet
    }
    this.ids = new Set(ids);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string): void {
    if (this.ids.has(id)) return;
    this.ids.add(id);
    mkdirSync(join(this.path, '..'), { recursive: true, mode: 0o700 });
    writeFileAtomic(this.path, `${JSON.stringify([...this.ids])}\n`);
  }
}
