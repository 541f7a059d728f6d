/**
 * What Node's HTTP parser refuses, and a run id the store cannot name, answered as every refusal of
 * serve is (issue 27 item 8): JSON with a stable code and serve's security headers, never a bare
 * answer or a 500.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prWorkspace, serveOnSim } from '../../../test/kit/index.js';
import type { Served } from '../../../test/kit/index.js';

const ws = prWorkspace();
let serve: Served;
beforeAll(async () => {
  serve = await serveOnSim(ws.root, ws.home);
});
afterAll(async () => {
  await serve.close();
  ws.cleanup();
});

/** Sends raw bytes and reads the whole answer. */
function raw(bytes: string): Promise<string> {
  const { port } = new URL(serve.serve.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe("serve's answers to what is not a request it can read", () => {
  it('a malformed request line is a JSON 400 with the security headers', async () => {
    const answer = await raw('NOT HTTP AT ALL\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('X-Content-Type-Options: nosniff');
    expect(answer).toContain('"code":"bad-request"');
  });

  it('headers too large are a JSON 431 with the security headers', async () => {
    const answer = await raw(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('Content-Security-Policy:');
    expect(answer).toContain('"code":"headers-too-large"');
  });

  it('a run id the store cannot name is 404 unknown-run, not 500', async () => {
    for (const id of ['.hidden', 'a b', '\u0000', 'x/y'])
      for (const path of [
        `/api/v1/runs/${encodeURIComponent(id)}`,
        `/api/v1/runs/${encodeURIComponent(id)}/cancel`,
      ]) {
        const answer = await serve.api(path, path.endsWith('cancel') ? { body: {} } : {});
        expect([path, answer.status]).toEqual([path, 404]);
        expect(answer.body.refusal.code).toBe('unknown-run');
      }
  });
});
