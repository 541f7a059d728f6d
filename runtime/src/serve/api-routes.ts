import type { IncomingMessage, ServerResponse } from 'node:http';
import { discardBody } from '../backends/http-body.js';
import { refuse, refuseWith } from './answers.js';
import { operationRoutes } from './operation-routes.js';
import { requestBody } from './request-body.js';
import { matchRoute } from './routes.js';
import type { Route, RouteCall, ServeContext } from './routes.js';
import { playbookCards, startRun } from './start-route.js';
import { playbookBounds } from './bounds-route.js';
import type { RunQuery } from './run-listing.js';
import { runDetail } from './views.js';

/** A run id is a file name in the store: anything else names no run (not a 500 from the store). */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** serve's API, `/api/v1` (docs/serve.md): the reads, the start, and the operations' table's routes. */
export function apiRoutes(): Route[] {
  return [
    {
      method: 'GET',
      path: 'playbooks',
      handle: ({ res, serve }) => serve.answer(res, 200, 'playbooks', { playbooks: playbookCards(serve) }),
    },
    { method: 'GET', path: 'events', handle: ({ req, res, serve }) => serve.events.open(req, res) },
    { method: 'GET', path: 'runs', handle: listRuns },
    { method: 'GET', path: 'runs/:id', handle: getRun },
    { method: 'POST', path: 'runs', body: 'start', handle: startRun },
    { method: 'POST', path: 'login-urls', body: 'empty', handle: newLoginUrl },
    { method: 'GET', path: 'current-agent', handle: currentAgent },
    { method: 'GET', path: 'bounds', handle: playbookBounds },
    ...operationRoutes(),
  ];
}

/** Answers a request under `/api/`: routed by the table, its body read and checked first. */
export async function answerApi(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  routes: readonly Route[],
  serve: ServeContext,
): Promise<void> {
  const method = req.method ?? 'GET';
  if (!url.pathname.startsWith('/api/v1/') && url.pathname !== '/api/v1')
    return refuse(res, 404, 'no-route', 'the API is under /api/v1');
  const segments = url.pathname
    .replace(/^\/api\/v1\/?/, '')
    .split('/')
    .filter(Boolean)
    .map(decodeURIComponent);
  const [head, id] = segments;
  if (head === 'runs' && id !== undefined && !RUN_ID.test(id)) {
    discardBody(req, { maxBytes: 0 });
    return refuse(res, 404, 'unknown-run', `there is no run "${shownId(id)}"`);
  }
  if (method !== 'GET' && method !== 'POST')
    return refuse(res, 405, 'method-not-allowed', 'the API takes GET and POST');
  const matched = matchRoute(routes, method, segments);
  if (!matched) {
    discardBody(req, { maxBytes: 0 });
    return refuse(res, 404, 'no-route', `no route ${method} ${url.pathname}`);
  }
  let body: unknown = {};
  if (matched.route.body === undefined) discardBody(req, { maxBytes: 0 });
  else body = await requestBody(req, res, matched.route.body);
  if (body === undefined) return;
  await matched.route.handle({ req, res, url, params: matched.params, body, serve });
}

function listRuns({ res, url, serve }: RouteCall): void {
  const query = runQuery(url.searchParams);
  if (typeof query === 'string') return refuse(res, 422, 'invalid-query', query);
  serve.answer(
    res,
    200,
    'runs',
    serve.listing.list(query, (id) => serve.seen.has(id)),
  );
}

const STATUSES = ['running', 'paused', 'completed', 'failed', 'canceled', 'waiting', 'active'];

/** What `GET /api/v1/runs` asks for (docs/serve.md), or why it cannot be read. */
function runQuery(params: URLSearchParams): RunQuery | string {
  const archived = params.get('archived');
  const query: RunQuery = {
    archived: archived === 'only' ? 'only' : archived === '1' ? 'yes' : 'no',
    // Runs an older version made record no workspace: whose they are is unknown, so only when asked.
    unowned: params.get('unowned') === '1',
  };
  const status = params.get('status');
  if (status !== null) {
    if (!STATUSES.includes(status)) return `status is one of ${STATUSES.join(', ')}`;
    query.status = status as RunQuery['status'];
  }
  const playbook = params.get('playbook');
  if (playbook) query.playbook = playbook;
  const text = params.get('text');
  if (text) query.text = text.slice(0, 200);
  const limit = params.get('limit');
  const offset = params.get('offset');
  if (limit !== null) {
    const page = { limit: Number(limit), offset: Number(offset ?? 0) };
    if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > 1000)
      return 'limit is a whole number from 1 to 1000';
    if (!Number.isInteger(page.offset) || page.offset < 0) return 'offset is a whole number, 0 or more';
    query.page = page;
  } else if (offset !== null) return 'offset goes with limit';
  return query;
}

/** The workspace's current agent, for the start form's default Start (`paseo`). */
async function currentAgent({ res, serve }: RouteCall): Promise<void> {
  const find = serve.options.currentAgent;
  if (!find)
    return serve.answer(res, 200, 'currentAgent', {
      why: `the ${serve.host.backendName} backend starts runs on agents of its own`,
    });
  try {
    serve.answer(res, 200, 'currentAgent', await find());
  } catch (error) {
    refuse(res, 502, 'daemon-unreachable', `the agents could not be listed: ${(error as Error).message}`);
  }
}

function getRun({ res, params, serve }: RouteCall): void {
  const { host, seen } = serve;
  const id = params.id!;
  const got = host.get(id);
  if (!got.ok) return refuseWith(res, got.refusal);
  // (a run that records no workspace is shown, never operated on: the operations refuse it)
  if (got.value.workspace !== host.workspace && got.value.workspace !== undefined)
    return refuse(res, 404, 'unknown-run', `run ${id} belongs to another workspace`);
  if (got.value.status === 'completed') seen.add(id);
  serve.answer(res, 200, 'run', runDetail(got.value, host.version(id), seen.has(id)));
}

/** A new login URL, for an API client with the bearer token (a browser's session cannot mint them). */
function newLoginUrl({ req, res, serve }: RouteCall): void {
  if (req.headers.authorization === undefined)
    return refuse(
      res,
      403,
      'bearer-only',
      'login URLs are made for API clients (Authorization: Bearer TOKEN)',
    );
  serve.answer(res, 201, 'loginUrl', { url: serve.newLoginUrl() });
}

/** A run id as a refusal quotes it: cut, so a 5,000-character path is not sent back whole. */
function shownId(id: string): string {
  return id.length > 80 ? `${id.slice(0, 80)}…` : id;
}
