import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
): Promise<{ url: string; close(): Promise<void> }> {
  if (isWildcard(host))
    throw new Error(`refusing a wildcard bind (${host || 'all interfaces'}): loopback only (RF-006)`);
  if (!isLoopback(host))
    throw new Error(`refusing to bind ${host}: the capacity listener is loopback only (RF-006)`);
  const server: Server = createServer((req, res) => {
    req.resume();
    const path = (req.url ?? '').split('?')[0];
    let status = 200;
    let body: unknown;
    if (path !== '/capacity')
      [status, body] = [404, { error: `no route ${path}; the route is GET /capacity` }];
    else if (req.method !== 'GET') [status, body] = [405, { error: '/capacity takes GET' }];
    else {
      body = capacity();
      const problems = checkBody('capacity.response', body);
      if (problems.length) [status, body] = [500, { error: `BUG: ${describeProblems(problems)}` }];
    }
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
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
