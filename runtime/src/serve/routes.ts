import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RunHost } from '../host/run-host.js';
import type { ServedWorkspace } from './loaded-workspace.js';
import type { PlaybookCard } from '@kairoku-playbook/protocol';
import type { ServeEvents } from './event-stream.js';
import type { AnswerKind, RequestKind } from './schemas.js';
import type { RunListing } from './run-listing.js';
import type { SeenRuns } from './seen-runs.js';
import type { BoundsCache } from './bounds-cache.js';
import type { ServeOptions } from './serve-options.js';

/** What every handler of serve's API reaches: the run host and what serve keeps beside it. */
export interface ServeContext {
  host: RunHost;
  /** the workspace's playbooks, loaded once and kept current by a watch (`loaded-workspace.ts`) */
  workspace: ServedWorkspace;
  options: ServeOptions;
  /** what the start form offers (the backend's start options) */
  startOptions: PlaybookCard['startOptions'];
  seen: SeenRuns;
  /** the worst case of a run of each playbook version, worked out once (`bounds-cache.ts`) */
  bounds: BoundsCache;
  /** the workspace's runs as a list shows them, from the store's index (`run-listing.ts`) */
  listing: RunListing;
  events: ServeEvents;
  /** a new login URL (`gate.ts`) */
  newLoginUrl(): string;
  /** sends an answer checked against its schema (a wrong one is logged and answered 500) */
  answer(res: ServerResponse, status: number, kind: AnswerKind, body: unknown): void;
}

export interface RouteCall {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** the path's `:name` segments */
  params: Record<string, string>;
  /** the body, checked against the route's schema (`{}` for a GET) */
  body: unknown;
  serve: ServeContext;
}

/**
 * One route of serve's API (docs/serve.md's table): its method, its path under `/api/v1` (`:name`
 * segments are parameters; `:id` is a run's id, and a path naming one the store cannot name is 404
 * `unknown-run`), the schema its body is checked against, and its handler.
 */
export interface Route {
  method: 'GET' | 'POST';
  path: string;
  /** the request body's schema (`schemas.ts`); a POST route has one */
  body?: RequestKind;
  handle(call: RouteCall): void | Promise<void>;
}

/** The route a request names, and its parameters; undefined when none matches. */
export function matchRoute(
  routes: readonly Route[],
  method: string,
  segments: readonly string[],
): { route: Route; params: Record<string, string> } | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const pattern = route.path.split('/');
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((part, i) => {
      if (part.startsWith(':')) {
        params[part.slice(1)] = segments[i]!;
        return true;
      }
      return part === segments[i];
    });
    if (matches) return { route, params };
  }
  return undefined;
}
