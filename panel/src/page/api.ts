/** The serve API, over the page's transport (transport.ts: fetch in a browser, the extension host in VS Code). */
import type {
  BoundsAnswer,
  CurrentAgentAnswer,
  PlaybookCard,
  Refusal,
  RunDetail,
  RunsAnswer,
  StartAnswer,
  StartRequest,
} from '@kairoku-playbook/protocol';
import { transport } from './transport.js';

export class RefusedError extends Error {
  constructor(
    readonly status: number,
    readonly refusal: Refusal,
  ) {
    super(refusal.message);
  }
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const { status, text } = await transport().request(method, path, body);
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON (a proxy's error page): the status says enough
  }
  if (status < 200 || status > 299) {
    const refusal = (data as { refusal?: Refusal } | undefined)?.refusal;
    throw new RefusedError(
      status,
      refusal ?? { code: `http-${status}`, message: `The server answered ${status}.` },
    );
  }
  return data as T;
}

/** How many runs the list asks for at a time ("More runs" asks for the next ones). */
export const RUN_PAGE = 50;

const run = (id: string) => `/runs/${encodeURIComponent(id)}`;

export const api = {
  playbooks: () => call<{ playbooks: PlaybookCard[] }>('GET', '/playbooks'),
  /** a page of runs (`offset`, `RUN_PAGE` of them), with the archived ones or not, of a status or all */
  runs: (page: { archived: boolean; status: string; offset: number }) => {
    const query = new URLSearchParams({ limit: String(RUN_PAGE), offset: String(page.offset) });
    if (page.archived) query.set('archived', '1');
    if (page.status !== 'all') query.set('status', page.status);
    return call<RunsAnswer>('GET', `/runs?${query.toString()}`);
  },
  run: (id: string) => call<RunDetail>('GET', run(id)),
  start: (request: StartRequest) => call<StartAnswer>('POST', '/runs', request),
  currentAgent: () => call<CurrentAgentAnswer>('GET', '/current-agent'),
  bounds: (playbook: string) =>
    call<BoundsAnswer>('GET', `/bounds?${new URLSearchParams({ playbook }).toString()}`),
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
};
