import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { resolveBindAddress } from '../backends/bind-address.js';
import { LISTENER_OPTIONS } from '../backends/http-body.js';
import { answerClientError, refuse, send } from './answers.js';
import { answerApi, apiRoutes } from './api-routes.js';
import type { RunEventData, RunsRemovedEventData } from '@kairoku-playbook/protocol';
import { serveAsset } from './assets.js';
import { archiveEndedRuns } from './auto-archive.js';
import { ServeEvents } from './event-stream.js';
import { Gate, SECURITY_HEADERS } from './gate.js';
import { isStorageFault } from '../host/run-book.js';
import { serveWorkspace } from './loaded-workspace.js';
import type { ServedWorkspace } from './loaded-workspace.js';
import type { ServeContext } from './routes.js';
import { checkAnswer } from './schemas.js';
import type { AnswerKind } from './schemas.js';
import { SeenRuns } from './seen-runs.js';
import { BoundsCache, boundsInProcess } from './bounds-cache.js';
import type { RunningServe, ServeOptions } from './serve-options.js';
import type { RunHost } from '../host/run-host.js';
import { RunListing } from './run-listing.js';
import { runListItem } from './views.js';

export { CONTENT_SECURITY_POLICY, LOGIN_TTL_MS, sessionCookieName } from './gate.js';
export type { RunningServe, ServeOptions } from './serve-options.js';

/**
 * `kairoku-playbook serve`'s HTTP side (docs/serve.md): the panel's files and the API under
 * `/api/v1`, over a `RunHost`. Binds loopback only (there is no TLS, so an address other machines
 * could reach is refused). Every request passes the gate (`gate.ts`: Host, Origin, session) first;
 * the API is a table of routes (`api-routes.ts`); every answer has a strict CSP.
 */
export async function startServe(options: ServeOptions): Promise<RunningServe> {
  const host = options.host;
  const token = options.token ?? randomBytes(32).toString('base64url');
  const listenHost = options.listen?.host ?? '127.0.0.1';
  const address = await resolveBindAddress(listenHost, {
    what: `serve --listen ${listenHost}`,
    allowNonLoopback: false,
    howToAllow: 'serve has no TLS: it binds loopback only (127.0.0.1 or ::1)',
  });
  const log = options.log ?? (() => undefined);
  const events = new ServeEvents(options.keepEvents ?? 1000, options.heartbeatMs ?? 15_000);
  const workspace = serveWorkspace(host.workspace, {
    watch: options.watchPlaybooks !== false,
    changed: () => events.publish('playbooks', {}),
    ...(options.watchPlaybooksMs !== undefined ? { pollMs: options.watchPlaybooksMs } : {}),
    ...(options.workspaceFs ? { fs: options.workspaceFs } : {}),
  });
  const gate = new Gate(address, token, host.workspace);
  const listing = new RunListing(host);
  const serve = serveContext(
    options,
    { workspace, events, listing, newLoginUrl: () => gate.loginUrl() },
    log,
  );
  const stopStreaming = streamRunChanges(host, listing, serve);
  const stopArchiving =
    options.archiveAfterDays === undefined
      ? () => undefined
      : archiveEndedRuns({ host, listing, days: options.archiveAfterDays, log });
  // Runs other processes write (a manager agent's MCP server, `runs cancel` on a run serve does not
  // drive) reach the page as they land too.
  host.watchOtherWriters(log);
  const routes = apiRoutes();
  const server = createServer(LISTENER_OPTIONS, (req, res) => {
    // (the path without its query, never a token; cut, so a hostile path does not flood the log)
    const whole = (req.url ?? '/').split('?')[0]!;
    const path = whole.length > 200 ? `${whole.slice(0, 200)}…` : whole;
    res.on('finish', () => log(`${req.method} ${path} ${res.statusCode}`));
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    answer(req, res).catch((error: unknown) => {
      log(`serve: ${(error as Error).message}`);
      if (res.headersSent) res.end();
      else if (isStorageFault(error)) send(res, 507, { refusal: storageRefusal(error) });
      else send(res, 500, { refusal: { code: 'internal', message: 'the server failed; see its log' } });
    });
  });

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!gate.admit(req, res, url)) return;
    if (url.pathname.startsWith('/api/')) return answerApi(req, res, url, routes, serve);
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return refuse(res, 405, 'method-not-allowed', 'the page takes GET');
    return serveAsset(res, url.pathname, options.assetsDir, options.panelFiles);
  }

  server.on('clientError', (error: NodeJS.ErrnoException, socket) =>
    answerClientError(error, socket, SECURITY_HEADERS),
  );
  await listen(server, options.listen?.port ?? 7420, address);
  gate.port = (server.address() as AddressInfo).port;
  // The URL names the address serve listens on: `[::1]` when that is where it is, never an address
  // nothing listens on.
  const url = `http://${gate.hostPart}:${gate.port}`;
  return {
    url,
    port: gate.port,
    token,
    loginUrl: gate.loginUrl(),
    newLoginUrl: () => gate.loginUrl(),
    close: async () => {
      stopStreaming();
      stopArchiving();
      workspace.close();
      serve.events.close();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

/** The list and the event stream follow every write and removal of the workspace's runs. */
function streamRunChanges(host: RunHost, listing: RunListing, serve: ServeContext): () => void {
  const unsubscribe = host.subscribe(({ state, version }) => {
    // The store is shared by every workspace of this home: a serve streams its own workspace's runs.
    if (state.workspace !== host.workspace) return;
    listing.changed(state);
    const data: RunEventData = { ...runListItem(state, serve.seen.has(state.id)), version };
    serve.events.publish('run', data);
  });
  const unsubscribeRemovals = host.subscribeRemovals((id) => {
    if (!listing.removed(id)) return;
    const data: RunsRemovedEventData = { ids: [id] };
    serve.events.publish('runs-removed', data);
  });
  return () => {
    unsubscribe();
    unsubscribeRemovals();
  };
}

function serveContext(
  options: ServeOptions,
  kept: { workspace: ServedWorkspace; events: ServeEvents; listing: RunListing; newLoginUrl: () => string },
  log: (line: string) => void,
): ServeContext {
  return {
    host: options.host,
    ...kept,
    options,
    startOptions: options.startOptions ?? { newAgent: false, worktree: false },
    seen: new SeenRuns(join(options.host.store.home, 'serve', 'seen.json')),
    bounds: new BoundsCache(options.bounds ?? boundsInProcess),
    answer: (res, status, kind: AnswerKind, body) => {
      const problem = checkAnswer(kind, body);
      if (!problem) return send(res, status, body);
      log(`serve: BUG: the ${kind} answer does not fit its schema: ${problem}`);
      send(res, 500, {
        refusal: { code: 'internal', message: 'the server built a wrong answer; see its log' },
      });
    },
  };
}

/** A write the disk refused: nothing was done, and the run is as its file says. */
function storageRefusal(error: unknown): { code: string; message: string } {
  // (the store's own sentence says why and where, and to free some space)
  return { code: 'write-failed', message: `nothing was done: ${(error as Error).message}` };
}

function listen(server: ReturnType<typeof createServer>, port: number, address: string): Promise<void> {
  return new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(port, address, () => {
      server.off('error', fail);
      ready();
    });
  });
}
