import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunHost } from '../../src/host/run-host.js';
import { simBackendFor } from '../../src/serve/backends.js';
import { startServe } from '../../src/serve/server.js';
import type { RunningServe, ServeOptions } from '../../src/serve/server.js';
import { repo } from '../helpers.js';
import type {
  PlaybooksAnswer,
  RefusalBody,
  RunDetail,
  RunEventData,
  RunsAnswer,
  StartAnswer,
} from '@kairoku-playbook/protocol';

export const BROKEN =
  'version: 1\nid: broken\ntitle: Broken\nsteps:\n  a:\n    needs: [nope]\n    prompt: x\n';

/** A workspace with playbooks/pr.yml and a broken playbook, and a home for its runs. */
export function workspace(): { root: string; home: string; cleanup: () => void } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'serve-ws-')));
  const home = mkdtempSync(join(tmpdir(), 'serve-home-'));
  mkdirSync(join(root, 'playbooks'));
  copyFileSync(join(repo, 'playbooks/pr.yml'), join(root, 'playbooks/pr.yml'));
  writeFileSync(join(root, 'playbooks/broken.yml'), BROKEN);
  return {
    root,
    home,
    cleanup: () => {
      rmSync(root, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Any answer of the API, read as the union of their fields (a test knows which one it asked for). */
export type Answer = RefusalBody & RunDetail & StartAnswer & RunsAnswer & PlaybooksAnswer;

export interface Served {
  host: RunHost;
  serve: RunningServe;
  /** fetch with the bearer token */
  api: (
    path: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string> },
  ) => Promise<{ status: number; body: Answer; headers: Headers }>;
  close: () => Promise<void>;
}

export async function served(
  root: string,
  home: string,
  options: Partial<ServeOptions> = {},
  scenario?: unknown,
): Promise<Served> {
  const host = new RunHost({ home, workspace: root, backend: 'sim', backendFor: simBackendFor(scenario) });
  host.recover();
  const serve = await startServe({
    host,
    listen: { host: '127.0.0.1', port: 0 },
    watchPlaybooks: false,
    ...options,
  });
  const api: Served['api'] = async (path, init = {}) => {
    const response = await fetch(`${serve.url}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        Authorization: `Bearer ${serve.token}`,
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
  return {
    host,
    serve,
    api,
    close: async () => {
      await serve.close();
      host.close();
    },
  };
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
