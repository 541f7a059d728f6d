import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LISTENER_OPTIONS, discardBody, readBody } from '../backends/http-body.js';
import { checkBody, describeProblems, isLoopback, isWildcard } from '../backends/kairoku/protocol.js';
import type { CapacityResponse } from '../backends/kairoku/protocol.js';

/**
 * The runner's local listener (RF-005, RF-006): `GET /capacity` answers the running count and the
 * configured maximum, so `kairoku doctor` can ask the machine how it is doing. It has no credential,
 * so it binds loopback only: a wildcard or any other address is refused.
 */
export async function startCapacityServer(
  host: string,
  port: number,
  capacity: () => CapacityResponse,
  options: { bodyTimeoutMs?: number } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  if (isWildcard(host))
    throw new Error(`refusing a wildcard bind (${host || 'all interfaces'}): loopback only (RF-006)`);
  if (!isLoopback(host))
    throw new Error(`refusing to bind ${host}: the capacity listener is loopback only (RF-006)`);
  const server: Server = createServer(LISTENER_OPTIONS, (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const answer = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
    };
    const limits = {
      maxBytes: 0,
      ...(options.bodyTimeoutMs !== undefined ? { timeoutMs: options.bodyTimeoutMs } : {}),
    };
    if (path !== '/capacity' || req.method !== 'GET') {
      discardBody(req, limits);
      if (path !== '/capacity') return answer(404, { error: `no route ${path}; the route is GET /capacity` });
      return answer(405, { error: '/capacity takes GET' });
    }
    // A GET has no body: one that comes is refused (413), and one that never ends cannot hold the listener.
    readBody(req, limits)
      .then((body) => {
        if (!body.ok) return answer(body.status, { error: body.reason });
        const now = capacity();
        const problems = checkBody('capacity.response', now);
        if (problems.length) return answer(500, { error: `BUG: ${describeProblems(problems)}` });
        answer(200, now);
      })
      .catch((error: unknown) => answer(500, { error: `the runner failed to answer: ${String(error)}` }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}/capacity`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
