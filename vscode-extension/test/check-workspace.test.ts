/**
 * "Check workspace" with the real language server: every problem counted once in what VS Code's Problems
 * panel (and its badge) adds up, all diagnostic collections together, when the broken playbook is not open.
 * VS Code itself is a stand-in here (the real one is the e2e test's): its diagnostic collections are
 * recorded, and the language client's workspace pull (what vscode-languageclient does when the server
 * advertises workspace diagnostics) is one `workspace/diagnostic` request into the client's collection.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { WorkspaceDiagnosticReport } from 'vscode-languageserver-protocol';
import { buildServer, fileUri, startClient } from '../../lsp/test/support/client.js';
import type { TestClient } from '../../lsp/test/support/client.js';
import { tempDir } from '../../test/kit/temp.js';

interface FakeUri {
  toString(): string;
  fsPath: string;
}

const collections: Map<string, unknown[]>[] = [];
const uriOf = (text: string): FakeUri => ({ toString: () => text, fsPath: new URL(text).pathname });

vi.mock('vscode', () => {
  class TabInputText {}
  class TabInputTextDiff {}
  return {
    TabInputText,
    TabInputTextDiff,
    languages: {
      createDiagnosticCollection: () => {
        const entries = new Map<string, unknown[]>();
        collections.push(entries);
        return {
          set: (list: [FakeUri, unknown[]][]) =>
            list.forEach(([uri, items]) => entries.set(String(uri), items)),
          clear: () => entries.clear(),
          delete: (uri: FakeUri) => entries.delete(String(uri)),
          forEach: (visit: (uri: FakeUri) => void) => [...entries.keys()].forEach((key) => visit(uriOf(key))),
          dispose: () => entries.clear(),
        };
      },
    },
    window: {
      tabGroups: { all: [], onDidChangeTabs: () => ({ dispose() {} }) },
    },
    workspace: {
      onDidChangeTextDocument: () => ({ dispose() {} }),
      onDidDeleteFiles: () => ({ dispose() {} }),
      findFiles: () => Promise.resolve(found),
      // As VS Code does: the client sends didOpen with the file's text.
      openTextDocument: async (uri: FakeUri) => {
        await server.open(String(uri), readFileSync(uri.fsPath, 'utf8'));
        return { uri, languageId: 'kairoku-playbook' };
      },
      asRelativePath: (uri: FakeUri) => String(uri),
    },
  };
});

vi.mock('vscode-languageclient/node', () => ({
  DocumentDiagnosticReportKind: { Full: 'full', Unchanged: 'unchanged' },
  DocumentDiagnosticRequest: { type: { method: 'textDocument/diagnostic' } },
  ErrorCodes: { MethodNotFound: -32601 },
  ResponseError: class extends Error {},
}));

let found: FakeUri[] = [];
let root: string;
let server: TestClient;

/** The capabilities vscode-languageclient sends for diagnostics: it pulls, documents and the workspace. */
const VS_CODE_PULL = {
  textDocument: { diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false } },
  workspace: { diagnostics: { refreshSupport: true }, workspaceFolders: true },
};

beforeAll(async () => {
  buildServer();
  root = tempDir('kp-check-workspace-');
  mkdirSync(join(root, 'playbooks'));
  // Seven errors: seven unknown roles.
  const steps = Array.from({ length: 7 }, (_, i) => `  s${i}: { role: nobody${i}, prompt: do it }`);
  writeFileSync(
    join(root, 'playbooks', 'broken.yml'),
    `version: 1\ntitle: Broken\nsteps:\n${steps.join('\n')}\n`,
  );
  writeFileSync(
    join(root, 'playbooks', 'fine.yml'),
    'version: 1\ntitle: Fine\nsteps:\n  a: { role: implementer, prompt: do it }\n',
  );
  found = ['broken.yml', 'fine.yml'].map((name) => uriOf(fileUri(join(root, 'playbooks', name))));
  server = await startClient({
    workspaceFolders: [{ uri: fileUri(root), name: 'main' }],
    capabilities: VS_CODE_PULL,
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('Check workspace', () => {
  it('counts each problem of a playbook that is not open once, in every collection together', async () => {
    // The language client's own collection: its workspace pull, started as the client starts.
    const clientCollection = new Map<string, unknown[]>();
    const pulled = await server.request<WorkspaceDiagnosticReport>('workspace/diagnostic', {
      previousResultIds: [],
    });
    for (const item of pulled.items) if (item.kind === 'full') clientCollection.set(item.uri, item.items);

    const { WorkspaceCheck } = await import('../src/check-workspace.js');
    const languageClient = {
      initializeResult: server.initializeResult,
      code2ProtocolConverter: { asUri: (uri: FakeUri) => String(uri) },
      protocol2CodeConverter: { asDiagnostics: (items: unknown[]) => Promise.resolve(items) },
      sendRequest: (type: string | { method: string }, params: unknown) =>
        server.request(typeof type === 'string' ? type : type.method, params),
    };
    const check = new WorkspaceCheck(() => Promise.resolve(languageClient as never));
    const summary = await check.check({ isCancellationRequested: false } as never, () => undefined);

    expect(summary?.errors).toBe(7);
    const shown = [clientCollection, ...collections].reduce(
      (count, collection) => count + [...collection.values()].reduce((n, items) => n + items.length, 0),
      0,
    );
    expect(shown).toBe(7);
    check.dispose();
  }, 60_000);

  it('shows them itself for a server without workspace diagnostics (an older CLI as server.path)', async () => {
    collections.length = 0;
    const { WorkspaceCheck } = await import('../src/check-workspace.js');
    const languageClient = {
      initializeResult: { capabilities: { diagnosticProvider: { interFileDependencies: true } } },
      code2ProtocolConverter: { asUri: (uri: FakeUri) => String(uri) },
      protocol2CodeConverter: { asDiagnostics: (items: unknown[]) => Promise.resolve(items) },
      sendRequest: (type: string | { method: string }, params: unknown) =>
        server.request(typeof type === 'string' ? type : type.method, params),
    };
    const check = new WorkspaceCheck(() => Promise.resolve(languageClient as never));
    const summary = await check.check({ isCancellationRequested: false } as never, () => undefined);
    expect(summary?.errors).toBe(7);
    const shown = collections.reduce(
      (count, collection) => count + [...collection.values()].reduce((n, items) => n + items.length, 0),
      0,
    );
    expect(shown).toBe(7);
    check.dispose();
  }, 60_000);
});
