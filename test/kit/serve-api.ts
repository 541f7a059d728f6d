/**
 * Calls to a running `serve` (in this process or the CLI's): its API with the bearer token, and its event
 * stream read with node:http, headers under the test's control (such as Last-Event-ID).
 */
import { request } from 'node:http';
import type {
  PlaybooksAnswer,
  RefusalBody,
  RunDetail,
  RunEventData,
  RunsAnswer,
  StartAnswer,
} from '@kairoku-playbook/protocol';

/** Any answer of the API, read as the union of their fields (a test knows which one it asked for). */
export type Answer = RefusalBody & RunDetail & StartAnswer & RunsAnswer & PlaybooksAnswer;

export type ServeApi = (
  path: string,
  init?: { method?: string; body?: unknown; headers?: Record<string, string> },
) => Promise<{ status: number; body: Answer; headers: Headers }>;

/** Calls serve's API at `url` with the bearer token: GET without a body, POST with a JSON one. */
export function serveApi(url: string, token: string): ServeApi {
  return async (path, init = {}) => {
    const response = await fetch(`${url}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        Authorization: `Bearer ${token}`,
        ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...init.headers,
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      redirect: 'manual',
    });
    const text = await response.text();
    let body: unknown = {};
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON (the page)
    }
    return { status: response.status, body: body as Answer, headers: response.headers };
  };
}

/** One call to a serve's API (`serving`: its URL and token), its answer read as `T`. */
export async function callServe<T>(
  serving: { url: string; token: string },
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const answer = await serveApi(serving.url, serving.token)(path, body === undefined ? {} : { body });
  return { status: answer.status, body: answer.body as T };
}

export interface SseEvent {
  id: string;
  event: string;
  data: RunEventData;
}

/** An event stream read with node:http (headers under the test's control, such as Last-Event-ID). */
export function openEvents(
  url: string,
  token: string,
  lastEventId?: string,
): {
  events: SseEvent[];
  ready: Promise<void>;
  next: (count: number) => Promise<SseEvent[]>;
  close: () => void;
} {
  const events: SseEvent[] = [];
  let connected: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  const waiters: { count: number; resolve: (e: SseEvent[]) => void }[] = [];
  let buffer = '';
  const req = request(`${url}/api/v1/events`, {
    headers: { Authorization: `Bearer ${token}`, ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) },
  });
  req.on('response', (res) => {
    res.setEncoding('utf8');
    connected();
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields: Record<string, string> = {};
        for (const line of block.split('\n')) {
          const match = /^([a-z]+): ?(.*)$/i.exec(line);
          if (match) fields[match[1]!] = match[2]!;
        }
        if (!fields.event) continue;
        events.push({
          id: fields.id ?? '',
          event: fields.event,
          data: JSON.parse(fields.data ?? 'null') as RunEventData,
        });
        for (const waiter of [...waiters])
          if (events.length >= waiter.count) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(events.slice(0, waiter.count));
          }
      }
    });
  });
  req.on('error', () => undefined);
  req.end();
  return {
    events,
    ready,
    next: (count) =>
      events.length >= count
        ? Promise.resolve(events.slice(0, count))
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () => req.destroy(),
  };
}
