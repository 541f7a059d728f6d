import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { PaseoClient, daemonUrl } from '../../../src/backends/paseo/client.js';
import type { LogLevel, PaseoError } from '../../../src/backends/paseo/client.js';
import { FakePaseoDaemon, runsUntilCanceled } from '../../../../test/kit/index.js';

const cleanup: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const done of cleanup.splice(0).reverse()) await done();
});

async function daemon(options: Parameters<typeof FakePaseoDaemon.start>[0] = {}): Promise<FakePaseoDaemon> {
  const fake = await FakePaseoDaemon.start(options);
  cleanup.push(() => fake.close());
  return fake;
}

async function connect(
  fake: FakePaseoDaemon,
  options: Partial<Parameters<typeof PaseoClient.connect>[0]> = {},
) {
  const logs: { level: LogLevel; message: string }[] = [];
  const client = await PaseoClient.connect({
    host: fake.host,
    reconnect: { initialDelayMs: 5, maxDelayMs: 40 },
    log: (level, message) => logs.push({ level, message }),
    ...options,
  });
  cleanup.push(() => client.close());
  return { client, logs };
}

/** What the daemon does to a raw socket that sends these frames: its close code and reason. */
async function closeOf(fake: FakePaseoDaemon, frames: string[], protocols: string[] = []) {
  const ws = new WebSocket(`ws://${fake.host}/ws`, protocols);
  ws.on('open', () => frames.forEach((frame) => ws.send(frame)));
  const received: string[] = [];
  ws.on('message', (data) => received.push(String(data)));
  const [code, reason] = await new Promise<[number, string]>((resolve) =>
    ws.on('close', (c: number, r: Buffer) => resolve([c, r.toString()])),
  );
  return { code, reason, received };
}

const HELLO = { type: 'hello', clientId: 'raw', clientType: 'cli', protocolVersion: 1, appVersion: '0.1.65' };

describe('the Paseo client', () => {
  it('says hello as the first frame and waits for server_info', async () => {
    const fake = await daemon();
    const { client } = await connect(fake);
    expect(client.serverInfo).toMatchObject({
      status: 'server_info',
      serverId: fake.serverId,
      version: '0.1.65',
    });
    expect(fake.hellos).toEqual([
      {
        type: 'hello',
        clientId: client.clientId,
        clientType: 'cli',
        protocolVersion: 1,
        appVersion: '0.1.65',
      },
    ]);
    expect(client.isOpen).toBe(true);
  });

  it('correlates answers by requestId and rejects an rpc_error with its message', async () => {
    const fake = await daemon();
    const { client } = await connect(fake);
    const [listed, refused] = await Promise.allSettled([
      client.request('fetch_agents_request', { filter: { labels: { 'kairoku.run': 'none' } } }),
      client.request('no_such_request', {}),
    ]);
    expect(listed).toMatchObject({ status: 'fulfilled', value: { entries: [] } });
    expect(refused.status).toBe('rejected');
    const error = (refused as PromiseRejectedResult).reason as PaseoError;
    expect(error.message).toBe(
      'no_such_request: the Paseo daemon refused it: Unknown request schema (unknown_schema)',
    );
    expect(error.details.code).toBe('unknown_schema');
  });

  it('offers the password as the subprotocol paseo.bearer.<password>', async () => {
    const fake = await daemon({ password: 's3cret' });
    const { client } = await connect(fake, { password: 's3cret' });
    expect(client.serverInfo?.status).toBe('server_info');
  });

  it.each([
    ['without a password', undefined],
    ['with a wrong one', 'guess'],
  ])('stops with a clear error when a protected daemon closes with 4401 (%s)', async (_what, password) => {
    const fake = await daemon({ password: 's3cret' });
    const failed = PaseoClient.connect({ host: fake.host, ...(password !== undefined ? { password } : {}) });
    await expect(failed).rejects.toThrow(/refused the password \(close code 4401.*PASEO_PASSWORD/);
    await expect(failed).rejects.toMatchObject({ details: { closeCode: 4401, fatal: true } });
    expect(fake.hellos).toEqual([]);
  });

  it('says what a daemon that is down at connect means', async () => {
    const fake = await FakePaseoDaemon.start();
    const host = fake.host;
    await fake.close();
    await expect(PaseoClient.connect({ host })).rejects.toThrow(
      new RegExp(`cannot reach the Paseo daemon at ws://${host}/ws: .*ECONNREFUSED.*is the daemon running`),
    );
  });

  it.each([
    [4001, /no hello in time \(close code 4001/],
    [4002, /refused the client's hello as invalid \(close code 4002/],
    [4003, /another protocol version than 1 \(close code 4003.*update Paseo/],
  ])('turns close code %i into a clear error, and does not retry', async (code, message) => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    let connections = 0;
    server.on('connection', (ws) => {
      connections++;
      ws.on('message', () => ws.close(code, 'closed by the test'));
    });
    const { port } = server.address() as { port: number };
    await expect(PaseoClient.connect({ host: `127.0.0.1:${port}` })).rejects.toThrow(message);
    expect(connections).toBe(1);
  });

  it('reconnects with backoff after the daemon drops every connection, and says hello again', async () => {
    const fake = await daemon();
    const { client } = await connect(fake);
    const reconnected = vi.fn();
    const disconnected = vi.fn();
    client.onReconnect(reconnected);
    client.onDisconnect(disconnected);
    fake.dropConnections();
    await vi.waitFor(() => expect(reconnected).toHaveBeenCalledTimes(1), { timeout: 5000, interval: 5 });
    expect(disconnected).toHaveBeenCalledTimes(1);
    expect(fake.hellos).toHaveLength(2);
    expect(fake.hellos[1]!.clientId).toBe(client.clientId);
    await expect(client.request('fetch_agents_request', {})).resolves.toMatchObject({ entries: [] });
  });

  it('keeps trying while the daemon refuses connections, and a request waits for the connection', async () => {
    const fake = await daemon();
    const { client } = await connect(fake);
    fake.setOffline(true);
    await vi.waitFor(() => expect(client.isOpen).toBe(false), { timeout: 5000, interval: 5 });
    const waiting = client.request('fetch_agents_request', {});
    // The upgrade is refused (HTTP 503) again and again, each attempt after a longer wait.
    await vi.waitFor(() => expect(fake.refusedUpgrades).toBeGreaterThanOrEqual(3), {
      timeout: 5000,
      interval: 5,
    });
    expect(fake.hellos).toHaveLength(1);
    fake.setOffline(false);
    await expect(waiting).resolves.toMatchObject({ entries: [] });
    expect(client.connections).toBe(2);
  });

  it('rejects a request that was waiting for its answer when the connection dropped', async () => {
    const fake = await daemon({ scripts: { work: [runsUntilCanceled()] } });
    const { client } = await connect(fake);
    const created = await client.request('create_agent_request', {
      config: { provider: 'claude', cwd: tmpdir(), title: 'Work' },
      initialPrompt: 'Work until canceled.',
      labels: { 'kairoku.step': 'work', 'kairoku.attempt': '1' },
    });
    expect(created).toMatchObject({ status: 'agent_created', agentId: expect.any(String) });
    const waiting = client.request('wait_for_finish_request', { agentId: created.agentId });
    await vi.waitFor(() => expect(fake.received('wait_for_finish_request')).toHaveLength(1), { interval: 5 });
    fake.dropConnections();
    await expect(waiting).rejects.toMatchObject({
      message: expect.stringMatching(/^wait_for_finish_request: the connection to the Paseo daemon was lost/),
      details: { connectionLost: true },
    });
  });

  it('gives up on a request the daemon does not answer within its timeout', async () => {
    const fake = await daemon({ scripts: { work: [runsUntilCanceled()] } });
    const { client } = await connect(fake, { requestTimeoutMs: 30 });
    const created = await client.request(
      'create_agent_request',
      {
        config: { provider: 'claude', cwd: tmpdir(), title: 'Work' },
        initialPrompt: 'Work until canceled.',
        labels: { 'kairoku.step': 'work', 'kairoku.attempt': '1' },
      },
      { timeoutMs: 5000 },
    );
    await expect(client.request('wait_for_finish_request', { agentId: created.agentId })).rejects.toThrow(
      'wait_for_finish_request: the Paseo daemon did not answer within 30 ms',
    );
    expect(client.isOpen).toBe(true);
  });

  it('ignores garbage frames with a warning and keeps working', async () => {
    const fake = await daemon();
    const { client, logs } = await connect(fake);
    const events = vi.fn();
    client.onStream(events);
    fake.sendGarbage();
    await expect(client.request('fetch_agents_request', {})).resolves.toMatchObject({ entries: [] });
    const warnings = logs.filter((l) => l.level === 'warn').map((l) => l.message);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining('ignored a frame that is not JSON: this is not json {'),
        expect.stringContaining('ignored a frame of unknown shape: [1,2,3]'),
        expect.stringContaining('ignored a session frame without a message type'),
        expect.stringContaining('ignored an agent_stream message without an agent id'),
        expect.stringContaining('rpc_error for no pending request'),
      ]),
    );
    expect(events).not.toHaveBeenCalled();
    expect(client.isOpen).toBe(true);
  });

  it('reads a daemon address in its usual forms', () => {
    expect(daemonUrl('127.0.0.1:6767')).toBe('ws://127.0.0.1:6767/ws');
    expect(daemonUrl('localhost')).toBe('ws://localhost:6767/ws');
    expect(daemonUrl('http://10.0.0.2:7000')).toBe('ws://10.0.0.2:7000/ws');
    expect(daemonUrl('ws://host:1/custom')).toBe('ws://host:1/custom');
    expect(() => daemonUrl('')).toThrow(/PASEO_HOST/);
    expect(() => daemonUrl('ftp://x')).toThrow(/not a Paseo daemon address/);
  });
});

describe('the fake daemon follows the protocol', () => {
  it('answers GET /api/health without auth', async () => {
    const fake = await daemon({ password: 'p' });
    const response = await fetch(`http://${fake.host}/api/health`);
    expect(response.status).toBe(200);
    await expect(response.json()).resolves.toEqual({ status: 'ok' });
  });

  it('closes with 4001 when no hello comes in time', async () => {
    const fake = await daemon({ helloTimeoutMs: 50 });
    await expect(closeOf(fake, [])).resolves.toMatchObject({ code: 4001 });
  });

  it.each([
    ['a hello inside a session envelope', JSON.stringify({ type: 'session', message: HELLO })],
    ['a hello without a client id', JSON.stringify({ ...HELLO, clientId: undefined })],
    ['a blank client id', JSON.stringify({ ...HELLO, clientId: '  ' })],
    ['a first frame that is not JSON', 'hello?'],
  ])('closes with 4002 on %s', async (_what, frame) => {
    const fake = await daemon();
    await expect(closeOf(fake, [frame])).resolves.toMatchObject({ code: 4002 });
  });

  it('closes with 4003 on another protocol version', async () => {
    const fake = await daemon();
    await expect(closeOf(fake, [JSON.stringify({ ...HELLO, protocolVersion: 2 })])).resolves.toMatchObject({
      code: 4003,
    });
  });

  it('closes with 4401 on a wrong password, before any hello', async () => {
    const fake = await daemon({ password: 'right' });
    const closed = await closeOf(fake, [JSON.stringify(HELLO)], ['paseo.bearer.wrong']);
    expect(closed).toMatchObject({ code: 4401, received: [] });
  });
});
