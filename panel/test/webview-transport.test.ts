/**
 * The page's transport inside VS Code's Playbooks view: API calls and events as messages to and from the
 * extension host (which holds serve's token). Node's EventTarget and MessageEvent stand in for the window.
 */
import { describe, expect, it } from 'vitest';
import { webviewTransport } from '../src/page/webview-transport.js';
import type { HostCommand } from '../src/page/webview-transport.js';

function setUp() {
  const posted: Record<string, unknown>[] = [];
  const window = new EventTarget();
  const commands: HostCommand[] = [];
  const transport = webviewTransport(
    { postMessage: (message) => posted.push(message as Record<string, unknown>) },
    (command) => commands.push(command),
    window as unknown as Window,
  );
  const fromHost = (data: unknown) => window.dispatchEvent(new MessageEvent('message', { data }));
  return { posted, transport, fromHost, commands };
}

describe('the webview transport', () => {
  it('posts each request with its own id and resolves it with the answer of that id', async () => {
    const { posted, transport, fromHost } = setUp();
    const first = transport.request('GET', '/playbooks');
    const second = transport.request('POST', '/runs', { playbook: 'playbooks/pr.yml', inputs: {} });
    expect(posted).toEqual([
      { type: 'request', id: 1, method: 'GET', path: '/playbooks' },
      {
        type: 'request',
        id: 2,
        method: 'POST',
        path: '/runs',
        body: { playbook: 'playbooks/pr.yml', inputs: {} },
      },
    ]);
    fromHost({ type: 'response', id: 2, status: 422, text: '{"refusal":{}}' });
    fromHost({ type: 'response', id: 1, status: 200, text: '{"playbooks":[]}' });
    await expect(first).resolves.toEqual({ status: 200, text: '{"playbooks":[]}' });
    await expect(second).resolves.toEqual({ status: 422, text: '{"refusal":{}}' });
  });

  it('rejects a request the host could not make (status 0), with the host’s reason', async () => {
    const { transport, fromHost } = setUp();
    const answer = transport.request('GET', '/runs');
    fromHost({ type: 'response', id: 1, status: 0, text: 'connect ECONNREFUSED 127.0.0.1:7420' });
    await expect(answer).rejects.toThrow('connect ECONNREFUSED 127.0.0.1:7420');
  });

  it('says it is ready when the page listens, and turns forwarded events and the connection into DOM events', async () => {
    const { posted, transport, fromHost } = setUp();
    const events = transport.events();
    expect(posted).toEqual([{ type: 'ready' }]);
    const seen: string[] = [];
    for (const type of ['open', 'error', 'run', 'playbooks', 'reset'])
      events.addEventListener(type, (event) =>
        seen.push(event instanceof MessageEvent ? `${type} ${String(event.data)}` : type),
      );
    fromHost({ type: 'connection', live: true });
    fromHost({ type: 'event', event: 'run', data: '{"id":"pr-1"}' });
    fromHost({ type: 'event', event: 'playbooks', data: '{}' });
    fromHost({ type: 'connection', live: false, message: 'serve went away' });
    fromHost({ type: 'event', event: 'reset', data: '{}' });
    expect(seen).toEqual(['open', 'run {"id":"pr-1"}', 'playbooks {}', 'error', 'reset {}']);
  });

  it('a page that listens after the stream came up still learns that it is up', async () => {
    const { transport, fromHost } = setUp();
    fromHost({ type: 'connection', live: true });
    const events = transport.events();
    const opened = new Promise<string>((resolve) => events.addEventListener('open', () => resolve('open')));
    await expect(opened).resolves.toBe('open');
  });

  it('hands the host’s commands on, and ignores messages that are not the host’s', () => {
    const { commands, fromHost, posted } = setUp();
    fromHost({ type: 'start-playbook', playbook: 'playbooks/pr.yml' });
    fromHost({ type: 'open-run', run: 'pr-1a2b3c' });
    fromHost('not a message');
    fromHost(null);
    fromHost({ type: 'response', id: 99, status: 200, text: '' });
    expect(commands).toEqual([
      { type: 'start-playbook', playbook: 'playbooks/pr.yml' },
      { type: 'open-run', run: 'pr-1a2b3c' },
    ]);
    expect(posted).toEqual([]);
  });
});
