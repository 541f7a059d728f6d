/**
 * The language server: the only module that talks to the connection. It keeps the open documents, asks
 * the workspace for the compiler's diagnostics (debounced, only changed files re-analysed) and pushes them,
 * or answers pull requests (a document's, or the whole workspace's: every playbook discovered on disk as
 * well), and routes every request to a pure feature function, converting offsets to positions at the edge.
 * A feature that throws gives an empty result and a log line; the server goes on.
 */
import {
  createConnection,
  LSPErrorCodes,
  ProposedFeatures,
  ResponseError,
  StreamMessageWriter,
  TextDocuments,
  TextDocumentSyncKind,
} from 'vscode-languageserver/node';
import type {
  CancellationToken,
  CodeAction,
  Connection,
  DiagnosticServerCancellationData,
  Diagnostic as LspDiagnostic,
  DocumentDiagnosticParams,
  DocumentDiagnosticReport,
  InitializeParams,
  InitializeResult,
  Location,
  SymbolInformation,
  DocumentSymbol,
  WorkspaceDiagnosticParams,
  WorkspaceDiagnosticReport,
  WorkspaceDocumentDiagnosticReport,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import type { Diagnostic, FileAnalysis } from '@kairoku-playbook/compiler';
import { codeActionsFor } from './features/code-actions.js';
import { completionsAt } from './features/completion.js';
import { definitionAt } from './features/definition.js';
import { highlightsAt } from './features/document-highlights.js';
import { documentSymbols } from './features/document-symbols.js';
import { foldingRanges } from './features/folding-ranges.js';
import { hoverAt } from './features/hover.js';
import { referencesAt } from './features/references.js';
import { prepareRenameAt, renameAt } from './features/rename.js';
import { semanticTokens } from './features/semantic-tokens.js';
import {
  DIAGNOSTIC_SOURCE,
  SEMANTIC_TOKENS_LEGEND,
  crashDiagnostic,
  encodeSemanticTokens,
  toCodeAction,
  toCompletionItem,
  toDocumentSymbol,
  toFoldingRange,
  toHighlight,
  toHover,
  toLspDiagnostic,
  toRange,
  toTextEdit,
} from './protocol/convert.js';
import { warmSymbolIndex } from './language/symbols.js';
import { MAX_MESSAGE_BYTES } from './protocol/framing.js';
import { GuardedMessageReader } from './protocol/message-reader.js';
import { checkParams } from './protocol/params.js';
import { isPlaybookPath } from './workspace/discovery.js';
import { PlaybookWorkspace, normalizeUri } from './workspace/playbook-workspace.js';
import type { WorkspaceFolder } from './workspace/playbook-workspace.js';

/** Settings a client may pass as `initializationOptions`. */
export interface ServerOptions {
  /** milliseconds between the last change and validation (default 150) */
  validationDelay?: number;
}

/** The custom request the tests (and curious users) read the server's health from. */
export const STATS_REQUEST = 'kairoku-playbook/stats';

export interface ServerStats {
  heapUsed: number;
  rss: number;
  open: number;
  disk: number;
  analyses: number;
  validations: number;
  errors: number;
}

/** The latest diagnostics of a playbook: an open document (its version), or one on disk (no version). */
interface Published {
  resultId: string;
  items: LspDiagnostic[];
  version: number | undefined;
}

const DEFAULT_DELAY = 150;
/** a validation delay past this is a mistake (and past 2^31 ms, setTimeout fires at once) */
const MAX_DELAY = 60_000;

/**
 * The language server on a pair of streams. Messages are read by a guarded reader: a bad one (not JSON,
 * too large, params that do not fit its method) is answered with a JSON-RPC error and never reaches a
 * handler. When the input ends, the process exits (0 after a shutdown request, 1 otherwise).
 */
export function startServer(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  options: { maxMessageBytes?: number } = {},
): Connection {
  const writer = new StreamMessageWriter(output);
  // Until the connection exists, a refusal's log line goes to stderr.
  let log = (line: string): void => void process.stderr.write(`kairoku-playbook lsp: ${line}\n`);
  const reader = new GuardedMessageReader(input, {
    answer: (message) => void writer.write(message).catch(() => undefined),
    checkParams,
    log: (line) => log(line),
    maxMessageBytes: options.maxMessageBytes ?? MAX_MESSAGE_BYTES,
  });
  const connection = createConnection(ProposedFeatures.all, reader, writer);
  log = (line) => connection.console.error(line);
  // On stdio, stdout is the protocol: whatever any module prints goes to the client's log instead.
  if (output === process.stdout) {
    const to =
      (log: (message: string) => void) =>
      (...args: unknown[]) =>
        log(format(...args));
    console.log = console.info = console.debug = to((m) => connection.console.log(m));
    console.warn = to((m) => connection.console.warn(m));
    console.error = to((m) => connection.console.error(m));
  }
  const server = new PlaybookServer(connection);
  server.listen();
  const exit = () => process.exit(server.shutdownReceived ? 0 : 1);
  input.once('end', exit);
  input.once('close', exit);
  return connection;
}

/**
 * `kairoku-playbook lsp --stdio` and `node lsp/dist/stdio.js`: the server on stdin and stdout. Nothing may
 * write to stdout but the protocol; an error no handler caught is logged to stderr, never fatal.
 */
export function serveStdio(): Connection {
  process.on('uncaughtException', (error) =>
    process.stderr.write(`kairoku-playbook lsp: ${error.stack ?? String(error)}\n`),
  );
  process.on('unhandledRejection', (error) =>
    process.stderr.write(
      `kairoku-playbook lsp: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    ),
  );
  return startServer(process.stdin, process.stdout);
}

class PlaybookServer {
  private readonly documents = new TextDocuments(TextDocument);
  private readonly workspace = new PlaybookWorkspace();
  /** the client's spelling of each normalised URI */
  private readonly clientUris = new Map<string, string>();
  /** every playbook of the last validation: the open documents and those discovered on disk */
  private readonly published = new Map<string, Published>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private delay = DEFAULT_DELAY;
  private pullDiagnostics = false;
  private refreshSupport = false;
  private hierarchicalSymbols = true;
  private workspaceFolderEvents = false;
  private validations = 0;
  private errors = 0;
  private nextResultId = 1;
  /** a shutdown request came: the exit that follows (or the end of the input) is a clean one */
  shutdownReceived = false;
  /** documents edited since the last validation (their diagnostics are published even when equal) */
  private readonly edited = new Set<string>();

  constructor(private readonly connection: Connection) {}

  listen(): void {
    const { connection, documents } = this;
    connection.onInitialize((params) => this.initialize(params));
    connection.onInitialized(() => this.safely('initialized', () => this.initialized()));
    connection.onShutdown(() => {
      this.shutdownReceived = true;
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
    });

    documents.onDidOpen(({ document }) =>
      this.safely('open', () => {
        this.track(document.uri);
        this.workspace.openDocument(document.uri, document.getText(), document.version);
        this.edited.add(normalizeUri(document.uri));
        this.schedule(0);
      }),
    );
    documents.onDidChangeContent(({ document }) =>
      this.safely('change', () => {
        const key = this.track(document.uri);
        if (this.workspace.versionOf(key) === document.version) return; // the open event already has it
        this.workspace.changeDocument(document.uri, document.getText(), document.version);
        this.edited.add(key);
        this.schedule(this.delay);
      }),
    );
    documents.onDidClose(({ document }) =>
      this.safely('close', () => {
        const key = normalizeUri(document.uri);
        this.workspace.closeDocument(document.uri);
        this.published.delete(key);
        if (!this.pullDiagnostics)
          this.settle(
            'publishing diagnostics',
            connection.sendDiagnostics({ uri: document.uri, diagnostics: [] }),
          );
        this.schedule(0);
      }),
    );
    documents.listen(connection);

    connection.onDidChangeWatchedFiles(({ changes }) =>
      this.safely('watched files', () => {
        let any = false;
        for (const change of changes) {
          let path: string;
          try {
            path = fileURLToPath(change.uri);
          } catch {
            continue;
          }
          if (!isPlaybookPath(path)) continue;
          if (change.type === 3) this.workspace.removeFromDisk(change.uri);
          else this.workspace.readFromDisk(change.uri);
          any = true;
        }
        if (any) this.schedule(this.delay);
      }),
    );

    connection.languages.diagnostics.on((params, token) => {
      try {
        return this.documentDiagnostics(params, token);
      } catch (error) {
        this.fail(`diagnostics of ${params.textDocument.uri}`, error);
        return { kind: 'full', items: [] } satisfies DocumentDiagnosticReport;
      }
    });
    connection.languages.diagnostics.onWorkspace((params, token) => this.workspaceDiagnostics(params, token));

    connection.onCompletion((params, token) =>
      this.feature('completion', params.textDocument.uri, token, null, (analysis) => ({
        isIncomplete: false,
        items: completionsAt(analysis, analysis.source.offsetAt(params.position)).map((entry) =>
          toCompletionItem(analysis.source, entry),
        ),
      })),
    );
    connection.onHover((params, token) =>
      this.feature('hover', params.textDocument.uri, token, null, (analysis) => {
        const hover = hoverAt(analysis, analysis.source.offsetAt(params.position));
        return hover ? toHover(analysis.source, hover) : null;
      }),
    );
    connection.onDefinition((params, token) =>
      this.feature('definition', params.textDocument.uri, token, null, (analysis) => {
        const definition = definitionAt(analysis, analysis.source.offsetAt(params.position));
        return definition
          ? ({
              uri: params.textDocument.uri,
              range: toRange(analysis.source, definition.target),
            } satisfies Location)
          : null;
      }),
    );
    connection.onReferences((params, token) =>
      this.feature('references', params.textDocument.uri, token, [], (analysis) =>
        referencesAt(
          analysis,
          analysis.source.offsetAt(params.position),
          params.context.includeDeclaration,
        ).map(
          (range) =>
            ({ uri: params.textDocument.uri, range: toRange(analysis.source, range) }) satisfies Location,
        ),
      ),
    );
    connection.onDocumentHighlight((params, token) =>
      this.feature('highlights', params.textDocument.uri, token, [], (analysis) =>
        highlightsAt(analysis, analysis.source.offsetAt(params.position)).map((h) =>
          toHighlight(analysis.source, h),
        ),
      ),
    );
    connection.onPrepareRename((params, token) =>
      this.feature('prepare rename', params.textDocument.uri, token, null, (analysis) => {
        const result = prepareRenameAt(analysis, analysis.source.offsetAt(params.position));
        if (!result) return null;
        if ('error' in result) return new ResponseError(LSPErrorCodes.RequestFailed, result.error);
        return { range: toRange(analysis.source, result.range), placeholder: result.placeholder };
      }),
    );
    connection.onRenameRequest((params, token) =>
      this.feature('rename', params.textDocument.uri, token, null, (analysis) => {
        const result = renameAt(analysis, analysis.source.offsetAt(params.position), params.newName);
        if ('error' in result) return new ResponseError(LSPErrorCodes.RequestFailed, result.error);
        return {
          changes: { [params.textDocument.uri]: result.edits.map((e) => toTextEdit(analysis.source, e)) },
        };
      }),
    );
    connection.onDocumentSymbol((params, token) =>
      this.feature('document symbols', params.textDocument.uri, token, [], (analysis) => {
        const symbols = documentSymbols(analysis).map((s) => toDocumentSymbol(analysis.source, s));
        return this.hierarchicalSymbols ? symbols : flatten(params.textDocument.uri, symbols);
      }),
    );
    connection.languages.semanticTokens.on((params, token) =>
      this.feature('semantic tokens', params.textDocument.uri, token, { data: [] }, (analysis) => ({
        data: encodeSemanticTokens(analysis.source, semanticTokens(analysis)),
      })),
    );
    connection.onFoldingRanges((params, token) =>
      this.feature('folding ranges', params.textDocument.uri, token, [], (analysis) =>
        foldingRanges(analysis).map((r) => toFoldingRange(analysis.source, r)),
      ),
    );
    connection.onCodeAction((params, token) =>
      this.feature('code actions', params.textDocument.uri, token, [], (analysis) => {
        if (params.context.only && !params.context.only.some((kind) => 'quickfix'.startsWith(kind)))
          return [];
        return this.codeActions(params.textDocument.uri, analysis, params.range, params.context.diagnostics);
      }),
    );
    connection.onRequest(STATS_REQUEST, () => this.stats());

    connection.listen();
  }

  private initialize(params: InitializeParams): InitializeResult {
    const capabilities = params.capabilities;
    this.pullDiagnostics = capabilities.textDocument?.diagnostic !== undefined;
    this.refreshSupport = capabilities.workspace?.diagnostics?.refreshSupport === true;
    this.hierarchicalSymbols =
      capabilities.textDocument?.documentSymbol?.hierarchicalDocumentSymbolSupport !== false;
    this.workspaceFolderEvents = capabilities.workspace?.workspaceFolders === true;
    const options = (params.initializationOptions ?? {}) as ServerOptions;
    const delay = (options as Record<string, unknown> | null)?.validationDelay;
    if (typeof delay === 'number' && delay >= 0 && delay <= MAX_DELAY) this.delay = delay;
    else if (delay !== undefined)
      this.log(
        `initializationOptions.validationDelay must be milliseconds from 0 to ${MAX_DELAY}; using ${this.delay}`,
      );
    const folders: WorkspaceFolder[] =
      params.workspaceFolders ??
      (params.rootUri ? [{ uri: params.rootUri, name: params.rootUri.split('/').pop() ?? 'root' }] : []);
    this.workspace.setFolders(folders);
    const result: InitializeResult = {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        completionProvider: { triggerCharacters: ['.', "'", '"', '[', ',', ' ', '{', '('] },
        hoverProvider: true,
        definitionProvider: true,
        referencesProvider: true,
        documentHighlightProvider: true,
        renameProvider: { prepareProvider: true },
        documentSymbolProvider: true,
        semanticTokensProvider: { legend: SEMANTIC_TOKENS_LEGEND, full: true },
        codeActionProvider: { codeActionKinds: ['quickfix'] },
        foldingRangeProvider: true,
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: 'kairoku-playbook' },
    };
    if (this.pullDiagnostics) {
      result.capabilities.diagnosticProvider = {
        identifier: DIAGNOSTIC_SOURCE,
        interFileDependencies: true,
        workspaceDiagnostics: true,
      };
    }
    return result;
  }

  private initialized(): void {
    this.workspace.discover(() => this.schedule(0));
    this.schedule(0);
    if (!this.workspaceFolderEvents) return;
    this.connection.workspace.onDidChangeWorkspaceFolders(() => {
      this.settle(
        'reading the workspace folders',
        this.connection.workspace.getWorkspaceFolders().then((folders) =>
          this.safely('workspace folders', () => {
            // The client's answer: only well-formed folders are taken.
            const valid = (Array.isArray(folders) ? folders : []).filter(
              (f): f is WorkspaceFolder =>
                typeof f === 'object' &&
                f !== null &&
                typeof f.uri === 'string' &&
                typeof f.name === 'string',
            );
            this.workspace.setFolders(valid);
            this.workspace.discover(() => this.schedule(0));
            this.schedule(0);
          }),
        ),
      );
    });
  }

  private track(uri: string): string {
    const key = normalizeUri(uri);
    this.clientUris.set(key, uri);
    return key;
  }

  private schedule(delay: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.safely('validation', () => this.validateNow()), delay);
  }

  /** Validates the workspace now and publishes what changed. */
  private validateNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.validations++;
    const result = this.workspace.validate();
    const changedElsewhere: string[] = [];
    const validated = new Set<string>();
    /** The report of one file, a new result id only when its diagnostics changed; whether they did. */
    const record = (key: string, diagnostics: Diagnostic[]): { items: LspDiagnostic[]; same: boolean } => {
      validated.add(key);
      const items = diagnostics.map((d) =>
        toLspDiagnostic(
          d,
          (file) => this.workspace.sourceOf(file),
          (file) => {
            const uri = this.workspace.uriOf(file);
            return uri ? (this.clientUris.get(uri) ?? uri) : undefined;
          },
        ),
      );
      const crash = result.crashes.get(key);
      if (crash !== undefined) {
        items.push(crashDiagnostic(crash));
        this.log(`the checker failed on ${key}: ${crash}`);
      }
      const previous = this.published.get(key);
      const same = previous !== undefined && JSON.stringify(previous.items) === JSON.stringify(items);
      const uri = this.clientUris.get(key) ?? key;
      this.published.set(key, {
        resultId: same ? previous.resultId : String(this.nextResultId++),
        items,
        version: this.documents.get(uri)?.version,
      });
      return { items, same };
    };
    for (const [key, diagnostics] of result.diagnostics) {
      const { items, same } = record(key, diagnostics);
      const edited = this.edited.has(key);
      if (same && !edited) continue;
      if (!edited) changedElsewhere.push(key);
      const uri = this.clientUris.get(key) ?? key;
      const version = this.documents.get(uri)?.version;
      if (!this.pullDiagnostics)
        this.settle(
          'publishing diagnostics',
          this.connection.sendDiagnostics({ uri, version, diagnostics: items }),
        );
    }
    // Playbooks on disk that are not open: kept for workspace pulls (never pushed: a client shows the
    // diagnostics of the documents it opens).
    for (const [key, diagnostics] of result.onDisk) {
      if (!record(key, diagnostics).same) changedElsewhere.push(key);
    }
    // Files gone from the workspace (deleted, or closed and not on disk): a workspace pull reports them empty.
    for (const key of [...this.published.keys()]) if (!validated.has(key)) this.published.delete(key);
    // Build the symbol index of edited documents now that their diagnostics are out, so the first
    // hover or completion after an edit does not pay for it (~100 ms on a 2,000-step playbook).
    const warm = [...this.edited].map((key) => {
      const uri = this.clientUris.get(key) ?? key;
      return { uri, version: this.documents.get(uri)?.version };
    });
    // In slices of a few ms between turns of the event loop, so a request that arrives meanwhile is
    // answered after one slice (it finishes the index itself if it needs it).
    const slice = () => {
      const next = warm[0];
      if (!next) return;
      let done = true;
      try {
        // Only the analysis just published: a newer edit is analysed by its own validation.
        const analysis =
          this.documents.get(next.uri)?.version === next.version
            ? this.workspace.analysisFor(next.uri)
            : undefined;
        if (analysis) done = warmSymbolIndex(analysis, 4);
      } catch (error) {
        this.log(`warming the symbol index of ${next.uri} failed: ${String(error)}`);
      }
      if (done) warm.shift();
      if (warm.length) setImmediate(slice);
    };
    setImmediate(slice);
    this.edited.clear();
    if (this.pullDiagnostics && this.refreshSupport && changedElsewhere.length)
      this.settle('asking for a diagnostics refresh', this.connection.languages.diagnostics.refresh());
  }

  /** `textDocument/diagnostic`: the document's latest report (validated now when out of date). */
  private documentDiagnostics(
    params: DocumentDiagnosticParams,
    token: CancellationToken,
  ): DocumentDiagnosticReport | ResponseError<DiagnosticServerCancellationData> {
    if (token.isCancellationRequested)
      return new ResponseError(LSPErrorCodes.ServerCancelled, 'cancelled', { retriggerRequest: true });
    const key = normalizeUri(params.textDocument.uri);
    const document = this.documents.get(params.textDocument.uri);
    const latest = this.published.get(key);
    if (this.timer || !latest || (document && latest.version !== document.version)) this.validateNow();
    const report = this.published.get(key);
    if (!report) return { kind: 'full', items: [] } satisfies DocumentDiagnosticReport;
    if (params.previousResultId === report.resultId)
      return { kind: 'unchanged', resultId: report.resultId } satisfies DocumentDiagnosticReport;
    return {
      kind: 'full',
      resultId: report.resultId,
      items: report.items,
    } satisfies DocumentDiagnosticReport;
  }

  /** Whether the last validation is out of date: one is scheduled, or an open document changed since. */
  private stale(): boolean {
    if (this.timer) return true;
    for (const document of this.documents.all()) {
      const key = normalizeUri(document.uri);
      if (!this.workspace.isPlaybook(key)) continue;
      if (this.published.get(key)?.version !== document.version) return true;
    }
    return false;
  }

  /**
   * `workspace/diagnostic`: a report for every playbook of the workspace (open documents and those on
   * disk), `unchanged` where the client already has the current result id, and an empty one for each
   * document the client knows that is no longer in the workspace.
   */
  private async workspaceDiagnostics(
    params: WorkspaceDiagnosticParams,
    token: CancellationToken,
  ): Promise<WorkspaceDiagnosticReport | ResponseError<DiagnosticServerCancellationData>> {
    // A turn of the event loop, so a cancellation sent right after the request is seen before the work.
    await new Promise((resolve) => setImmediate(resolve));
    if (token.isCancellationRequested)
      return new ResponseError(LSPErrorCodes.RequestCancelled, 'request cancelled', {
        retriggerRequest: false,
      });
    try {
      if (this.stale()) this.validateNow();
    } catch (error) {
      this.fail('workspace diagnostics', error);
      return { items: [] };
    }
    const known = new Map<string, { uri: string; resultId: string }>();
    for (const { uri, value } of params.previousResultIds ?? [])
      known.set(normalizeUri(uri), { uri, resultId: value });
    const items: WorkspaceDocumentDiagnosticReport[] = [];
    for (const [key, report] of this.published) {
      const uri = this.clientUris.get(key) ?? known.get(key)?.uri ?? key;
      const version = report.version ?? null;
      items.push(
        known.get(key)?.resultId === report.resultId
          ? { kind: 'unchanged', uri, version, resultId: report.resultId }
          : { kind: 'full', uri, version, resultId: report.resultId, items: report.items },
      );
    }
    for (const [key, { uri }] of known)
      if (!this.published.has(key)) items.push({ kind: 'full', uri, version: null, items: [] });
    return { items };
  }

  private codeActions(
    uri: string,
    analysis: FileAnalysis,
    range: { start: { line: number; character: number }; end: { line: number; character: number } },
    requested: LspDiagnostic[],
  ): CodeAction[] {
    const start = analysis.source.offsetAt(range.start);
    const end = analysis.source.offsetAt(range.end);
    const toLsp = (d: Diagnostic) =>
      toLspDiagnostic(
        d,
        () => analysis.source,
        () => uri,
      );
    const ours = requested.filter((d) => d.source === DIAGNOSTIC_SOURCE);
    const candidates = analysis.diagnostics.filter((d) => {
      if (ours.length) {
        const lsp = toLsp(d);
        return ours.some(
          (r) =>
            r.code === lsp.code &&
            JSON.stringify(r.range) === JSON.stringify(lsp.range) &&
            r.message === lsp.message,
        );
      }
      return d.range.start <= end && start <= d.range.end;
    });
    return codeActionsFor(analysis, candidates).map((action) =>
      toCodeAction(analysis.source, uri, action, toLsp(action.diagnostic)),
    );
  }

  private stats(): ServerStats {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc) gc();
    const memory = process.memoryUsage();
    return {
      heapUsed: memory.heapUsed,
      rss: memory.rss,
      ...this.workspace.stats(),
      validations: this.validations,
      errors: this.errors,
    };
  }

  /** Runs a feature on a document's current analysis: cancelled → an error reply; a throw → `empty` and a log line. */
  private feature<T>(
    name: string,
    uri: string,
    token: CancellationToken,
    empty: T,
    run: (analysis: FileAnalysis) => T | ResponseError<void>,
  ): T | ResponseError<void> {
    if (token.isCancellationRequested)
      return new ResponseError(LSPErrorCodes.RequestCancelled, 'request cancelled');
    try {
      const analysis = this.workspace.analysisFor(uri);
      if (!analysis) return empty;
      return run(analysis);
    } catch (error) {
      this.fail(`${name} on ${uri}`, error);
      return empty;
    }
  }

  /** A promise nothing waits for: its failure is a log line, never an unhandled rejection. */
  private settle(what: string, promise: Promise<unknown>): void {
    promise.catch((error: unknown) => this.fail(what, error));
  }

  private safely(name: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      this.fail(name, error);
    }
  }

  private fail(what: string, error: unknown): void {
    this.errors++;
    this.log(`${what} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }

  private log(message: string): void {
    this.connection.console.error(message);
  }
}

function flatten(uri: string, symbols: DocumentSymbol[], container?: string): SymbolInformation[] {
  return symbols.flatMap((symbol) => {
    const info: SymbolInformation = {
      name: symbol.name,
      kind: symbol.kind,
      location: { uri, range: symbol.range },
    };
    if (container) info.containerName = container;
    return [info, ...flatten(uri, symbol.children ?? [], symbol.name)];
  });
}
