/**
 * The MCP server's run-changing tools while a `serve` owns the workspace: start_playbook starts the
 * run on serve, and resume, cancel_run and restart_run on serve's runs are asked of serve through its
 * API (serve is the only writer of its runs). The real MCP SDK (client and server over its in-memory
 * transport) and a real serve on 127.0.0.1, in this process.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { PlaybookProtocol } from '../../src/mcp/protocol.js';
import { registerManagerTools } from '../../src/mcp/tools.js';
import { removeServeInfo, writeServeInfo } from '../../src/store/serve-discovery.js';
import { prWorkspace, serveOnSim } from '../../../test/kit/index.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  const ws = prWorkspace();
  cleanups.push(ws.cleanup);
  const s = await serveOnSim(ws.root, ws.home);
  cleanups.push(s.close);
  // As `serve` does once it listens: how other processes (here, the MCP server) find it.
  writeServeInfo(ws.home, {
    pid: process.pid,
    url: s.serve.url,
    port: s.serve.port,
    token: s.serve.token,
    workspace: ws.root,
  });
  cleanups.push(() => removeServeInfo(ws.home, ws.root));
  const server = new McpServer({ name: 'kairoku-playbook', version: 'test' });
  registerManagerTools(server, new PlaybookProtocol({ workspace: ws.root, home: ws.home }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  cleanups.push(() => client.close());
  const tool = async (name: string, args: Json) => {
    const result = (await client.callTool({ name, arguments: args })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    const text = result.content[0]!.text;
    return { refused: result.isError === true, text, json: result.isError ? {} : (JSON.parse(text) as Json) };
  };
  return { ...s, tool };
}

describe('the MCP server while serve owns the workspace', () => {
  it('starts runs on serve and asks serve for decisions on its runs', async () => {
    const { tool, host, api } = await setup();
    const started = await tool('start_playbook', { playbook: 'pr', inputs: { task: 'Add a flag' } });
    expect(started.refused).toBe(false);
    const id = started.json.run as string;
    expect(started.json.drivenBy).toMatch(/^kairoku-playbook serve at http:\/\/127\.0\.0\.1:/);
    // serve drives it: its gate waits for a decision.
    expect(host.active).toContain(id);
    expect((await api(`/api/v1/runs/${id}`)).body.steps.find((s) => s.name === 'ship')).toMatchObject({
      status: 'waiting',
    });

    // A refusal comes back with serve's sentence.
    const wrong = await tool('resume', { run: id, step: 'ship', choice: 'nope' });
    expect(wrong.refused).toBe(true);
    expect(wrong.text).toMatch(/asked of kairoku-playbook serve at/);
    const decided = await tool('resume', { run: id, step: 'ship', choice: 'approve' });
    expect(decided.json).toMatchObject({ run: id, status: 'completed' });

    // An ended run serve started is restarted by serve too, and canceled there.
    const restarted = await tool('restart_run', { run: id, step: 'ship' });
    expect(restarted.json).toMatchObject({ run: id, status: 'running' });
    expect(host.active).toContain(id);
    const canceled = await tool('cancel_run', { run: id, reason: 'not now' });
    expect(canceled.json).toMatchObject({ run: id, status: 'canceled' });
    expect((await api(`/api/v1/runs/${id}`)).body.run.status).toBe('canceled');
  });
});
