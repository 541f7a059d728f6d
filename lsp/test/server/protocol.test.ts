import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import type {
  CodeAction,
  CompletionList,
  DocumentDiagnosticReport,
  DocumentSymbol,
  FoldingRange,
  Hover,
  Location,
  SemanticTokens,
  WorkspaceDiagnosticReport,
  WorkspaceDocumentDiagnosticReport,
  WorkspaceEdit,
} from 'vscode-languageserver-protocol';
import { REPO, buildServer, fileUri, startClient } from '../support/client.js';
import type { TestClient } from '../support/client.js';
import { tempDir } from '../../../test/kit/temp.js';

const TEXT = `version: 1
title: Protocol
inputs:
  task: { type: string }
steps:
  plan:
    role: planner
    prompt: Plan \${{ inputs.task }}
    outputs:
      notes: string
  build:
    needs: [plna]
    role: implementer
    prompt: |
      Build \${{ steps.plan.outputs.notes }}
`;

const URI = 'file:///virtual/playbooks/proto.yml';

/** The position of the n-th occurrence of `needle` in `text`, plus `delta` characters. */
function at(text: string, needle: string, delta = 0, occurrence = 1): { line: number; character: number } {
  let index = -1;
  for (let i = 0; i < occurrence; i++) index = text.indexOf(needle, index + 1);
  if (index < 0) throw new Error(`no ${needle}`);
  const before = text.slice(0, index + delta).split('\n');
  return { line: before.length - 1, character: before[before.length - 1]!.length };
}

/** Sends a request `count` times, each cancelled right after it is sent: how each was answered. */
function sendCancelled(client: TestClient, count: number, method: string, params: object): Promise<string[]> {
  return Promise.all(
    Array.from({ length: count }, () => {
      const source = new CancellationTokenSource();
      const request = client.connection.sendRequest(method, params, source.token);
      source.cancel();
      return request.then(
        () => 'answered',
        (error: { code?: number }) => (error.code === -32800 ? 'cancelled' : `failed ${error.code}`),
      );
    }),
  );
}

const FIXED = TEXT.replace('plna', 'plan');
const NOPE = FIXED.replace('outputs.notes }}\n', 'outputs.note }}\n');

describe('the language server over stdio', () => {
  let client: TestClient;

  beforeAll(async () => {
    buildServer();
    client = await startClient();
  }, 120_000);

  afterAll(async () => {
    if (client.process.exitCode === null) await client.stop();
  });

  it('initializes with its capabilities', () => {
    const capabilities = client.initializeResult.capabilities;
    expect(capabilities).toMatchObject({
      hoverProvider: true,
      definitionProvider: true,
      referencesProvider: true,
      renameProvider: { prepareProvider: true },
      documentSymbolProvider: true,
      foldingRangeProvider: true,
      codeActionProvider: { codeActionKinds: ['quickfix'] },
      semanticTokensProvider: { full: true },
    });
    expect(capabilities.completionProvider?.triggerCharacters).toContain('.');
    expect(capabilities.diagnosticProvider).toBeUndefined();
    expect(client.initializeResult.serverInfo?.name).toBe('kairoku-playbook');
  });

  it('publishes the diagnostics of an opened document', async () => {
    await client.open(URI, TEXT);
    const diagnostics = await client.diagnosticsOf(URI, 1);
    expect(diagnostics[0]).toEqual({
      range: { start: at(TEXT, 'plna'), end: at(TEXT, 'plna', 4) },
      severity: 1,
      code: 'PB200',
      codeDescription: {
        href: 'https://github.com/kairoku/kairoku-playbook/blob/v0.1.0/docs/diagnostics.md#pb200-unknown-step-in-needs',
      },
      source: 'kairoku-playbook',
      message: 'unknown step "plna" in needs; did you mean "plan"?',
    });
  });

  it('re-validates after an incremental change', async () => {
    await client.notify('textDocument/didChange', {
      textDocument: { uri: URI, version: 2 },
      contentChanges: [{ range: { start: at(TEXT, 'plna'), end: at(TEXT, 'plna', 4) }, text: 'plan' }],
    });
    expect(await client.diagnosticsOf(URI, 2)).toEqual([]);
    await client.notify('textDocument/didChange', {
      textDocument: { uri: URI, version: 3 },
      contentChanges: [
        { range: { start: at(FIXED, 'notes }}'), end: at(FIXED, 'notes }}', 5) }, text: 'note' },
      ],
    });
    const diagnostics = await client.diagnosticsOf(URI, 3);
    // The compiler decides the full list (parity.test.ts checks it); here the edit must show.
    expect(diagnostics.find((d) => d.code === 'PB204')?.message).toBe(
      'step "plan" has no output "note"; did you mean "notes"?',
    );
  });

  it('completes, hovers and goes to definitions', async () => {
    const completion = await client.request<CompletionList>('textDocument/completion', {
      textDocument: { uri: URI },
      position: at(NOPE, 'note '),
    });
    expect(completion.items.map((i) => i.label)).toEqual(['notes']);
    expect(completion.items[0]!.textEdit).toEqual({
      range: { start: at(NOPE, 'note '), end: at(NOPE, 'note ') },
      newText: 'notes',
    });
    const hover = await client.request<Hover>('textDocument/hover', {
      textDocument: { uri: URI },
      position: at(NOPE, 'inputs.task', 9),
    });
    expect(hover.contents).toMatchObject({
      kind: 'markdown',
      value: expect.stringContaining('inputs.task: string'),
    });
    const definition = await client.request<Location>('textDocument/definition', {
      textDocument: { uri: URI },
      position: at(NOPE, 'plan.outputs', 1),
    });
    expect(definition).toEqual({ uri: URI, range: { start: at(NOPE, 'plan:'), end: at(NOPE, 'plan:', 4) } });
  });

  it('renames, and refuses with a reason', async () => {
    const edit = await client.request<WorkspaceEdit>('textDocument/rename', {
      textDocument: { uri: URI },
      position: at(NOPE, 'plan:', 1),
      newName: 'design',
    });
    expect(edit.changes![URI]).toEqual(
      [at(NOPE, 'plan:'), at(NOPE, 'plan]'), at(NOPE, 'plan.outputs')].map((start) => ({
        range: { start, end: { line: start.line, character: start.character + 4 } },
        newText: 'design',
      })),
    );
    await expect(
      client.request('textDocument/rename', {
        textDocument: { uri: URI },
        position: at(NOPE, 'plan:', 1),
        newName: 'Bad Name',
      }),
    ).rejects.toThrow(/not a valid step name/);
    await expect(
      client.request('textDocument/prepareRename', {
        textDocument: { uri: URI },
        position: at(NOPE, 'planner', 2),
      }),
    ).rejects.toThrow(/fixed table/);
  });

  it('offers code actions for the diagnostics in a range', async () => {
    const diagnostics = (await client.diagnosticsOf(URI, 3)).filter((d) => d.code === 'PB204');
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri: URI },
      range: diagnostics[0]!.range,
      context: { diagnostics },
    });
    expect(actions.map((a) => a.title)).toEqual([
      'Replace with "notes"',
      'Declare output "note" (string) on step "plan"',
    ]);
    const all = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri: URI },
      range: { start: { line: 0, character: 0 }, end: at(NOPE, 'note ', 4) },
      context: { diagnostics: [] },
    });
    expect(all.map((a) => a.title)).toContain('Declare output "note" (string) on step "plan"');
    expect(actions[0]).toMatchObject({
      kind: 'quickfix',
      isPreferred: true,
      diagnostics: [diagnostics[0]],
      edit: { changes: { [URI]: [{ range: diagnostics[0]!.range, newText: 'notes' }] } },
    });
  });

  it('answers document symbols, semantic tokens and folding ranges', async () => {
    const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', {
      textDocument: { uri: URI },
    });
    expect(symbols.map((s) => s.name)).toEqual(['inputs', 'steps']);
    expect(symbols[1]!.children!.map((s) => s.name)).toEqual(['plan', 'build']);
    const tokens = await client.request<SemanticTokens>('textDocument/semanticTokens/full', {
      textDocument: { uri: URI },
    });
    expect(tokens.data.length % 5).toBe(0);
    const task = at(NOPE, 'inputs.task');
    expect(tokens.data.slice(0, 5)).toEqual([task.line, task.character, 6, 0, 3]);
    const folds = await client.request<FoldingRange[]>('textDocument/foldingRange', {
      textDocument: { uri: URI },
    });
    expect(folds.map((f) => `${f.startLine}-${f.endLine}`)).toContain('5-9');
  });

  it('answers with empty results on a document it does not know or cannot make sense of', async () => {
    expect(
      await client.request('textDocument/hover', {
        textDocument: { uri: 'file:///nope.yml' },
        position: { line: 0, character: 0 },
      }),
    ).toBeNull();
    const garbage = 'file:///virtual/garbage.playbook.yml';
    await client.open(garbage, '\t{[ "${{ \u0000 ]]}');
    const diagnostics = await client.diagnosticsOf(garbage, 1);
    expect(diagnostics.map((d) => d.code)).toEqual(['PB100']);
    const completion = await client.request<CompletionList>('textDocument/completion', {
      textDocument: { uri: garbage },
      position: { line: 0, character: 5 },
    });
    expect(completion.items).toEqual([]);
  });

  it('honours cancellation: a request cancelled before it runs is answered RequestCancelled', async () => {
    const outcomes = await sendCancelled(client, 20, 'textDocument/semanticTokens/full', {
      textDocument: { uri: URI },
    });
    expect(outcomes.every((o) => o === 'cancelled' || o === 'answered')).toBe(true);
    expect(outcomes).toContain('cancelled');
    // …and goes on answering.
    const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', {
      textDocument: { uri: URI },
    });
    expect(symbols).toHaveLength(2);
  });

  it('answers a request whose params do not fit with InvalidParams and a log line, and stays up', async () => {
    const logged = client.logs.length;
    const refused = await client
      .request('textDocument/hover', { textDocument: { uri: URI }, position: null })
      .then(
        () => undefined,
        (error: { code: number; message: string }) => error,
      );
    expect(refused).toMatchObject({
      code: -32602,
      message: 'invalid params for textDocument/hover: params.position must be an object, not null',
    });
    expect(client.logs.slice(logged).map((l) => [l.type, l.message])).toEqual([
      [
        1,
        'refused a message: invalid params for textDocument/hover: params.position must be an object, not null',
      ],
    ]);
    client.logs.splice(logged);
    const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', {
      textDocument: { uri: URI },
    });
    expect(symbols).toHaveLength(2);
  });

  it('clears the diagnostics of a closed document', async () => {
    await client.close(URI);
    await client.waitFor(
      () =>
        client.diagnostics.get(URI)?.diagnostics.length === 0 &&
        client.diagnostics.get(URI)?.version === undefined,
    );
  });

  it('shuts down and exits with 0', async () => {
    expect(await client.stop()).toBe(0);
    expect(client.logs.filter((l) => l.type === 1)).toEqual([]);
  });
});

describe('workspace-level diagnostics', () => {
  it('reports a duplicate id against a playbook on disk, with the related location', async () => {
    const root = tempDir('kp-lsp-');
    mkdirSync(join(root, 'playbooks'));
    const disk = 'version: 1\nid: dup\ntitle: Disk\nsteps:\n  a:\n    role: planner\n    prompt: x\n';
    writeFileSync(join(root, 'playbooks', 'first.yml'), disk);
    const client = await startClient({ workspaceFolders: [{ uri: fileUri(root), name: 'ws' }] });
    const uri = fileUri(join(root, 'playbooks', 'second.yml'));
    await client.open(uri, disk.replace('Disk', 'Open'));
    const diagnostics = await client.diagnosticsOf(uri, 1);
    expect(diagnostics).toMatchObject([
      {
        code: 'PB110',
        message: 'playbook id "dup" is already used by playbooks/first.yml',
        range: { start: { line: 1, character: 4 }, end: { line: 1, character: 7 } },
        relatedInformation: [
          {
            location: {
              uri: fileUri(join(root, 'playbooks', 'first.yml')),
              range: { start: { line: 1, character: 4 }, end: { line: 1, character: 7 } },
            },
            message: '"dup" is first used here',
          },
        ],
      },
    ]);
    // The file on disk changes its id: the open document is fine again.
    writeFileSync(join(root, 'playbooks', 'first.yml'), disk.replace('id: dup', 'id: other'));
    client.diagnostics.delete(uri);
    await client.notify('workspace/didChangeWatchedFiles', {
      changes: [{ uri: fileUri(join(root, 'playbooks', 'first.yml')), type: 2 }],
    });
    expect(await client.diagnosticsOf(uri)).toEqual([]);
    expect(await client.stop()).toBe(0);
  }, 30_000);
});

describe('pull diagnostics', () => {
  it('answers textDocument/diagnostic when the client pulls, with unchanged reports', async () => {
    const client = await startClient({
      capabilities: {
        textDocument: { diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false } },
        workspace: { diagnostics: { refreshSupport: true } },
      },
    });
    expect(client.initializeResult.capabilities.diagnosticProvider).toMatchObject({
      interFileDependencies: true,
      workspaceDiagnostics: true,
    });
    await client.open(URI, TEXT);
    const report = await client.request<DocumentDiagnosticReport & { resultId: string; items: unknown[] }>(
      'textDocument/diagnostic',
      { textDocument: { uri: URI } },
    );
    expect(report.kind).toBe('full');
    expect(report.items[0]).toMatchObject({ code: 'PB200' });
    const again = await client.request<DocumentDiagnosticReport>('textDocument/diagnostic', {
      textDocument: { uri: URI },
      previousResultId: report.resultId,
    });
    expect(again).toEqual({ kind: 'unchanged', resultId: report.resultId });
    await client.notify('textDocument/didChange', {
      textDocument: { uri: URI, version: 2 },
      contentChanges: [{ text: TEXT.replace('plna', 'plan') }],
    });
    const fixed = await client.request<DocumentDiagnosticReport & { items: unknown[] }>(
      'textDocument/diagnostic',
      {
        textDocument: { uri: URI },
        previousResultId: report.resultId,
      },
    );
    expect(fixed).toMatchObject({ kind: 'full', items: [] });
    expect(client.diagnostics.size).toBe(0);
    expect(await client.stop()).toBe(0);
  }, 30_000);
});

describe('workspace pull diagnostics', () => {
  const PULL = {
    textDocument: { diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false } },
    workspace: { diagnostics: { refreshSupport: true }, workspaceFolders: true },
  };
  const playbook = (title: string, id?: string) =>
    `version: 1\n${id ? `id: ${id}\n` : ''}title: ${title}\nsteps:\n  a:\n    role: planner\n    prompt: x\n`;

  /** A workspace folder with four playbooks: two sharing an id, one with an unknown need, one clean. */
  function workspace() {
    const root = tempDir('kp-lsp-ws-');
    mkdirSync(join(root, 'playbooks'));
    const paths = {
      first: join(root, 'playbooks', 'first.yml'),
      second: join(root, 'playbooks', 'second.yml'),
      broken: join(root, 'playbooks', 'broken.yml'),
      clean: join(root, 'clean.playbook.yml'),
    };
    writeFileSync(paths.first, playbook('First', 'dup'));
    writeFileSync(paths.second, playbook('Second', 'dup'));
    writeFileSync(paths.broken, `${playbook('Broken')}    needs: [plna]\n`);
    writeFileSync(paths.clean, playbook('Clean'));
    const uris = Object.fromEntries(Object.entries(paths).map(([k, p]) => [k, fileUri(p)])) as typeof paths;
    return { root, paths, uris };
  }

  type Report = WorkspaceDocumentDiagnosticReport & { items?: { code?: unknown }[] };
  const pull = async (client: TestClient, previous: Report[] = []) => {
    const report = await client.request<WorkspaceDiagnosticReport>('workspace/diagnostic', {
      previousResultIds: previous.flatMap((r) => (r.resultId ? [{ uri: r.uri, value: r.resultId }] : [])),
    });
    return new Map(report.items.map((item) => [item.uri, item as Report]));
  };
  const summary = (reports: Map<string, Report>) =>
    Object.fromEntries(
      [...reports].map(([uri, r]) => [
        uri,
        r.kind === 'full' ? { version: r.version, codes: r.items!.map((d) => d.code) } : r.kind,
      ]),
    );

  it('reports every playbook of the workspace, unchanged ones by result id, and follows edits and deletions', async () => {
    const { paths, uris, root } = workspace();
    const client = await startClient({
      workspaceFolders: [{ uri: fileUri(root), name: 'ws' }],
      capabilities: PULL,
    });
    expect(client.initializeResult.capabilities.diagnosticProvider).toMatchObject({
      workspaceDiagnostics: true,
    });

    // Nothing open: every playbook on disk, checked together (the duplicate id is the second file's).
    const first = await pull(client);
    expect(summary(first)).toEqual({
      [uris.first]: { version: null, codes: [] },
      [uris.second]: { version: null, codes: ['PB110'] },
      [uris.broken]: { version: null, codes: ['PB200'] },
      [uris.clean]: { version: null, codes: [] },
    });
    expect(new Set([...first.values()].map((r) => r.resultId)).size).toBe(4);
    expect(first.get(uris.second)!.items![0]).toMatchObject({
      code: 'PB110',
      message: 'playbook id "dup" is already used by playbooks/first.yml',
      relatedInformation: [{ location: { uri: uris.first } }],
    });

    // The same again: nothing changed.
    const second = await pull(client, [...first.values()]);
    expect(summary(second)).toEqual(Object.fromEntries([...first.keys()].map((uri) => [uri, 'unchanged'])));
    expect([...second.values()].map((r) => r.resultId)).toEqual([...first.values()].map((r) => r.resultId));

    // An open document with its own id: its report carries the document's version; the others are unchanged.
    await client.open(uris.second, playbook('Second', 'own'), 7);
    const third = await pull(client, [...first.values()]);
    expect(summary(third)).toEqual({
      [uris.first]: 'unchanged',
      [uris.second]: { version: 7, codes: [] },
      [uris.broken]: 'unchanged',
      [uris.clean]: 'unchanged',
    });
    // …and a document pull of a playbook that is not open answers from the same reports.
    const document = await client.request<DocumentDiagnosticReport>('textDocument/diagnostic', {
      textDocument: { uri: uris.broken },
      previousResultId: first.get(uris.broken)!.resultId,
    });
    expect(document).toEqual({ kind: 'unchanged', resultId: first.get(uris.broken)!.resultId });

    // A playbook deleted on disk: reported once with no diagnostics, so the client clears it, then no more.
    rmSync(paths.broken);
    await client.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: uris.broken, type: 3 }] });
    const fourth = await pull(client, [...third.values()]);
    expect(fourth.get(uris.broken)).toEqual({ kind: 'full', uri: uris.broken, version: null, items: [] });
    expect(summary(fourth)[uris.second]).toBe('unchanged');
    const fifth = await pull(
      client,
      [...fourth.values()].filter((r) => r.uri !== uris.broken),
    );
    expect([...fifth.keys()].sort()).toEqual([uris.clean, uris.first, uris.second].sort());
    expect(client.logs.filter((l) => l.type === 1)).toEqual([]);
    expect(await client.stop()).toBe(0);
    rmSync(root, { recursive: true, force: true });
  }, 30_000);

  it('honours cancellation: a cancelled workspace pull is answered RequestCancelled, and the next one works', async () => {
    const { root, uris } = workspace();
    const client = await startClient({
      workspaceFolders: [{ uri: fileUri(root), name: 'ws' }],
      capabilities: PULL,
    });
    const outcomes = await sendCancelled(client, 10, 'workspace/diagnostic', { previousResultIds: [] });
    expect(outcomes.every((o) => o === 'cancelled' || o === 'answered')).toBe(true);
    expect(outcomes).toContain('cancelled');
    expect([...(await pull(client)).keys()].sort()).toEqual(Object.values(uris).sort());
    expect(await client.stop()).toBe(0);
    rmSync(root, { recursive: true, force: true });
  }, 30_000);
});

describe('kairoku-playbook lsp --stdio', () => {
  it('serves the same protocol from the CLI, bundled as cli/build.mjs bundles it', async () => {
    // Bundled to a temporary file, so cli/dist (which other tests may be running) is left alone.
    const bundle = join(tempDir('kp-cli-'), 'kairoku-playbook.mjs');
    await build({
      entryPoints: [join(REPO, 'cli', 'src', 'bin.ts')],
      outfile: bundle,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
      logLevel: 'silent',
    });
    const client = await startClient({ command: [process.execPath, bundle, 'lsp', '--stdio'] });
    await client.open(URI, TEXT);
    expect((await client.diagnosticsOf(URI, 1))[0]).toMatchObject({ code: 'PB200' });
    expect(await client.stop()).toBe(0);
  }, 60_000);
});
