/** The serve API over fetch, same origin (the cookie travels by itself; no token in the page). */
import type {
  PlaybookCard,
  Refusal,
  RunDetail,
  RunListItem,
  StartAnswer,
  StartRequest,
} from '../api/api-types.js';

export class RefusedError extends Error {
  constructor(
    readonly status: number,
    readonly refusal: Refusal,
  ) {
    super(refusal.message);
  }
}

/** Where the API lives: the page's own origin, or what the host page names (a VS Code webview). */
function apiBase(): string {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="kairoku-api"]');
  return (meta?.content ?? '').replace(/\/$/, '') + '/api/v1';
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await fetch(apiBase() + path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON (a proxy's error page): the status says enough
  }
  if (!response.ok) {
    const refusal = (data as { refusal?: Refusal } | undefined)?.refusal;
    throw new RefusedError(
      response.status,
      refusal ?? { code: `http-${response.status}`, message: `The server answered ${response.status}.` },
    );
  }
  return data as T;
}

const run = (id: string) => `/runs/${encodeURIComponent(id)}`;

export const api = {
  playbooks: () => call<{ playbooks: PlaybookCard[] }>('GET', '/playbooks'),
  runs: (archived: boolean) => call<{ runs: RunListItem[] }>('GET', `/runs${archived ? '?archived=1' : ''}`),
  run: (id: string) => call<RunDetail>('GET', run(id)),
  start: (request: StartRequest) => call<StartAnswer>('POST', '/runs', request),
  act: (id: string, action: 'cancel' | 'pause' | 'resume' | 'archive') =>
    call<RunDetail>('POST', `${run(id)}/${action}`, {}),
  restart: (id: string, step: string) => call<RunDetail>('POST', `${run(id)}/restart`, { step }),
  decide: (id: string, step: string, choice: string, comment?: string) =>
    call<RunDetail>(
      'POST',
      `${run(id)}/gates/${encodeURIComponent(step)}`,
      comment ? { choice, comment } : { choice },
    ),
  nudge: (id: string, step: string, message: string) =>
    call<RunDetail>('POST', `${run(id)}/steps/${encodeURIComponent(step)}/nudge`, { message }),
  retry: (id: string, step: string) =>
    call<RunDetail>('POST', `${run(id)}/steps/${encodeURIComponent(step)}/retry`, {}),
  startAfter: (id: string, name: string) =>
    call<RunDetail>('POST', `${run(id)}/after/${encodeURIComponent(name)}/start`, {}),
  eventsUrl: () => `${apiBase()}/events`,
};
