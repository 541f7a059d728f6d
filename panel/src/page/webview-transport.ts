/**
 * The page inside VS Code's Playbooks view: the API through the extension host, by `postMessage`. The
 * webview never sees serve's token or address: the host adds the bearer token to each request, and
 * forwards serve's event stream as messages. The messages (vscode-extension/src/playbooks-protocol.ts
 * imports the lists below):
 *
 *   page → host  { type: 'ready' }                                   the page listens; send what waits
 *                { type: 'request', id, method, path, body? }        an API call, path under /api/v1
 *   host → page  { type: 'response', id, status, text }              its answer (status 0: serve unreachable)
 *                { type: 'event', event, data }                      one of serve's events (run, playbooks, reset)
 *                { type: 'connection', live, message? }              the event stream is up, or down and why
 *                { type: 'start-playbook', playbook }                open that playbook's start form
 *                { type: 'open-run', run }                           open that run's tab
 */
import type { LiveEvents, Transport } from './transport.js';

/** What `acquireVsCodeApi()` returns, as far as the page uses it. */
export interface VsCodeApi {
  postMessage(message: unknown): void;
}

/** The message types each side sends (the extension's playbooks-protocol.ts takes these lists). */
export const PAGE_MESSAGE_TYPES = ['ready', 'request'] as const;
export const HOST_MESSAGE_TYPES = ['response', 'event', 'connection', 'start-playbook', 'open-run'] as const;

export type HostCommand =
  { type: 'start-playbook'; playbook: string } | { type: 'open-run'; run: string; step?: string };

type HostMessage =
  | { type: 'response'; id: number; status: number; text: string }
  | { type: 'event'; event: string; data: string }
  | { type: 'connection'; live: boolean; message?: string }
  | HostCommand;

function isHostMessage(value: unknown): value is HostMessage {
  const m = value as { type?: unknown } | null;
  return typeof m === 'object' && m !== null && typeof m.type === 'string';
}

/**
 * The transport of a webview, and the commands the extension sends (Run playbook, the graph view's
 * link to a run) to `onCommand`. `source` is where the host's messages arrive (the window).
 */
export function webviewTransport(
  vscode: VsCodeApi,
  onCommand: (command: HostCommand) => void,
  source: Pick<Window, 'addEventListener'> = window,
): Transport {
  let nextId = 1;
  const pending = new Map<number, (answer: { status: number; text: string }) => void>();
  const events = new EventTarget();
  let live = false;

  source.addEventListener('message', (event: MessageEvent<unknown>) => {
    const message = event.data;
    if (!isHostMessage(message)) return;
    switch (message.type) {
      case 'response': {
        const resolve = pending.get(message.id);
        pending.delete(message.id);
        resolve?.({ status: message.status, text: message.text });
        return;
      }
      case 'event':
        events.dispatchEvent(new MessageEvent(message.event, { data: message.data }));
        return;
      case 'connection':
        live = message.live;
        events.dispatchEvent(new Event(message.live ? 'open' : 'error'));
        return;
      case 'start-playbook':
      case 'open-run':
        onCommand(message);
        return;
    }
  });

  return {
    request(method, path, body) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, (answer) => {
          // Status 0: the host could not reach serve; the text says why (the store shows it).
          if (answer.status === 0) reject(new Error(answer.text));
          else resolve(answer);
        });
        vscode.postMessage({ type: 'request', id, method, path, ...(body === undefined ? {} : { body }) });
      });
    },
    events(): LiveEvents {
      // The stream is the host's; a listener added after it opened still learns that it is up.
      if (live) queueMicrotask(() => events.dispatchEvent(new Event('open')));
      vscode.postMessage({ type: 'ready' });
      return {
        addEventListener: (type, listener) => events.addEventListener(type, listener),
        close: () => undefined,
      };
    },
  };
}
