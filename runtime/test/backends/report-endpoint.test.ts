import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  reportToken,
  startReportEndpoint,
  startSharedReportEndpoint,
} from '../../src/backends/report-endpoint.js';
import type { ReportBinding, ReportEndpoint, StepReport } from '../../src/backends/report-endpoint.js';
import { checkStepAgentToken, stepAgentToken, storeKey } from '../../src/store/step-token.js';
import { tempDir } from '../../../test/kit/index.js';

let endpoint: ReportEndpoint | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempHome(): string {
  const home = tempDir('kp-report-home-');
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  return home;
}

/**
 * A POST of an empty JSON-RPC body with a bearer token, on a connection of its own (fetch would reuse
 * one to an endpoint closed since): the status, and the reason of a refusal.
 */
function post(url: string, token: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}

async function connect(url: string, token: string | undefined): Promise<Client> {
  const client = new Client({ name: 'step-agent', version: '1' });
  const headers: Record<string, string> = token === undefined ? {} : { Authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as { text: string }[]).map((c) => c.text).join('');
}

describe('the step agents’ report endpoint', () => {
  it('takes a report for the token’s binding, then refuses the token’s replay', async () => {
    const reports: [ReportBinding, StepReport][] = [];
    endpoint = await startReportEndpoint({
      onReport: (binding, report) => void reports.push([binding, report]),
    });
    expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const token = endpoint.mint({ run: 'r1', step: 'build', attempt: 2, outcomes: ['done', 'failed'] });
    const client = await connect(endpoint.url, token);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(['report_step_result']);
    expect(tools.tools[0]!.description).toContain('one of done, failed');
    const result = await client.callTool({
      name: 'report_step_result',
      arguments: { outcome: 'done', summary: 'built', outputs: { files: 3 } },
    });
    expect(result.isError).toBeFalsy();
    expect(reports).toEqual([
      [
        { run: 'r1', step: 'build', attempt: 2, outcomes: ['done', 'failed'] },
        { outcome: 'done', summary: 'built', outputs: { files: 3 } },
      ],
    ]);
    expect(endpoint.liveTokens()).toBe(0);
    await client.close();
    await expect(connect(endpoint.url, token)).rejects.toThrow(/revoked/);
    expect(reports).toHaveLength(1);
  });

  it('passes a refusal back to the agent and keeps the token for a corrected report', async () => {
    let calls = 0;
    endpoint = await startReportEndpoint({
      onReport: (_binding, report) =>
        ++calls === 1
          ? `output "count" must be an integer, not ${JSON.stringify(report.outputs?.count)}`
          : undefined,
    });
    const token = endpoint.mint({ run: 'r1', step: 'count', attempt: 1 });
    const client = await connect(endpoint.url, token);
    const refused = await client.callTool({
      name: 'report_step_result',
      arguments: { outcome: 'done', outputs: { count: 'x' } },
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('must be an integer');
    expect(endpoint.liveTokens()).toBe(1);
    const accepted = await client.callTool({
      name: 'report_step_result',
      arguments: { outcome: 'done', outputs: { count: 1 } },
    });
    expect(accepted.isError).toBeFalsy();
    expect(endpoint.liveTokens()).toBe(0);
    await client.close();
  });

  it('refuses a missing, unknown or revoked token before anything reaches a run', async () => {
    const rejected: string[] = [];
    const bindings: unknown[] = [];
    let reports = 0;
    endpoint = await startReportEndpoint({
      onReport: () => void reports++,
      onRejected: (reason, binding) => {
        rejected.push(reason);
        bindings.push(binding);
      },
    });
    const token = endpoint.mint({ run: 'r1', step: 's', attempt: 1 });
    endpoint.revoke(token);
    await expect(connect(endpoint.url, undefined)).rejects.toThrow(/no bearer token/);
    await expect(connect(endpoint.url, 'made-up')).rejects.toThrow(/unknown token/);
    await expect(connect(endpoint.url, token)).rejects.toThrow(/revoked/);
    expect(rejected).toHaveLength(3);
    // Only a revoked token names the attempt it was for, so its run can record the refusal.
    expect(bindings).toEqual([undefined, undefined, { run: 'r1', step: 's', attempt: 1 }]);
    expect(reports).toBe(0);
  });

  it('answers plain HTTP mistakes with a status and a reason', async () => {
    endpoint = await startReportEndpoint({ onReport: () => undefined });
    const token = endpoint.mint({ run: 'r1', step: 's', attempt: 1 });
    const auth = { Authorization: `Bearer ${token}` };
    const get = await fetch(endpoint.url, { headers: auth });
    expect(get.status).toBe(405);
    const garbage = await fetch(endpoint.url, { method: 'POST', headers: auth, body: '{not json' });
    expect(garbage.status).toBe(400);
    const huge = await fetch(endpoint.url, {
      method: 'POST',
      headers: auth,
      body: 'x'.repeat(2 * 1024 * 1024),
    });
    expect(huge.status).toBe(413);
    const elsewhere = await fetch(endpoint.url.replace('/mcp', '/other'), { method: 'POST', headers: auth });
    expect(elsewhere.status).toBe(404);
    expect(endpoint.liveTokens()).toBe(1);
  });

  it('binds loopback only', async () => {
    await expect(startReportEndpoint({ host: '0.0.0.0', onReport: () => undefined })).rejects.toThrow(
      /refusing the wildcard address/,
    );
    await expect(startReportEndpoint({ host: '192.168.1.5', onReport: () => undefined })).rejects.toThrow(
      /loopback only/,
    );
  });

  it('remembers a bounded number of revoked tokens: an old one is refused as unknown, a recent one as revoked', async () => {
    const rejected: string[] = [];
    endpoint = await startReportEndpoint({
      onReport: () => undefined,
      onRejected: (reason) => void rejected.push(reason),
    });
    const tokens = Array.from({ length: 10_001 }, (_, index) =>
      endpoint!.mint({ run: 'r1', step: 'build', attempt: index + 1 }),
    );
    for (const token of tokens) endpoint.revoke(token);
    expect(endpoint.liveTokens()).toBe(0);
    for (const token of [tokens[0]!, tokens.at(-1)!])
      await fetch(endpoint.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      }).then((r) => expect(r.status).toBe(401));
    expect(rejected[0]).toMatch(/unknown token/);
    expect(rejected[1]).toMatch(/revoked/);
  });
});

describe('report tokens', () => {
  const binding = { run: 'r-1', step: 'build', attempt: 2 };

  it('are an HMAC of run, step and attempt: the same under one key, another for any other binding or key', () => {
    const key = Buffer.alloc(32, 7);
    const token = reportToken(key, binding);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(reportToken(Buffer.alloc(32, 7), { ...binding })).toBe(token);
    const others = [
      reportToken(key, { ...binding, attempt: 3 }),
      reportToken(key, { ...binding, step: 'test' }),
      reportToken(key, { ...binding, run: 'r-2' }),
      // The fields are kept apart: a step name cannot run into the attempt.
      reportToken(key, { run: 'r-1', step: 'build\u00002', attempt: 2 }),
      reportToken(Buffer.alloc(32, 8), binding),
    ];
    expect(new Set([token, ...others]).size).toBe(6);
  });

  it('are never step-agent tokens under the store’s key, nor the reverse', async () => {
    const home = tempHome();
    const report = reportToken(storeKey(home), binding);
    const step = stepAgentToken(home, binding.run, binding.step, binding.attempt);
    expect(report).not.toBe(step);
    expect(checkStepAgentToken(home, binding.run, binding.step, binding.attempt, report)).toBe(false);
    expect(checkStepAgentToken(home, binding.run, binding.step, binding.attempt, step)).toBe(true);
    // The key file is the step agents' (made once, mode 0600).
    expect(statSync(join(home, 'mcp.key')).mode & 0o777).toBe(0o600);
    endpoint = await startReportEndpoint({ home, onReport: () => undefined });
    expect(endpoint.mint(binding)).toBe(report);
    expect(await post(endpoint.url, step)).toMatchObject({ status: 401, text: /unknown token/ });
  });

  it('without a home, are under a key of the process alone', async () => {
    endpoint = await startReportEndpoint({ onReport: () => undefined });
    const other = await startReportEndpoint({ onReport: () => undefined });
    cleanups.push(() => other.close());
    expect(endpoint.persistent).toBe(false);
    expect(endpoint.mint(binding)).not.toBe(other.mint(binding));
  });
});

describe('serve’s shared report endpoint across a restart', () => {
  const binding = { run: 'r-1', step: 'work', attempt: 1 };

  it('listens on the kept port again, and takes only the tokens minted again', async () => {
    const home = tempHome();
    const portFile = join(home, 'serve', 'reports.json');
    const taken: string[] = [];
    const first = await startSharedReportEndpoint({ home, portFile });
    first.attach('r-1', { onReport: (b) => void taken.push(`first ${b.step}#${b.attempt}`) });
    first.open();
    expect(first.persistent).toBe(true);
    const port = new URL(first.url).port;
    expect(JSON.parse(readFileSync(portFile, 'utf8'))).toEqual({ port: Number(port) });
    const working = first.mint(binding);
    const reported = first.mint({ ...binding, step: 'plan' });
    const client = await connect(first.url, reported);
    await client.callTool({ name: 'report_step_result', arguments: { outcome: 'done' } });
    await client.close();
    expect(taken).toEqual(['first plan#1']);
    await first.close();

    // A new process: same address, and nothing live until the recovery mints again.
    const second = await startSharedReportEndpoint({ home, portFile });
    cleanups.push(() => second.close());
    expect(second.url).toBe(first.url);
    second.attach('r-1', { onReport: (b) => void taken.push(`second ${b.step}#${b.attempt}`) });
    // The agent still working on its attempt is adopted: the same token, live again.
    expect(second.mint(binding)).toBe(working);
    second.open();
    // The token of the attempt that reported before the restart is not minted again: refused.
    expect(await post(second.url, reported)).toMatchObject({ status: 401, text: /unknown token/ });
    const adopted = await connect(second.url, working);
    const result = await adopted.callTool({ name: 'report_step_result', arguments: { outcome: 'done' } });
    expect(text(result)).toContain('Recorded done');
    await adopted.close();
    expect(taken).toEqual(['first plan#1', 'second work#1']);
    expect(second.liveTokens()).toBe(0);
  });

  it("refuses a denied binding's token with the reason it was denied, until it is minted again", async () => {
    const home = tempHome();
    const shared = await startSharedReportEndpoint({ home, portFile: join(home, 'serve', 'reports.json') });
    cleanups.push(() => shared.close());
    shared.attach('r-1', { onReport: () => undefined });
    shared.open();
    const token = shared.mint(binding);
    shared.deny(binding, 'Paseo agent a-1 outlived a restart of the runtime: its report port is taken');
    expect(await post(shared.url, token)).toMatchObject({
      status: 401,
      text: expect.stringContaining('its report port is taken'),
    });
    expect(shared.liveTokens()).toBe(0);
    expect(shared.mint(binding)).toBe(token);
    const client = await connect(shared.url, token);
    expect(
      text(await client.callTool({ name: 'report_step_result', arguments: { outcome: 'done' } })),
    ).toContain('Recorded done');
    await client.close();
  });

  it('holds requests until open, so a token minted again by the recovery is not refused first', async () => {
    const home = tempHome();
    const shared = await startSharedReportEndpoint({ home, portFile: join(home, 'reports.json') });
    cleanups.push(() => shared.close());
    const token = reportToken(storeKey(home), binding);
    let answered = false;
    const early = post(shared.url, token).then((answer) => {
      answered = true;
      return answer;
    });
    // Let the request reach the server and wait there.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);
    shared.attach('r-1', { onReport: () => undefined });
    expect(shared.mint(binding)).toBe(token);
    shared.open();
    // It went on once open, with the token live: past the bearer check (an empty body is no MCP call).
    expect((await early).status).not.toBe(401);
  });

  it('takes another port when the kept one is taken, and says which', async () => {
    const home = tempHome();
    const portFile = join(home, 'reports.json');
    const first = await startSharedReportEndpoint({ home, portFile });
    const port = Number(new URL(first.url).port);
    await first.close();
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => squatter.close(() => resolve())));
    const second = await startSharedReportEndpoint({ home, portFile });
    cleanups.push(() => second.close());
    expect(second.movedFrom).toBe(port);
    expect(second.url).not.toBe(first.url);
    expect(JSON.parse(readFileSync(portFile, 'utf8'))).toEqual({ port: Number(new URL(second.url).port) });
  });

  it('routes a report to its run’s handlers, and refuses one of a run detached', async () => {
    const shared = await startSharedReportEndpoint({});
    cleanups.push(() => shared.close());
    shared.open();
    expect(shared.persistent).toBe(false);
    const taken: string[] = [];
    shared.attach('r-1', { onReport: (b) => void taken.push(b.run) });
    const detach = shared.attach('r-2', { onReport: (b) => void taken.push(b.run) });
    const one = await connect(shared.url, shared.mint({ ...binding, run: 'r-1' }));
    const accepted = await one.callTool({ name: 'report_step_result', arguments: { outcome: 'done' } });
    expect(accepted.isError).toBeFalsy();
    await one.close();
    detach();
    const two = await connect(shared.url, shared.mint({ ...binding, run: 'r-2' }));
    const refused = await two.callTool({ name: 'report_step_result', arguments: { outcome: 'done' } });
    await two.close();
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('run r-2 is not driven here any more');
    expect(taken).toEqual(['r-1']);
  });
});
