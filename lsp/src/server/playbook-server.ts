/**
 * The server around the language service: it keeps the client's documents in sync, schedules validation
 * (after typing, when the adaptive delay of validation-delay.ts says or the client's fixed one; at once
 * after an open or a close), pushes the diagnostics or
 * answers pull requests (a document's, or the whole workspace's), drives the discovery of the workspace
 * folders and the warm-up of symbol indexes in slices between requests, and routes every feature request
 * to the service (feature-requests.ts). A handler that throws gives an empty result and a log line; the
 * server goes on.
 */
import { LSPErrorCodes, ResponseError, TextDocuments } from 'vscode-languageserver/node';
import type {
  CancellationToken,
  Connection,
  DiagnosticServerCancellationData,
  DocumentDiagnosticParams,
  DocumentDiagnosticReport,
  InitializeParams,
  InitializeResult,
  WorkspaceDiagnosticParams,
  WorkspaceDiagnosticReport,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { PlaybookLanguageService } from '../service/language-service.js';
import type { PlaybookFileSystem } from '../service/workspace/file-system.js';
import type { WorkspaceFolder } from '../service/workspace/playbook-workspace.js';
import { serverCapabilities } from './capabilities.js';
import { STATS_REQUEST } from './custom-requests.js';
import type { ServerStats } from './custom-requests.js';
import { Debouncer } from './debouncer.js';
import { DiagnosticReports } from './diagnostic-reports.js';
import { discover } from './discovery.js';
import { EXPLORE_BUDGET_MS, adaptiveValidationDelay } from './validation-delay.js';
import { routeFeatureRequests } from './feature-requests.js';
import { warmUpInSlices } from './warm-up.js';
import { preloadFormatter } from './prettier-config.js';

/** Settings a client may pass as `initializationOptions`. */
export interface ServerOptions {
  /**
   * Milliseconds between the last change and validation, fixed. Absent (the default), the delay adapts:
   * none while the analysis is cheap, coalescing under a burst of edits or while a costly one is typed in
   * (validation-delay.ts).
   */
  validationDelay?: number;
  /**
   * PB310 and PB311 as `check --explore` reports them (default true): each playbook without errors is
   * explored within EXPLORE_BUDGET_MS of wall clock (validation-delay.ts), again when its text changes.
   */
  explore?: boolean;
}

/** a validation delay past this is a mistake (and past 2^31 ms, setTimeout fires at once) */
const MAX_DELAY = 60_000;
/** the key under which changes of files on disk are timed (no document has it: keys are URIs) */
const WATCHED_FILES = ' watched files';

export class PlaybookServer {
  private readonly documents = new TextDocuments(TextDocument);
  private readonly service: PlaybookLanguageService;
  private readonly reports = new DiagnosticReports();
  private readonly validation = new Debouncer(() => this.safely('validation', () => this.validateNow()));
  /** the client's fixed delay (`validationDelay`); undefined: adaptive */
  private fixedDelay: number | undefined;
  /** how long the last validation took (ms), for the adaptive delay */
  private lastValidationMs: number | undefined;
  /** when each document (or, under WATCHED_FILES, the files on disk) last changed (performance.now()) */
  private readonly lastEditAt = new Map<string, number>();
  /** pulls waiting for the scheduled validation */
  private validationWaiters: (() => void)[] = [];
  private pullDiagnostics = false;
  private refreshSupport = false;
  private hierarchicalSymbols = true;
  private workspaceFolderEvents = false;
  private validations = 0;
  private errors = 0;
  /** Prettier has been loaded ahead of a first format (once, after the first validation) */
  private formatterPreloaded = false;
  /** a shutdown request came: the exit that follows (or the end of the input) is a clean one */
  shutdownReceived = false;
  /** documents edited since the last validation (their diagnostics are published even when equal) */
  private readonly edited = new Set<string>();

  constructor(
    private readonly connection: Connection,
    fileSystem: PlaybookFileSystem,
  ) {
    this.service = new PlaybookLanguageService(fileSystem);
  }

  listen(): void {
    this.listenToLifecycle();
    this.listenToDocuments();
    this.listenToDiagnosticRequests();
    routeFeatureRequests(this.connection, this.service, (...args) => this.answer(...args), {
      hierarchicalSymbols: () => this.hierarchicalSymbols,
      fail: (what, error) => this.fail(what, error),
    });
    this.connection.onRequest(STATS_REQUEST, () => this.stats());
    this.connection.listen();
  }

  private listenToLifecycle(): void {
    const { connection } = this;
    connection.onInitialize((params) => this.initialize(params));
    connection.onInitialized(() => this.safely('initialized', () => this.initialized()));
    connection.onShutdown(() => {
      this.shutdownReceived = true;
      this.validation.cancel();
      const waiters = this.validationWaiters;
      this.validationWaiters = [];
      for (const resume of waiters) resume();
    });
  }

  /** Open documents and files on disk: each change reaches the service, and a validation is scheduled. */
  private listenToDocuments(): void {
    const { connection, documents, service } = this;
    documents.onDidOpen(({ document }) =>
      this.safely('open', () => {
        service.openDocument(document.uri, document.getText(), document.version);
        this.edited.add(service.keyOf(document.uri));
        this.validation.schedule(0);
      }),
    );
    documents.onDidChangeContent(({ document }) =>
      this.safely('change', () => {
        // (the open event already has the text of a document just opened)
        if (!service.changeDocument(document.uri, document.getText(), document.version)) return;
        const key = service.keyOf(document.uri);
        this.edited.add(key);
        this.validation.schedule(this.delayAfterEdit(key));
      }),
    );
    documents.onDidClose(({ document }) =>
      this.safely('close', () => {
        service.closeDocument(document.uri);
        this.reports.forget(service.keyOf(document.uri));
        this.lastEditAt.delete(service.keyOf(document.uri));
        if (!this.pullDiagnostics)
          this.settle(
            'publishing diagnostics',
            connection.sendDiagnostics({ uri: document.uri, diagnostics: [] }),
          );
        this.validation.schedule(0);
      }),
    );
    documents.listen(connection);
    connection.onDidChangeWatchedFiles(({ changes }) =>
      this.safely('watched files', () => {
        // A changed `.kairoku/exclude` changes which files are playbooks: the workspace is discovered again.
        if (service.excludesChanged(changes)) this.discover();
        else if (service.watchedFilesChanged(changes))
          this.validation.schedule(this.delayAfterEdit(WATCHED_FILES));
      }),
    );
  }

  private listenToDiagnosticRequests(): void {
    const { connection } = this;
    connection.languages.diagnostics.on(async (params, token) => {
      try {
        return await this.documentDiagnostics(params, token);
      } catch (error) {
        this.fail(`diagnostics of ${params.textDocument.uri}`, error);
        return { kind: 'full', items: [] } satisfies DocumentDiagnosticReport;
      }
    });
    connection.languages.diagnostics.onWorkspace((params, token) => this.workspaceDiagnostics(params, token));
  }

  private initialize(params: InitializeParams): InitializeResult {
    const capabilities = params.capabilities;
    this.pullDiagnostics = capabilities.textDocument?.diagnostic !== undefined;
    this.refreshSupport = capabilities.workspace?.diagnostics?.refreshSupport === true;
    this.hierarchicalSymbols =
      capabilities.textDocument?.documentSymbol?.hierarchicalDocumentSymbolSupport !== false;
    this.workspaceFolderEvents = capabilities.workspace?.workspaceFolders === true;
    // (the client may send anything: the types are checked below)
    const options = params.initializationOptions as ServerOptions | null | undefined;
    const delay: unknown = options?.validationDelay;
    if (typeof delay === 'number' && delay >= 0 && delay <= MAX_DELAY) this.fixedDelay = delay;
    else if (delay !== undefined && delay !== null)
      this.log(
        `initializationOptions.validationDelay must be milliseconds from 0 to ${MAX_DELAY}; the delay adapts instead`,
      );
    const explore: unknown = options?.explore;
    if (explore !== undefined && explore !== null && typeof explore !== 'boolean')
      this.log('initializationOptions.explore must be true or false; it is on');
    this.service.exploreWithin(explore === false ? undefined : EXPLORE_BUDGET_MS);
    const folders: WorkspaceFolder[] =
      params.workspaceFolders ??
      (params.rootUri ? [{ uri: params.rootUri, name: params.rootUri.split('/').pop() ?? 'root' }] : []);
    this.service.setFolders(folders);
    return serverCapabilities(this.pullDiagnostics);
  }

  private initialized(): void {
    this.discover();
    this.validation.schedule(0);
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
            this.service.setFolders(valid);
            this.discover();
            this.validation.schedule(0);
          }),
        ),
      );
    });
  }

  /** Reads the workspace folders' playbooks from disk, in slices when that takes long; validates after. */
  private discover(): void {
    discover(this.service, () => this.validation.schedule(0), Date.now, {
      warn: (line) => this.connection.console.warn(line),
      error: (line) => this.log(line),
    });
  }

  /** The version of an open document as the client last sent it. */
  private versionOf(key: string): number | undefined {
    return this.documents.get(this.service.clientUriOf(key) ?? key)?.version;
  }

  /** The delay before validating after a change of `key`: the client's fixed one, or the adaptive one. */
  private delayAfterEdit(key: string): number {
    const now = performance.now();
    const previous = this.lastEditAt.get(key);
    this.lastEditAt.set(key, now);
    if (this.fixedDelay !== undefined) return this.fixedDelay;
    return adaptiveValidationDelay({
      lastValidationMs: this.lastValidationMs,
      sinceLastEditMs: previous === undefined ? undefined : now - previous,
    });
  }

  /** Resolves when the scheduled validation has run (or at once when none is scheduled), or on cancellation. */
  private scheduledValidation(token: CancellationToken): Promise<void> {
    if (!this.validation.pending) return Promise.resolve();
    return new Promise((resolve) => {
      const subscription = token.onCancellationRequested(done);
      this.validationWaiters.push(done);
      function done(): void {
        subscription.dispose();
        resolve();
      }
    });
  }

  /** Validates the workspace now and publishes what changed. */
  private validateNow(): void {
    this.validation.cancel();
    this.validations++;
    const started = performance.now();
    try {
      this.validateAndPublish();
    } finally {
      this.lastValidationMs = performance.now() - started;
      const waiters = this.validationWaiters;
      this.validationWaiters = [];
      for (const resume of waiters) resume();
    }
  }

  private validateAndPublish(): void {
    const validation = this.service.validate();
    for (const [key, crash] of validation.crashes) this.log(`the checker failed on ${key}: ${crash}`);
    for (const note of validation.exploreNotes) this.connection.console.info(note);
    const { changed, changedElsewhere } = this.reports.record(
      validation,
      (key) => this.versionOf(key),
      this.edited,
    );
    if (!this.pullDiagnostics)
      for (const { key, items } of changed)
        this.settle(
          'publishing diagnostics',
          this.connection.sendDiagnostics({
            uri: this.service.clientUriOf(key) ?? key,
            version: this.versionOf(key),
            diagnostics: items,
          }),
        );
    warmUpInSlices(
      [...this.edited].map((key) => ({
        uri: this.service.clientUriOf(key) ?? key,
        version: this.versionOf(key),
      })),
      {
        current: ({ uri, version }) => this.documents.get(uri)?.version === version,
        warm: (uri, budgetMs) => this.service.warmUp(uri, budgetMs),
        log: (line) => this.log(line),
      },
    );
    this.edited.clear();
    if (!this.formatterPreloaded) {
      this.formatterPreloaded = true;
      // (after the first diagnostics are out: a person's first Format Document then finds Prettier loaded)
      setImmediate(() => void preloadFormatter());
    }
    if (this.pullDiagnostics && this.refreshSupport && changedElsewhere.length)
      this.settle('asking for a diagnostics refresh', this.connection.languages.diagnostics.refresh());
  }

  /** `textDocument/diagnostic`: the document's latest report (validated now when out of date). */
  private async documentDiagnostics(
    params: DocumentDiagnosticParams,
    token: CancellationToken,
  ): Promise<DocumentDiagnosticReport | ResponseError<DiagnosticServerCancellationData>> {
    // With the adaptive delay the pull waits for the validation it scheduled (at once when the analysis is
    // cheap): under a burst, or while a costly document is typed in, the client's next change cancels this
    // pull and one validation serves the last. A fixed delay is the client's to wait (it pulls after it).
    if (this.fixedDelay === undefined) await this.scheduledValidation(token);
    if (token.isCancellationRequested)
      return new ResponseError(LSPErrorCodes.ServerCancelled, 'cancelled', { retriggerRequest: true });
    const key = this.service.keyOf(params.textDocument.uri);
    const document = this.documents.get(params.textDocument.uri);
    if (
      this.validation.pending ||
      !this.reports.has(key) ||
      (document && this.reports.versionOf(key) !== document.version)
    )
      this.validateNow();
    return this.reports.documentReport(key, params.previousResultId);
  }

  /** Whether the last validation is out of date: one is scheduled, or an open document changed since. */
  private stale(): boolean {
    if (this.validation.pending) return true;
    for (const document of this.documents.all()) {
      const key = this.service.keyOf(document.uri);
      if (!this.service.isChecked(key)) continue;
      if (this.reports.versionOf(key) !== document.version) return true;
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
    return {
      items: this.reports.workspaceReports(
        params.previousResultIds ?? [],
        (uri) => this.service.keyOf(uri),
        (key) => this.service.clientUriOf(key),
      ),
    };
  }

  private stats(): ServerStats {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc) gc();
    const memory = process.memoryUsage();
    return {
      heapUsed: memory.heapUsed,
      rss: memory.rss,
      ...this.service.stats(),
      validations: this.validations,
      errors: this.errors,
    };
  }

  /** Answers a request about a document: cancelled → an error reply; a throw → `empty` and a log line. */
  private answer<T>(
    name: string,
    uri: string,
    token: CancellationToken,
    empty: T,
    run: () => T | ResponseError<void>,
  ): T | ResponseError<void> {
    if (token.isCancellationRequested)
      return new ResponseError(LSPErrorCodes.RequestCancelled, 'request cancelled');
    try {
      return run();
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
