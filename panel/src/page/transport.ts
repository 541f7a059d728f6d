/**
 * How the page reaches serve's API: the one seam between the page and where it is shown.
 *
 * - In a browser (served by `serve`): `fetch` to the page's own origin (the HttpOnly cookie travels by
 *   itself, no token in the page) and an `EventSource` for live updates.
 * - In a VS Code webview: every request and every event goes through the extension host by
 *   `postMessage` (webview-transport.ts); the extension holds the token and talks to serve itself.
 */

/** An answer as the page reads it: the status and the body's text (JSON, or nothing). */
export interface ApiAnswer {
  status: number;
  text: string;
}

/** What the store listens to: `open`, `error` (the connection), `run`, `playbooks`, `reset` (serve's events). */
export interface LiveEvents {
  addEventListener(type: string, listener: (event: Event) => void): void;
  close(): void;
}

export interface Transport {
  /** `path` is under `/api/v1` (`/runs`, `/runs/ID/pause`) */
  request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer>;
  events(): LiveEvents;
}

/** Where the API lives: the page's own origin, or what the host page names. */
function apiBase(): string {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="kairoku-api"]');
  return (meta?.content ?? '').replace(/\/$/, '') + '/api/v1';
}

export const browserTransport: Transport = {
  async request(method, path, body) {
    const response = await fetch(apiBase() + path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, text: await response.text() };
  },
  // EventSource reconnects by itself and sends Last-Event-ID, so nothing is missed.
  events: () => new EventSource(`${apiBase()}/events`, { withCredentials: true }),
};

let current: Transport = browserTransport;

export function transport(): Transport {
  return current;
}

/** Set once, before the page loads anything (main.tsx). */
export function useTransport(next: Transport): void {
  current = next;
}
