/**
 * A real JSON-RPC client for protocol tests: spawns the built server (`lsp/dist/stdio.js`, or any command
 * line) and talks LSP to it over its stdin and stdout with vscode-jsonrpc.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { buildOnce } from '../../../test/kit/build.js';
import type {
  ClientCapabilities,
  Diagnostic,
  InitializeResult,
  PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol';

export const REPO = new URL('../../../', import.meta.url).pathname;
export const SERVER = `${REPO}lsp/dist/stdio.js`;

/**
 * Builds the server (incremental, so fast when nothing changed), one test file at a time (the kit's
 * `buildOnce`): none spawns a server from half-written files.
 */
export function buildServer(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  buildOnce('kairoku-playbook-lsp-build', () =>
    execFileSync(process.execPath, [tsc, '-b', 'lsp'], { cwd: REPO, stdio: 'pipe' }),
  );
}

export interface StartOptions {
  /** the command line; default: node --expose-gc lsp/dist/stdio.js */
  command?: string[];
  rootUri?: string | null;
  workspaceFolders?: { uri: string; name: string }[] | null;
  capabilities?: ClientCapabilities;
  initializationOptions?: unknown;
}

export const PUSH_CAPABILITIES: ClientCapabilities = {
  textDocument: {
    publishDiagnostics: { relatedInformation: true, versionSupport: true, codeDescriptionSupport: true },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    completion: { completionItem: { snippetSupport: false } },
    rename: { prepareSupport: true },
  },
  workspace: { workspaceFolders: true },
};

export class TestClient {
  readonly diagnostics = new Map<string, PublishDiagnosticsParams>();
  readonly logs: { type: number; message: string }[] = [];
  readonly stderr: string[] = [];
  private waiters: { test: () => boolean; resolve: () => void }[] = [];
  initializeResult!: InitializeResult;
  refreshes = 0;

  constructor(
    readonly process: ChildProcess,
    readonly connection: MessageConnection,
  ) {
    connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      this.diagnostics.set(params.uri, params);
      this.check();
    });
    connection.onNotification('window/logMessage', (params: { type: number; message: string }) => {
      this.logs.push(params);
    });
    connection.onRequest('workspace/diagnostic/refresh', () => {
      this.refreshes++;
      return null;
    });
    connection.onRequest('client/registerCapability', () => null);
    connection.onRequest('workspace/configuration', () => []);
    connection.onRequest('workspace/workspaceFolders', () => null);
    process.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString()));
  }

  private check(): void {
    this.waiters = this.waiters.filter((w) => {
      if (!w.test()) return true;
      w.resolve();
      return false;
    });
  }

  /** Resolves when `test` holds after a publishDiagnostics (or right away when it already does). */
  waitFor(test: () => boolean, timeout = 10_000): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for diagnostics')), timeout);
      this.waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /** The diagnostics published for a document at a version (waits for them). */
  async diagnosticsOf(uri: string, version?: number): Promise<Diagnostic[]> {
    await this.waitFor(() => {
      const published = this.diagnostics.get(uri);
      return published !== undefined && (version === undefined || published.version === version);
    });
    return this.diagnostics.get(uri)!.diagnostics;
  }

  request<R>(method: string, params: unknown): Promise<R> {
    return this.connection.sendRequest(method, params) as Promise<R>;
  }

  notify(method: string, params: unknown): Promise<void> {
    return this.connection.sendNotification(method, params);
  }

  open(uri: string, text: string, version = 1): Promise<void> {
    this.diagnostics.delete(uri);
    return this.notify('textDocument/didOpen', {
      textDocument: { uri, languageId: 'kairoku-playbook', version, text },
    });
  }

  close(uri: string): Promise<void> {
    return this.notify('textDocument/didClose', { textDocument: { uri } });
  }

  /** Shuts the server down and resolves with its exit code. */
  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => {
      if (this.process.exitCode !== null) resolve(this.process.exitCode);
      else this.process.once('exit', (code) => resolve(code));
    });
    try {
      await this.request('shutdown', null);
      await this.notify('exit', null);
    } catch {
      this.process.kill();
    }
    const code = await exited;
    this.connection.dispose();
    return code;
  }
}

export async function startClient(options: StartOptions = {}): Promise<TestClient> {
  const [command, ...args] = options.command ?? [process.execPath, '--expose-gc', SERVER];
  const child = spawn(command!, args, { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout!),
    new StreamMessageWriter(child.stdin!),
  );
  const client = new TestClient(child, connection);
  connection.listen();
  client.initializeResult = await client.request<InitializeResult>('initialize', {
    processId: process.pid,
    rootUri: options.rootUri ?? null,
    workspaceFolders: options.workspaceFolders ?? null,
    capabilities: options.capabilities ?? PUSH_CAPABILITIES,
    initializationOptions: options.initializationOptions ?? { validationDelay: 0 },
  });
  await client.notify('initialized', {});
  return client;
}

export function fileUri(path: string): string {
  return pathToFileURL(path).href;
}
