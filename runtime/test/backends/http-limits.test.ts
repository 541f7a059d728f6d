/**
 * The runtime's HTTP listeners against hostile bodies, with a raw client on 127.0.0.1: the step agents'
 * report endpoint, the Kairoku app server and the runner's capacity listener each refuse a body over
 * their limit (413: declared, or the moment it grows past), one that never finishes (408), and keys named
 * `__proto__` (400), and each answers the next request as usual.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startKairokuServer } from '../../src/backends/kairoku/server.js';
import type { ProtocolHandler } from '../../src/backends/kairoku/server.js';
import { startReportEndpoint } from '../../src/backends/report-endpoint.js';
import { startCapacityServer } from '../../src/runner/capacity-server.js';

const MiB = 1024 * 1024;
/** short, so the slow-body cases end quickly; not a timing assertion (only the status is checked) */
const BODY_TIMEOUT_MS = 300;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

interface Exchange {
  /** the status of the answer, or undefined when the connection closed without one */
  status: number | undefined;
  body: string;
}

/**
 * One request over a fresh socket: `head` (request line and headers, without the blank line), then the
 * body pieces; with `endless`, it keeps writing 64 KiB chunks of chunked body until the answer comes or
 * the server closes the socket.
 */
function exchange(
  url: string,
  head: string,
  options: { body?: (string | Buffer)[]; endless?: boolean } = {},
): Promise<Exchange> {
  const { port, pathname } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1];
      resolve({
        status: status ? Number(status) : undefined,
        body: received.split('\r\n\r\n').slice(1).join('\r\n\r\n'),
      });
    };
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      // An answer is complete once its Content-Length of body bytes is in.
      const length = /content-length: (\d+)/i.exec(received)?.[1];
      const split = received.indexOf('\r\n\r\n');
      if (length && split >= 0 && Buffer.byteLength(received.slice(split + 4), 'latin1') >= Number(length))
        finish();
    });
    socket.on('error', finish);
    socket.on('close', finish);
    socket.write(`${head.replace('PATH', pathname)}\r\nHost: 127.0.0.1\r\n\r\n`);
    for (const piece of options.body ?? []) socket.write(piece);
    if (options.endless) {
      const chunk = `${(64 * 1024).toString(16)}\r\n${'x'.repeat(64 * 1024)}\r\n`;
      const pump = () => {
        while (!done && socket.writable && socket.write(chunk));
        if (!done && socket.writable) socket.once('drain', pump);
      };
      pump();
    }
  });
}

/** The request every listener must still answer after the hostile one (its status). */
type Probe = () => Promise<number | undefined>;

/** Hostile bodies every listener refuses; `post` is the request head for a route that reads a body. */
function hostileBodies(
  name: string,
  start: () => Promise<{ url: string; post: string; probe: Probe; limit: number }>,
) {
  describe(name, () => {
    it('refuses a declared body over the limit at once, and answers the next request', async () => {
      const { url, post, probe, limit } = await start();
      const answer = await exchange(url, `${post}\r\nContent-Length: ${limit + 1}`);
      expect(answer.status).toBe(413);
      expect(await probe()).not.toBeUndefined();
    });

    it('refuses a body that grows past the limit as it comes', async () => {
      const { url, post, probe, limit } = await start();
      const size = limit + 200 * 1024;
      const answer = await exchange(url, `${post}\r\nTransfer-Encoding: chunked`, {
        body: [`${size.toString(16)}\r\n`, Buffer.alloc(size, 'x')],
      });
      expect(answer.status).toBe(413);
      expect(await probe()).not.toBeUndefined();
    });

    it('is not held by a body that never ends', async () => {
      const { url, post, probe } = await start();
      const answer = await exchange(url, `${post}\r\nTransfer-Encoding: chunked`, { endless: true });
      // Refused (413), or the socket closed once past the drain allowance: either way the listener is free.
      expect([413, undefined]).toContain(answer.status);
      expect(await probe()).not.toBeUndefined();
    });

    it('refuses a body that does not arrive in time (408)', async () => {
      const { url, post, probe } = await start();
      const answer = await exchange(url, `${post}\r\nContent-Length: 100`, { body: ['{"a":'] });
      expect(answer.status).toBe(limitIsZero(post) ? 413 : 408);
      expect(await probe()).not.toBeUndefined();
    });
  });
}

const limitIsZero = (post: string) => post.startsWith('GET');

const TOKEN = 'an-app-token-long-enough';

hostileBodies('the report endpoint', async () => {
  const endpoint = await startReportEndpoint({ onReport: () => undefined, bodyTimeoutMs: BODY_TIMEOUT_MS });
  closers.push(() => endpoint.close());
  const token = endpoint.mint({ run: 'r', step: 's', attempt: 1 });
  return {
    url: endpoint.url,
    post: `POST PATH HTTP/1.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json`,
    probe: async () => (await exchange(endpoint.url, 'POST PATH HTTP/1.1\r\nContent-Length: 0')).status,
    limit: MiB,
  };
});

const handler: ProtocolHandler = {
  handle: () => ({ status: 200, body: { ok: true } }),
  fault: () => undefined,
};

hostileBodies('the Kairoku app server', async () => {
  const server = await startKairokuServer(handler, {
    host: '127.0.0.1',
    port: 0,
    appToken: TOKEN,
    bodyTimeoutMs: BODY_TIMEOUT_MS,
  });
  closers.push(() => server.close());
  const url = `${server.url}/v1/heartbeat`;
  return {
    url,
    post: `POST PATH HTTP/1.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json`,
    probe: async () => (await exchange(`${server.url}/v1/nowhere`, 'GET PATH HTTP/1.1')).status,
    limit: MiB,
  };
});

hostileBodies('the runner’s capacity listener', async () => {
  const server = await startCapacityServer('127.0.0.1', 0, () => ({ running: 0, max: 2 }), {
    bodyTimeoutMs: BODY_TIMEOUT_MS,
  });
  closers.push(() => server.close());
  return {
    url: server.url,
    post: 'GET PATH HTTP/1.1',
    probe: async () => (await exchange(server.url, 'GET PATH HTTP/1.1')).status,
    limit: 0,
  };
});

describe('a slow chunked GET on the capacity listener', () => {
  it('is refused with 408 when its body never comes', async () => {
    const server = await startCapacityServer('127.0.0.1', 0, () => ({ running: 1, max: 2 }), {
      bodyTimeoutMs: BODY_TIMEOUT_MS,
    });
    closers.push(() => server.close());
    const answer = await exchange(server.url, 'GET PATH HTTP/1.1\r\nTransfer-Encoding: chunked');
    expect(answer.status).toBe(408);
    const ok = await exchange(server.url, 'GET PATH HTTP/1.1');
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ running: 1, max: 2 });
  });
});

describe('keys named __proto__ in a body', () => {
  const body = '{"runner":"r1","__proto__":{"polluted":true}}';

  it('are refused by the Kairoku app server before its schema check', async () => {
    const server = await startKairokuServer(handler, { host: '127.0.0.1', port: 0, appToken: TOKEN });
    closers.push(() => server.close());
    const answer = await exchange(
      `${server.url}/v1/heartbeat`,
      `POST PATH HTTP/1.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: ${body.length}`,
      { body: [body] },
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({
      error: {
        code: 'bad-request',
        message: expect.stringContaining('a key named "__proto__" at __proto__ is refused'),
      },
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('are refused by the report endpoint before the MCP SDK (which would drop them silently)', async () => {
    const reports: unknown[] = [];
    const endpoint = await startReportEndpoint({ onReport: (_b, report) => void reports.push(report) });
    closers.push(() => endpoint.close());
    const token = endpoint.mint({ run: 'r', step: 's', attempt: 1 });
    const call =
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"report_step_result","arguments":{"outcome":"done","outputs":{"__proto__":{"polluted":true}}}}}';
    const answer = await exchange(
      endpoint.url,
      `POST PATH HTTP/1.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${call.length}`,
      { body: [call] },
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toContain(
      'a key named \\"__proto__\\" at params.arguments.outputs.__proto__ is refused',
    );
    expect(reports).toEqual([]);
    expect(endpoint.liveTokens()).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
