/**
 * The MCP server fed hostile messages: a message over the 10 MiB limit (which used to close the session
 * without an answer, so later calls timed out), lines that are not JSON or not JSON-RPC, and keys named
 * `__proto__` in tool arguments, scenarios and report outputs (which zod used to drop without a word).
 * Each is answered with an error, nothing is polluted or stored, and later calls are answered as usual.
 * The first part drives the built CLI (`npm run build` first) with the MCP SDK's real client; the second
 * feeds raw lines to the server in this process; the third calls the protocol directly.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { parseYaml, readScenario } from '../../src/backends/scenario.js';
import { prepareInputs } from '@kairoku-playbook/machine';
import { serveMcp } from '../../src/mcp/server.js';
import type { RunningServer } from '../../src/mcp/server.js';
import { PlaybookProtocol } from '../../src/mcp/protocol.js';
import { compileFile, repo } from '../helpers.js';
import { CLI, tempDir } from '../../../test/kit/index.js';

const LIMIT = 10 * 1024 * 1024;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function workspace(): string {
  const root = tempDir('kp-hostile-ws-');
  mkdirSync(join(root, 'playbooks'));
  copyFileSync(join(repo, 'playbooks', 'pr.yml'), join(root, 'playbooks', 'pr.yml'));
  return root;
}

/** The runs saved under a home (none after a refused start). */
function runsIn(home: string): string[] {
  const folder = join(home, 'runs');
  return existsSync(folder) ? readdirSync(folder).filter((f) => f.endsWith('.json')) : [];
}

const polluted = () => (Object.prototype as Record<string, unknown>).polluted ?? ({} as Json).polluted;
const withProto = (json: string): Json => JSON.parse(json) as Json;

describe('kairoku-playbook mcp (built) with the MCP SDK client', () => {
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  async function connect(home: string): Promise<Client> {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
    const client = new Client({ name: 'hostile', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--workspace', workspace(), '--agents', 'external', '--with-step-tools'],
        env: { KAIROKU_PLAYBOOK_HOME: home },
        stderr: 'pipe',
      }),
    );
    clients.push(client);
    return client;
  }

  async function refusal(call: Promise<unknown>): Promise<McpError> {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }

  it('answers a call over 10 MiB with an error for that call, and answers the calls after it', async () => {
    const home = tempDir('kp-hostile-home-');
    const client = await connect(home);
    const big = await refusal(
      client.callTool({
        name: 'start_playbook',
        arguments: { playbook: 'pr', inputs: { task: 'x'.repeat(LIMIT) } },
      }),
    );
    expect(big.code).toBe(-32600);
    expect(big.message).toMatch(/over this server's limit of 10485760 bytes; it was skipped/);
    const listed = await client.callTool({ name: 'list_playbooks', arguments: {} });
    expect(listed.isError).toBeFalsy();
    const started = await client.callTool({
      name: 'start_playbook',
      arguments: { playbook: 'pr', inputs: { task: 'ok' } },
    });
    expect(started.isError).toBeFalsy();
    expect(runsIn(home)).toHaveLength(1);
  }, 60_000);

  it('refuses keys named __proto__ in start_playbook inputs and report outputs, storing nothing', async () => {
    const home = tempDir('kp-hostile-home-');
    const client = await connect(home);
    const top = await refusal(
      client.callTool({
        name: 'start_playbook',
        arguments: withProto('{"playbook":"pr","inputs":{"task":"x","__proto__":{"polluted":true}}}'),
      }),
    );
    expect(top.code).toBe(-32602);
    expect(top.message).toContain('a key named "__proto__" at params.arguments.inputs.__proto__ is refused');
    expect(runsIn(home)).toEqual([]);

    const started = await client.callTool({
      name: 'start_playbook',
      arguments: { playbook: 'pr', inputs: { task: 'ok' } },
    });
    const run = (JSON.parse((started.content as { text: string }[])[0]!.text) as Json).run as string;
    await client.callTool({ name: 'start_step', arguments: { run, step: 'plan' } });
    const report = await refusal(
      client.callTool({
        name: 'report_step_result',
        arguments: withProto(
          `{"run":"${run}","step":"plan","outcome":"done","outputs":{"plan":"p","files":[{"__proto__":{"polluted":true}}]}}`,
        ),
      }),
    );
    expect(report.code).toBe(-32602);
    expect(report.message).toContain('at params.arguments.outputs.files[0].__proto__ is refused');
    const state = readFileSync(join(home, 'runs', `${run}.json`), 'utf8');
    expect(state).not.toContain('__proto__');
    expect(state).not.toContain('polluted');
  }, 60_000);
});

describe('the MCP server fed raw lines', () => {
  let running: RunningServer | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  async function serve() {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const logs: string[] = [];
    const answers: Json[] = [];
    let pending = '';
    stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) answers.push(JSON.parse(line) as Json);
    });
    const home = tempDir('kp-hostile-home-');
    running = await serveMcp({
      version: 'test',
      workspace: workspace(),
      home,
      agents: 'external',
      stdin,
      stdout,
      log: (line) => logs.push(line),
    });
    const send = (line: string) => stdin.write(`${line}\n`);
    const answerTo = async (id: unknown): Promise<Json> => {
      for (let i = 0; i < 200; i++) {
        const found = answers.find((a) => a.id === id);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`no answer to ${String(id)}`);
    };
    send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    );
    await answerTo(0);
    send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    return { send, answerTo, answers, logs, home, stdin };
  }

  it('answers what it cannot take with an error, the id where it can be read, and goes on', async () => {
    const { send, answerTo, answers, logs, stdin } = await serve();
    send('this is not JSON');
    send('{"jsonrpc":"2.0","id":"cut","method":"tools/call","params":{"name":');
    send('[{"jsonrpc":"2.0","id":"batch","method":"tools/list"}]');
    send('{"jsonrpc":"2.0","id":"odd","flavour":"strawberry"}');
    // Over the limit, written in pieces, the id at its start; then one with the id at its end.
    stdin.write(`{"jsonrpc":"2.0","id":"big-head","method":"tools/call","params":{"text":"`);
    for (let i = 0; i < 11; i++) stdin.write('x'.repeat(1024 * 1024));
    send('"}}');
    send(`{"method":"tools/call","params":{"text":"${'y'.repeat(LIMIT)}"},"jsonrpc":"2.0","id":77}`);
    send('{"jsonrpc":"2.0","method":"notifications/progress","params":{"__proto__":{"polluted":true}}}');
    send('{"jsonrpc":"2.0","id":"after","method":"tools/list"}');
    expect((await answerTo('after')).result.tools.length).toBeGreaterThan(10);
    expect((await answerTo('cut')).error).toMatchObject({ code: -32700 });
    expect((await answerTo('odd')).error).toMatchObject({ code: -32600 });
    expect((await answerTo('big-head')).error).toMatchObject({
      code: -32600,
      message: expect.stringMatching(/^the message is 115344\d\d bytes, over/),
    });
    expect((await answerTo(77)).error).toMatchObject({ code: -32600 });
    const anonymous = answers.filter((a) => !('id' in a));
    expect(anonymous.map((a) => a.error.code)).toEqual([-32700, -32600]);
    expect(anonymous[1]!.error.message).toContain('batches are not supported');
    expect(answers.find((a) => a.id === 'batch')).toBeUndefined();
    expect(logs).toContainEqual(
      expect.stringContaining('a key named "__proto__" at params.__proto__ is refused'),
    );
    expect(polluted()).toBeUndefined();
  });
});

describe('keys named __proto__ reaching the protocol by other ways', () => {
  const home = () => tempDir('kp-hostile-home-');

  function protocol(options: Partial<ConstructorParameters<typeof PlaybookProtocol>[0]> = {}) {
    return new PlaybookProtocol({ workspace: workspace(), home: home(), caller: () => 'tester', ...options });
  }

  it('refuses them in start_playbook inputs, at the top and nested, and stores no run', () => {
    const p = protocol();
    expect(() =>
      p.startPlaybook({ playbook: 'pr', inputs: withProto('{"task":"x","__proto__":{"polluted":true}}') }),
    ).toThrow(/"__proto__" is not a valid input name; keys named __proto__ are refused/);
    expect(() =>
      p.startPlaybook({
        playbook: 'pr',
        inputs: withProto('{"task":"x","target":{"__proto__":{"polluted":1}}}'),
      }),
    ).toThrow(/input "target": a key named "__proto__" at target.__proto__ is refused/);
    expect(runsIn(p.store.home)).toEqual([]);
    expect(polluted()).toBeUndefined();
  });

  it('refuses them in report outputs, and the run keeps no trace of them', () => {
    const p = protocol({ agents: 'external' });
    const { run } = p.startPlaybook({ playbook: 'pr', inputs: { task: 'x' } }) as { run: string };
    p.startStep({ run, step: 'plan' });
    expect(() =>
      p.reportStepResult({
        run,
        step: 'plan',
        outcome: 'done',
        outputs: withProto('{"plan":"p","files":[],"__proto__":{"x":1}}'),
      }),
    ).toThrow(/"__proto__" is not a valid output name/);
    const state = readFileSync(join(p.store.folder, `${run}.json`), 'utf8');
    expect(state).not.toContain('__proto__');
    expect(polluted()).toBeUndefined();
  });

  it('refuses them in a scenario, wherever they are', () => {
    const ir = compileFile('playbooks/pr.yml');
    for (const [text, where] of [
      ['inputs:\n  __proto__: { polluted: true }\n', 'inputs.__proto__'],
      [
        'steps:\n  plan:\n    - outcome: done\n      outputs: { __proto__: { polluted: true } }\n',
        'steps.plan[0].outputs.__proto__',
      ],
    ]) {
      const parsed = parseYaml(text!);
      if ('error' in parsed) throw new Error(parsed.error);
      expect(readScenario(parsed.value, ir).errors).toEqual([
        expect.stringContaining(`a key named "__proto__" at ${where} is refused`),
      ]);
    }
    expect(polluted()).toBeUndefined();
  });

  it('refuses them in inputs typed on a command line (read as JSON)', () => {
    const ir = compileFile('playbooks/pr.yml');
    const prepared = prepareInputs(ir, {
      task: 'x',
      reviewers: withProto('{"__proto__":{"polluted":true}}'),
    });
    expect(prepared).toEqual({
      ok: false,
      errors: [expect.stringContaining('at reviewers.__proto__ is refused')],
    });
    expect(polluted()).toBeUndefined();
  });
});
