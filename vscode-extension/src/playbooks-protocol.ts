/**
 * The messages between the Playbooks view's page (the panel, panel/src/page/webview-transport.ts, which
 * lists the same ones; a test holds the two equal) and the extension host. The page asks for API calls;
 * the host makes them with serve's token and answers. The page is not trusted with more than serve's
 * API: a request is checked here before it goes anywhere. No `vscode` here.
 */

/** page → host */
export type PageMessage =
  { type: 'ready' } | { type: 'request'; id: number; method: 'GET' | 'POST'; path: string; body?: unknown };

/** host → page */
export type HostMessage =
  | { type: 'response'; id: number; status: number; text: string }
  | { type: 'event'; event: string; data: string }
  | { type: 'connection'; live: boolean; message?: string }
  | { type: 'start-playbook'; playbook: string }
  | { type: 'open-run'; run: string; step?: string };

// One list of messages for both sides: the page's own (the extension may import the panel; the panel not it).
export { HOST_MESSAGE_TYPES, PAGE_MESSAGE_TYPES } from '@kairoku-playbook/panel/webview-transport';

/** A path under /api/v1: segments of URL-safe characters and an optional query, never `..` or a host. */
const API_PATH = /^(\/[A-Za-z0-9._~%-]+)+(\?[A-Za-z0-9._~%=&-]*)?$/;

export function isApiPath(path: string): boolean {
  return API_PATH.test(path) && !path.split(/[/?]/).some((segment) => segment === '..' || segment === '.');
}

/** The page's message, if it is one (anything else is ignored). */
export function pageMessage(value: unknown): PageMessage | undefined {
  const m = value as Record<string, unknown> | null;
  if (typeof m !== 'object' || m === null) return undefined;
  if (m.type === 'ready') return { type: 'ready' };
  if (
    m.type === 'request' &&
    Number.isSafeInteger(m.id) &&
    (m.method === 'GET' || m.method === 'POST') &&
    typeof m.path === 'string' &&
    isApiPath(m.path) &&
    (m.method === 'POST' || m.body === undefined)
  )
    return {
      type: 'request',
      id: m.id as number,
      method: m.method,
      path: m.path,
      ...(m.body === undefined ? {} : { body: m.body }),
    };
  return undefined;
}
