import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startReportEndpoint } from '../../src/backends/report-endpoint.js';
import type { ReportBinding, ReportEndpoint, StepReport } from '../../src/backends/report-endpoint.js';

let endpoint: ReportEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

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
    const binding = { run: 'r1', step: 'build', attempt: 1 };
    const tokens = Array.from({ length: 10_001 }, () => endpoint!.mint(binding));
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
