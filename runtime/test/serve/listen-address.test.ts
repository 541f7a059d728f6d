/**
 * serve's URL names where it listens (issue 27 item 6): on `[::1]` it advertises `http://[::1]:PORT`
 * (not 127.0.0.1, where nothing listens), and on another loopback address such as 127.0.0.2 its own
 * Host is accepted, so the URL it prints works in a browser and for `runs` of that workspace.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { RunHost } from '../../src/host/run-host.js';
import { simBackendFor } from '../../src/serve/backends.js';
import { startServe } from '../../src/serve/server.js';
import { prWorkspace } from '../../../test/kit/index.js';

const ws = prWorkspace();
afterAll(() => ws.cleanup());

describe('the address serve advertises', () => {
  for (const [listen, prefix] of [
    ['::1', 'http://[::1]:'],
    ['127.0.0.2', 'http://127.0.0.2:'],
    ['127.0.0.1', 'http://127.0.0.1:'],
  ] as const)
    it(`is where it listens: --listen ${listen}`, async () => {
      const host = new RunHost({
        home: ws.home,
        workspace: ws.root,
        backend: 'sim',
        backendFor: simBackendFor(undefined),
      });
      const serve = await startServe({ host, listen: { host: listen, port: 0 }, watchPlaybooks: false });
      try {
        expect(serve.url.startsWith(prefix)).toBe(true);
        const answer = await fetch(`${serve.url}/api/v1/runs`, {
          headers: { Authorization: `Bearer ${serve.token}` },
        });
        expect(answer.status).toBe(200);
        // The login URL works too (sets the cookie and sends the browser to the page).
        const login = await fetch(serve.loginUrl, { redirect: 'manual' });
        expect(login.status).toBe(303);
      } finally {
        await serve.close();
        host.close();
      }
    });
});
