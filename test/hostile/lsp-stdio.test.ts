/**
 * The built language server (`kairoku-playbook lsp --stdio`, a real child process) fed hostile input over
 * its stdin: bytes that are not JSON, Content-Length lies, a message over the size limit, null and
 * wrong-typed params for every method it handles, and hostile playbooks. Each bad message is answered
 * with a JSON-RPC error (or, for a notification, ignored with a log line), and afterwards the server
 * still answers hover and shutdown correctly. Run `npm run build` first: this uses cli/dist.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { StreamMessageReader } from 'vscode-jsonrpc/node';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, REPO } from '../kit/index.js';

const URI = 'file:///hostile/playbooks/ok.yml';
const PLAYBOOK = `version: 1
title: Fix a bug
inputs:
  task: { type: string }
steps:
  fix:
    role: implementer
    prompt: Fix \${{ inputs.task }}
`;
/** on `task` in `inputs.task` of the prompt (line 7) */
const AT_INPUTS = { line: 7, character: 28 };

interface Answer {
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string };
}

/** A raw LSP client: writes any bytes it is given, reads the server's messages with vscode-jsonrpc. */
class RawClient {
  readonly answers: Answer[] = [];
  readonly logs: string[] = [];
  readonly diagnostics = new Map<string, { message: string; code?: unknown }[]>();
  stderr = '';
  private nextId = 1;
  private waiters: (() => void)[] = [];
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    // A write to a server that died is the test's failure, not an unhandled EPIPE.
    child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    new StreamMessageReader(child.stdout).listen((message) => {
      const m = message as { id?: number | string | null; method?: string; params?: Record<string, unknown> };
      if (m.method === 'window/logMessage') this.logs.push(String(m.params?.message));
      else if (m.method === 'textDocument/publishDiagnostics')
        this.diagnostics.set(String(m.params?.uri), m.params?.diagnostics as { message: string }[]);
      else if (m.method !== undefined && m.id !== undefined)
        this.write({ jsonrpc: '2.0', id: m.id, result: null });
      else if (m.method === undefined) this.answers.push(m as Answer);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  raw(bytes: Buffer | string): void {
    this.child.stdin.write(bytes);
  }

  write(message: unknown): void {
    const body = Buffer.from(JSON.stringify(message));
    this.raw(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  }

  async until<T>(test: () => T | undefined, what: string, timeout = 20_000): Promise<T> {
    const deadline = Date.now() + timeout;
    for (;;) {
      const value = test();
      if (value !== undefined) return value;
      if (this.child.exitCode !== null)
        throw new Error(`the server exited (${this.child.exitCode}) waiting for ${what}: ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  answerTo(id: number | string | null): Promise<Answer> {
    return this.until(() => this.answers.find((a) => a.id === id), `the answer to ${String(id)}`);
  }

  async request(method: string, params: unknown): Promise<Answer> {
    const id = this.nextId++;
    this.write({ jsonrpc: '2.0', id, method, params });
    return this.answerTo(id);
  }

  notify(method: string, params: unknown): void {
    this.write({ jsonrpc: '2.0', method, params });
  }

  open(uri: string, text: string, version = 1): void {
    this.diagnostics.delete(uri);
    this.notify('textDocument/didOpen', {
      textDocument: { uri, languageId: 'kairoku-playbook', version, text },
    });
  }

  hover(uri = URI, position = AT_INPUTS): Promise<Answer> {
    return this.request('textDocument/hover', { textDocument: { uri }, position });
  }

  /** Hover still answers on the healthy document, with the input's type. */
  async expectHealthy(): Promise<void> {
    const answer = await this.hover();
    expect(answer.error).toBeUndefined();
    expect(JSON.stringify(answer.result)).toContain('task');
  }
}

const started: RawClient[] = [];

afterEach(() => {
  for (const client of started.splice(0)) if (client.child.exitCode === null) client.child.kill();
});

async function start(): Promise<RawClient> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const child = spawn(process.execPath, [CLI, 'lsp', '--stdio'], { cwd: REPO, stdio: 'pipe' });
  const client = new RawClient(child);
  started.push(client);
  const init = await client.request('initialize', {
    processId: null,
    rootUri: null,
    capabilities: {},
    initializationOptions: { validationDelay: 0 },
  });
  expect(init.error).toBeUndefined();
  client.notify('initialized', {});
  client.open(URI, PLAYBOOK);
  await client.until(() => client.diagnostics.get(URI), 'the diagnostics of the healthy document');
  return client;
}

async function stop(client: RawClient): Promise<void> {
  const answer = await client.request('shutdown', null);
  expect(answer).toEqual({ jsonrpc: '2.0', id: answer.id, result: null });
  client.notify('exit', null);
  expect(await client.exited).toBe(0);
}

const position = (line: unknown, character: unknown) => ({
  textDocument: { uri: URI },
  position: { line, character },
});
const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } };

/** Every request the server handles, with params that fit (to be broken in turn). */
const REQUESTS: Record<string, unknown> = {
  'textDocument/completion': position(7, 28),
  'textDocument/hover': position(7, 28),
  'textDocument/definition': position(7, 28),
  'textDocument/references': { ...position(7, 28), context: { includeDeclaration: true } },
  'textDocument/documentHighlight': position(7, 28),
  'textDocument/prepareRename': position(7, 28),
  'textDocument/rename': { ...position(7, 28), newName: 'goal' },
  'textDocument/documentSymbol': { textDocument: { uri: URI } },
  'textDocument/semanticTokens/full': { textDocument: { uri: URI } },
  'textDocument/foldingRange': { textDocument: { uri: URI } },
  'textDocument/codeAction': { textDocument: { uri: URI }, range, context: { diagnostics: [] } },
  'textDocument/diagnostic': { textDocument: { uri: URI } },
  'workspace/diagnostic': { previousResultIds: [] },
  'textDocument/willSaveWaitUntil': { textDocument: { uri: URI }, reason: 1 },
};

/** Every notification the server handles, with params that fit. */
const NOTIFICATIONS: Record<string, unknown> = {
  'textDocument/didOpen': {
    textDocument: {
      uri: 'file:///hostile/playbooks/other.yml',
      languageId: 'yaml',
      version: 1,
      text: PLAYBOOK,
    },
  },
  'textDocument/didChange': { textDocument: { uri: URI, version: 5 }, contentChanges: [{ text: PLAYBOOK }] },
  'textDocument/didClose': { textDocument: { uri: 'file:///hostile/playbooks/other.yml' } },
  'textDocument/didSave': { textDocument: { uri: URI } },
  'textDocument/willSave': { textDocument: { uri: URI }, reason: 1 },
  'workspace/didChangeWatchedFiles': { changes: [{ uri: 'file:///hostile/playbooks/gone.yml', type: 3 }] },
  'workspace/didChangeWorkspaceFolders': { event: { added: [], removed: [] } },
  '$/cancelRequest': { id: 999 },
  '$/setTrace': { value: 'off' },
  'window/workDoneProgress/cancel': { token: 'none' },
};

/** Broken versions of fitting params: every field in turn null, of the wrong type, and out of range. */
function broken(params: unknown): unknown[] {
  const variants: unknown[] = [
    null,
    42,
    'text',
    [],
    [params],
    {},
    JSON.parse('{"__proto__":{"polluted":true}}'),
  ];
  const walk = (value: unknown, replace: (v: unknown) => unknown) => {
    if (typeof value !== 'object' || value === null) return;
    for (const key of Object.keys(value)) {
      const field = (value as Record<string, unknown>)[key];
      const swap = (v: unknown) =>
        replace(
          Array.isArray(value) ? value.map((x, i) => (i === Number(key) ? v : x)) : { ...value, [key]: v },
        );
      for (const wrong of [null, true, 'x', -1, 2 ** 53, 1e308, 0.5, [], {}])
        if (typeof wrong !== typeof field || typeof field === 'number') variants.push(swap(wrong));
      const without = Array.isArray(value)
        ? value
        : Object.fromEntries(Object.entries(value).filter(([k]) => k !== key));
      variants.push(replace(without));
      walk(field, swap);
    }
  };
  walk(params, (v) => v);
  return variants;
}

describe('kairoku-playbook lsp --stdio fed hostile messages', { timeout: 30_000 }, () => {
  it('ignores a didOpen whose text is null with a log line, and lives on', async () => {
    // Before: the CLI's server did not install the error handlers, and this killed it.
    const client = await start();
    client.notify('textDocument/didOpen', {
      textDocument: { uri: 'file:///hostile/playbooks/null.yml', languageId: 'yaml', version: 1, text: null },
    });
    await client.until(
      () => client.logs.find((l) => l.includes('params.textDocument.text must be a string, not null')),
      'the log line',
    );
    await client.expectHealthy();
    await stop(client);
  });

  it('answers bytes that are not JSON, a batch and a message without a method with errors', async () => {
    const client = await start();
    const framed = (body: string) => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    client.raw(framed('{"jsonrpc":"2.0","id":"broken","method":"textDocument/hover","params":{'));
    expect((await client.answerTo('broken')).error).toMatchObject({ code: -32700 });
    client.raw(framed('[{"jsonrpc":"2.0","id":"batch","method":"shutdown"}]'));
    client.raw(framed('null'));
    client.raw('complete nonsense without any header at all\r\n\r\n');
    await client.until(
      () => (client.answers.filter((a) => a.id === null).length >= 3 ? true : undefined),
      'three answers without an id',
    );
    expect(client.answers.filter((a) => a.id === null).map((a) => a.error?.code)).toEqual([
      -32600, -32600, -32700,
    ]);
    client.raw(framed('{"jsonrpc":"2.0","id":"m","method":7}'));
    expect((await client.answerTo('m')).error).toMatchObject({
      code: -32600,
      message: 'the method must be a string',
    });
    expect((await client.request('no/such/method', {})).error).toMatchObject({ code: -32601 });
    await client.expectHealthy();
    await stop(client);
  });

  it('survives Content-Length lies in both directions', async () => {
    const client = await start();
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 'long',
      method: 'textDocument/hover',
      params: position(7, 28),
    });
    // Claims 1,000 bytes more than it sends: the next header ends it, and the hover after it is answered.
    client.raw(`Content-Length: ${body.length + 1000}\r\n\r\n${body}`);
    const after = client.hover();
    expect((await client.answerTo('long')).error).toMatchObject({ code: -32700 });
    expect(JSON.stringify((await after).result)).toContain('task');
    // Claims 10 bytes less: the cut body is not JSON, the rest is not a header; both refused.
    const short = JSON.stringify({
      jsonrpc: '2.0',
      id: 'short',
      method: 'textDocument/hover',
      params: position(7, 28),
    });
    client.raw(`Content-Length: ${short.length - 10}\r\n\r\n${short}`);
    expect((await client.answerTo('short')).error).toMatchObject({ code: -32700 });
    await client.expectHealthy();
    // Not a number.
    client.raw('Content-Length: lots\r\n\r\n');
    await client.expectHealthy();
    await stop(client);
  });

  it('skips a message over 64 MiB and answers it with its id', async () => {
    const client = await start();
    const text = 'x'.repeat(65 * 1024 * 1024);
    client.write({
      jsonrpc: '2.0',
      id: 'huge',
      method: 'textDocument/hover',
      params: { ...position(0, 0), text },
    });
    const answer = await client.answerTo('huge');
    expect(answer.error).toMatchObject({ code: -32600 });
    expect(answer.error?.message).toMatch(/over this server's limit of 67108864 bytes/);
    await client.expectHealthy();
    await stop(client);
  }, 60_000);

  it('answers every request with broken params with InvalidParams, and ignores every broken notification', async () => {
    const client = await start();
    let requests = 0;
    for (const [method, params] of Object.entries(REQUESTS)) {
      for (const variant of broken(params)) {
        const answer = await client.request(method, variant);
        requests++;
        // A variant may still fit (a missing optional field); then it is answered, never with a crash.
        if (answer.error) expect(answer.error.code, `${method} ${JSON.stringify(variant)}`).toBe(-32602);
      }
      // The method itself still works with params that fit.
      expect((await client.request(method, params)).error, method).toBeUndefined();
    }
    for (const [method, params] of Object.entries(NOTIFICATIONS))
      for (const variant of broken(params)) client.notify(method, variant);
    // Out-of-range positions are legal (clamped to the document); unknown documents give empty results.
    expect((await client.hover(URI, { line: 2 ** 31 - 1, character: 2 ** 31 - 1 })).error).toBeUndefined();
    expect(await client.hover('file:///nowhere.yml')).toMatchObject({ result: null });
    expect(await client.hover('not a uri at all')).toMatchObject({ result: null });
    expect(requests).toBeGreaterThan(300);
    await client.expectHealthy();
    expect(client.stderr).toBe('');
    await stop(client);
  }, 120_000);

  it('keeps a document whole when a change in a didChange is broken', async () => {
    const client = await start();
    const renamed = PLAYBOOK.replace('task: { type: string }', 'goal: { type: string }');
    // The first change is fine, the second broken: neither applies (the client must resend).
    client.notify('textDocument/didChange', {
      textDocument: { uri: URI, version: 2 },
      contentChanges: [{ text: renamed }, { range: { start: { line: -1, character: 0 } }, text: 'x' }],
    });
    await client.until(
      () => client.logs.find((l) => l.includes('ignored a textDocument/didChange')),
      'the log line',
    );
    await client.expectHealthy();
    client.notify('textDocument/didChange', {
      textDocument: { uri: URI, version: 3 },
      contentChanges: [
        { range: { start: { line: 3, character: 2 }, end: { line: 3, character: 6 } }, text: 'goal' },
      ],
    });
    const hover = await client.hover(URI, { line: 3, character: 3 });
    expect(JSON.stringify(hover.result)).toContain('goal');
    await stop(client);
  });

  describe('hostile playbooks', () => {
    let open = '';
    let close = '';
    for (let i = 0; i < 30; i++) {
      open += i % 2 ? '[' : '{';
      close = (i % 2 ? ']' : '}') + close;
    }
    const nested = `version: 1\ntitle: t\nx: ${open}${close}: 1\nsteps:\n  a:\n    role: implementer\n    prompt: hi\n`;
    const chain = `version: 1\ntitle: t\nsteps:\n  a:\n    role: implementer\n    prompt: "\${{ inputs${'.a'.repeat(10_000)} }}"\n`;

    /** Opens the hostile document; its diagnostics are the checker's own (no internal error), and the server goes on. */
    async function survives(text: string): Promise<void> {
      const client = await start();
      const uri = 'file:///hostile/playbooks/hostile.yml';
      client.open(uri, text);
      const diagnostics = await client.until(
        () => client.diagnostics.get(uri),
        'the hostile document diagnostics',
      );
      expect((await client.hover(uri, { line: 2, character: 3 })).error).toBeUndefined();
      await client.expectHealthy();
      await stop(client);
      expect(diagnostics.filter((d) => /internal error/.test(d.message))).toEqual([]);
      expect(diagnostics.length).toBeGreaterThan(0);
    }

    it('flow keys nested 30 deep', () => survives(nested), 60_000);

    // (the compiler overflowed its stack here, reported as an internal error; the expression height limit
    // now answers it with one PB400)
    it('10,000 chained .a members in a ${{ }}', () => survives(chain), 60_000);
  });
});
