/**
 * The playbook language service: documents in, answers out. It keeps the open documents and the
 * playbooks discovered on disk (read through the file system it is given), validates them with the
 * compiler's one validation function, and answers every editor feature in LSP's types, positions in
 * UTF-16 as LSP counts them. No connection, no timers, no disk of its own: the server (server/) owns the
 * protocol, the scheduling (debounced validation, discovery and warm-up in slices) and the cancellation,
 * and calls this. Usable without a server: tests call it directly.
 */
import { fileURLToPath } from 'node:url';
import type {
  CodeAction,
  CompletionList,
  Diagnostic as LspDiagnostic,
  DocumentHighlight,
  DocumentSymbol,
  FoldingRange,
  Hover,
  Location,
  Position,
  Range,
  SemanticTokens,
  SymbolInformation,
  TextEdit,
  WorkspaceEdit,
} from 'vscode-languageserver-types';
import { analyzeTestFile, isPolicyFile } from '@kairoku-playbook/compiler';
import type { Diagnostic, FileAnalysis } from '@kairoku-playbook/compiler';
import { headlineBounds } from '@kairoku-playbook/machine';
import {
  DIAGNOSTIC_SOURCE,
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
} from './convert.js';
import { COVERAGE_SOURCE, coverageActions, coverageDiagnostics } from './coverage.js';
import { WorkspaceExplorer } from './explore.js';
import { codeActionsFor } from './features/code-actions.js';
import { completionsAt } from './features/completion.js';
import { definitionAt } from './features/definition.js';
import { highlightsAt } from './features/document-highlights.js';
import { documentSymbols } from './features/document-symbols.js';
import { foldingRanges } from './features/folding-ranges.js';
import { formatPlaybook, formattingEdits } from './features/formatting.js';
import type { PrettierOptions } from './features/formatting.js';
import { playbookGraph } from './features/graph.js';
import type { GraphAnswer } from '@kairoku-playbook/protocol';
import { hoverAt } from './features/hover.js';
import { referencesAt } from './features/references.js';
import { prepareRenameAt, renameAt } from './features/rename.js';
import { semanticTokens } from './features/semantic-tokens.js';
import { testCompletionsAt, testHoverAt, testRenameEdits } from './features/test-files.js';
import type { RenamedName } from './features/test-files.js';
import { occurrenceAt, warmSymbolIndex } from './language/symbols.js';
import type { PlaybookSymbol } from './language/symbols.js';
import { isPlaybookPath, isPlaybookTest } from './workspace/discovery.js';
import { CoverageFiles } from './workspace/coverage-files.js';
import type { PlaybookFileSystem } from './workspace/file-system.js';
import { PlaybookWorkspace, normalizeUri } from './workspace/playbook-workspace.js';
import type { DiscoveryWalk, WorkspaceFolder } from './workspace/playbook-workspace.js';

/** What the service refuses to do, and why (a rename to a taken name, …): the server answers an error. */
export interface Refusal {
  refused: string;
}

export function isRefusal(value: unknown): value is Refusal {
  return typeof value === 'object' && value !== null && typeof (value as Refusal).refused === 'string';
}

/** The LSP diagnostics of every playbook of the workspace, by normalised URI. */
export interface DiagnosticsOfWorkspace {
  /** each open playbook's (a file the checker failed on gets one more, without a code) */
  open: Map<string, LspDiagnostic[]>;
  /** each playbook discovered on disk that is not open, checked as it is on disk */
  onDisk: Map<string, LspDiagnostic[]>;
  /** files the checker failed on (a bug), open or on disk: the error */
  crashes: Map<string, string>;
  /** explorations that ran out of their budget in this validation, each in a sentence (`exploreWithin`) */
  exploreNotes: string[];
}

/** A change of a watched file, as `workspace/didChangeWatchedFiles` reports it (3: deleted). */
export interface WatchedFileChange {
  uri: string;
  type: number;
}

export class PlaybookLanguageService {
  readonly workspace: PlaybookWorkspace;
  /** the client's spelling of each normalised URI */
  private readonly clientUris = new Map<string, string>();
  /** PB310 and PB311 as `check --explore` reports them, when on (`exploreWithin`) */
  private explorer: WorkspaceExplorer | undefined;

  /** `NAME.coverage.json` beside the playbooks, for the coverage hints of open ones */
  private readonly coverage: CoverageFiles;

  constructor(private readonly fileSystem: PlaybookFileSystem) {
    this.workspace = new PlaybookWorkspace(fileSystem);
    this.coverage = new CoverageFiles(fileSystem);
  }

  // ---- documents and files --------------------------------------------------------------------

  /** A URI in the one spelling the service keys documents by. */
  keyOf(uri: string): string {
    return normalizeUri(uri);
  }

  /** A document's URI as its client spelt it; undefined for a file the client never opened. */
  clientUriOf(key: string): string | undefined {
    return this.clientUris.get(key);
  }

  /** Remembers the client's spelling of a document's URI; its key. */
  track(uri: string): string {
    const key = normalizeUri(uri);
    this.clientUris.set(key, uri);
    return key;
  }

  openDocument(uri: string, text: string, version: number): void {
    this.track(uri);
    this.workspace.openDocument(uri, text, version);
  }

  /** A new text of an open document; false when the service already has this version. */
  changeDocument(uri: string, text: string, version: number): boolean {
    const key = this.track(uri);
    if (this.workspace.versionOf(key) === version) return false;
    this.workspace.changeDocument(uri, text, version);
    return true;
  }

  closeDocument(uri: string): void {
    this.workspace.closeDocument(uri);
  }

  setFolders(folders: readonly WorkspaceFolder[]): void {
    this.workspace.setFolders(folders);
  }

  /** Starts a discovery of the workspace folders, for the caller to drive (server/discovery.ts). */
  startDiscovery(): DiscoveryWalk {
    return this.workspace.startDiscovery();
  }

  /** Watched files created, changed or deleted on disk; whether any is a playbook. */
  watchedFilesChanged(changes: readonly WatchedFileChange[]): boolean {
    let any = false;
    for (const change of changes) {
      let path: string;
      try {
        path = fileURLToPath(change.uri);
      } catch {
        continue;
      }
      if (path.endsWith('.coverage.json')) {
        // (read again at the next validation: the coverage hints of its playbook change)
        this.coverage.forget(path);
        any = true;
        continue;
      }
      if (!isPlaybookPath(path) && !isPlaybookTest(path) && !isPolicyFile(path)) continue;
      if (change.type === 3) this.workspace.removeFromDisk(change.uri);
      else this.workspace.readFromDisk(change.uri);
      any = true;
    }
    return any;
  }

  /**
   * Whether a workspace folder's `.kairoku/exclude` is among watched files that changed: what is a
   * playbook changes with it, so the caller discovers the workspace again (`startDiscovery`).
   */
  excludesChanged(changes: readonly WatchedFileChange[]): boolean {
    return changes.some((change) => /\/\.kairoku\/exclude$/.test(change.uri));
  }

  /** Whether a document is checked as a playbook: anything a client opens but playbook tests. */
  isPlaybook(uri: string): boolean {
    return this.workspace.isPlaybook(normalizeUri(uri));
  }

  /** Whether a document is checked: a playbook, or a playbook test (against the playbook beside it). */
  isChecked(uri: string): boolean {
    return this.workspace.isChecked(normalizeUri(uri));
  }

  /** The files among `uris` that are playbooks as `check` discovers them (SPEC §2), in the order given. */
  playbookFiles(uris: readonly string[]): string[] {
    return uris.filter((uri) => {
      const path = pathOf(uri);
      if (path === undefined) return false;
      return uri.startsWith('file:') ? this.workspace.isPlaybookFile(uri, path) : isPlaybookPath(path);
    });
  }

  // ---- diagnostics ----------------------------------------------------------------------------

  /**
   * Adds PB310 and PB311 to what `validate` reports, exactly as `check --explore` does, exploring each
   * playbook for at most `budgetMs` of wall clock (again only when its text changes); undefined: off.
   */
  exploreWithin(budgetMs: number | undefined): void {
    this.explorer = budgetMs === undefined ? undefined : new WorkspaceExplorer(budgetMs);
  }

  /**
   * Validates the workspace: the compiler's diagnostics, field for field, in LSP's positions (and, when
   * `exploreWithin` turned it on, the explorer's as `check --explore` adds them).
   */
  validate(): DiagnosticsOfWorkspace {
    const result = this.workspace.validate();
    const exploreNotes =
      this.explorer?.apply([result.diagnostics, result.onDisk], {
        fileOf: (uri) => this.workspace.fileOf(uri),
        textOf: (file) => this.workspace.sourceOf(file)?.text,
        analysisOf: (file) => this.workspace.analysisOf(file),
      }) ?? [];
    const convert = (key: string, diagnostics: Diagnostic[]): LspDiagnostic[] => {
      const items = diagnostics.map((d) =>
        toLspDiagnostic(
          d,
          (file) => this.workspace.sourceOf(file),
          (file) => {
            const uri = this.workspace.uriOf(file);
            return uri ? (this.clientUriOf(uri) ?? uri) : undefined;
          },
        ),
      );
      const crash = result.crashes.get(key);
      if (crash !== undefined) items.push(crashDiagnostic(crash));
      return items;
    };
    const open = new Map<string, LspDiagnostic[]>();
    for (const [key, diagnostics] of result.diagnostics)
      open.set(key, [...convert(key, diagnostics), ...this.coverageHintsOf(key)]);
    const onDisk = new Map<string, LspDiagnostic[]>();
    for (const [key, diagnostics] of result.onDisk) onDisk.set(key, convert(key, diagnostics));
    return { open, onDisk, crashes: result.crashes, exploreNotes };
  }

  /**
   * The coverage hints of an open playbook (an editor-only layer, not `check`'s: lsp/README.md), when
   * `test --coverage` wrote `NAME.coverage.json` beside it.
   */
  private coverageHintsOf(key: string): LspDiagnostic[] {
    const path = pathOf(key);
    if (path === undefined || !key.startsWith('file:') || !this.isPlaybook(key)) return [];
    const analysis = this.workspace.analysisFor(key);
    const coverage = analysis && this.coverage.of(path);
    return analysis && coverage ? coverageDiagnostics(analysis, coverage) : [];
  }

  /**
   * Builds some of the symbol index of an open document's analysis, for about `budgetMs`: true once it
   * is built (or there is nothing to build), so the first hover or completion after an edit is quick.
   */
  warmUp(uri: string, budgetMs: number): boolean {
    const analysis = this.workspace.analysisFor(uri);
    return analysis ? warmSymbolIndex(analysis, budgetMs) : true;
  }

  // ---- features: an open document and a position in, LSP's answer out -------------------------

  completion(uri: string, position: Position): CompletionList | null {
    const tested = this.workspace.testAnalysisFor(uri);
    if (tested) {
      const source = tested.test.source;
      return {
        isIncomplete: false,
        items: testCompletionsAt(tested.test, tested.playbook, source.offsetAt(position)).map((entry) =>
          toCompletionItem(source, entry),
        ),
      };
    }
    return this.with(uri, null, (analysis) => ({
      isIncomplete: false,
      items: completionsAt(analysis, analysis.source.offsetAt(position)).map((entry) =>
        toCompletionItem(analysis.source, entry),
      ),
    }));
  }

  hover(uri: string, position: Position): Hover | null {
    const tested = this.workspace.testAnalysisFor(uri);
    if (tested) {
      const source = tested.test.source;
      const hover = testHoverAt(tested.test, tested.playbook, source.offsetAt(position));
      return hover ? toHover(source, hover) : null;
    }
    return this.with(uri, null, (analysis) => {
      const bounds = this.explorer?.boundsOf(analysis.file, analysis.text);
      const hover = hoverAt(analysis, analysis.source.offsetAt(position), bounds);
      return hover ? toHover(analysis.source, hover) : null;
    });
  }

  definition(uri: string, position: Position): Location | null {
    return this.with(uri, null, (analysis) => {
      const definition = definitionAt(analysis, analysis.source.offsetAt(position));
      return definition ? { uri, range: toRange(analysis.source, definition.target) } : null;
    });
  }

  references(uri: string, position: Position, includeDeclaration: boolean): Location[] {
    return this.with(uri, [], (analysis) =>
      referencesAt(analysis, analysis.source.offsetAt(position), includeDeclaration).map((range) => ({
        uri,
        range: toRange(analysis.source, range),
      })),
    );
  }

  documentHighlights(uri: string, position: Position): DocumentHighlight[] {
    return this.with(uri, [], (analysis) =>
      highlightsAt(analysis, analysis.source.offsetAt(position)).map((h) => toHighlight(analysis.source, h)),
    );
  }

  prepareRename(uri: string, position: Position): { range: Range; placeholder: string } | Refusal | null {
    return this.with(uri, null, (analysis) => {
      const result = prepareRenameAt(analysis, analysis.source.offsetAt(position));
      if (!result) return null;
      if ('error' in result) return { refused: result.error };
      return { range: toRange(analysis.source, result.range), placeholder: result.placeholder };
    });
  }

  rename(uri: string, position: Position, newName: string): WorkspaceEdit | Refusal | null {
    return this.with(uri, null, (analysis) => {
      const offset = analysis.source.offsetAt(position);
      const result = renameAt(analysis, offset, newName);
      if ('error' in result) return { refused: result.error };
      const changes: Record<string, ReturnType<typeof toTextEdit>[]> = {
        [uri]: result.edits.map((e) => toTextEdit(analysis.source, e)),
      };
      // The playbook's tests use its step, input, output and outcome names: they are renamed with it.
      const renamed = renamedName(occurrenceAt(analysis, offset)?.symbol);
      if (renamed && result.edits.length)
        for (const test of this.workspace.testsOf(analysis.file)) {
          const testAnalysis = analyzeTestFile(test.file, test.text, analysis);
          const edits = testRenameEdits(testAnalysis, renamed, newName);
          if (edits.length)
            changes[this.clientUriOf(test.uri) ?? test.uri] = edits.map((e) =>
              toTextEdit(testAnalysis.source, e),
            );
        }
      return { changes };
    });
  }

  /** The outline: nested symbols, or a flat list with container names for a client that wants one. */
  documentSymbols(uri: string, hierarchical = true): DocumentSymbol[] | SymbolInformation[] {
    return this.with(uri, [], (analysis) => {
      const symbols = documentSymbols(analysis).map((s) => toDocumentSymbol(analysis.source, s));
      return hierarchical ? symbols : flatten(uri, symbols);
    });
  }

  semanticTokens(uri: string): SemanticTokens {
    return this.with(uri, { data: [] }, (analysis) => ({
      data: encodeSemanticTokens(analysis.source, semanticTokens(analysis)),
    }));
  }

  foldingRanges(uri: string): FoldingRange[] {
    return this.with(uri, [], (analysis) =>
      foldingRanges(analysis).map((r) => toFoldingRange(analysis.source, r)),
    );
  }

  /**
   * Quick fixes for the diagnostics the client names (those of this service), else for every diagnostic
   * the range touches; none when the client asks only for kinds other than quick fixes.
   */
  codeActions(
    uri: string,
    range: Range,
    context: { diagnostics: LspDiagnostic[]; only?: string[] },
  ): CodeAction[] {
    if (context.only && !context.only.some((kind) => 'quickfix'.startsWith(kind))) return [];
    const hints = context.diagnostics.filter((d) => d.source === COVERAGE_SOURCE);
    if (hints.length) return this.with(uri, [], (analysis) => this.testActions(uri, analysis, hints));
    return this.with(uri, [], (analysis) => {
      const start = analysis.source.offsetAt(range.start);
      const end = analysis.source.offsetAt(range.end);
      const toLsp = (d: Diagnostic) =>
        toLspDiagnostic(
          d,
          () => analysis.source,
          () => uri,
        );
      const ours = context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE);
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
    });
  }

  /**
   * The code actions of coverage hints: write a test that takes the path, `NAME.test.yml` while the
   * playbook has none, else a named one (`NAME.STEP-ARM.test.yml`, SPEC §8 as docs/reference.md extends it).
   */
  private testActions(uri: string, analysis: FileAnalysis, hints: LspDiagnostic[]): CodeAction[] {
    const path = pathOf(uri);
    if (path === undefined || !uri.startsWith('file:')) return [];
    const stem = path.replace(/\.ya?ml$/i, '');
    // (a limit of 0 reads nothing: it only says whether the file is there)
    const there = (test: string) =>
      [test, test.replace(/\.yml$/, '.yaml')].some(
        (p) => this.fileSystem.readFile(p, 0, 'a playbook test').problem !== 'missing',
      );
    const hasTest = this.workspace.testsOf(analysis.file).length > 0 || there(`${stem}.test.yml`);
    return coverageActions(analysis, hints, ({ unit, arm }) => {
      const test = hasTest ? `${stem}.${testLabel(unit, arm)}.test.yml` : `${stem}.test.yml`;
      return there(test) ? undefined : test;
    });
  }

  /**
   * The edits that format an open playbook with Prettier's YAML printer and the project's options (all of
   * it, or with `range` the lines it touches); a refusal when it is not formatted (a YAML error).
   */
  async formatting(
    uri: string,
    options: PrettierOptions | null,
    range?: Range,
  ): Promise<TextEdit[] | Refusal> {
    const analysis = this.workspace.analysisFor(uri);
    if (!analysis) return [];
    const result = await formatPlaybook(analysis, options);
    if ('refused' in result) return { refused: result.refused };
    // (a selection that ends at the start of a line does not take that line)
    const lines = range && {
      first: range.start.line,
      last:
        range.end.character === 0 && range.end.line > range.start.line ? range.end.line - 1 : range.end.line,
    };
    return formattingEdits(analysis.text, result.text, lines).map((edit) =>
      toTextEdit(analysis.source, edit),
    );
  }

  /** The version of an open document the service has (undefined when it is not open). */
  versionOf(uri: string): number | undefined {
    return this.workspace.versionOf(uri);
  }

  /** The step graph of an open playbook, or its problems while it has errors (`kairoku-playbook/graph`). */
  graph(uri: string): GraphAnswer {
    if (!this.isPlaybook(uri))
      return { kind: 'none', message: 'This is a playbook test, not a playbook: it has no graph.' };
    return this.with<GraphAnswer>(
      uri,
      { kind: 'none', message: 'The language server does not have this document open.' },
      (analysis) => {
        const answer = playbookGraph(analysis);
        // the worst case of a run, once the explorer has been over this text (as the title's hover says it)
        const bounds = this.explorer?.boundsOf(analysis.file, analysis.text);
        return answer.kind === 'graph' && bounds ? { ...answer, bounds: headlineBounds(bounds) } : answer;
      },
    );
  }

  stats(): { open: number; disk: number; analyses: number; discovering: boolean } {
    return this.workspace.stats();
  }

  /** Runs a feature on an open playbook's current analysis; `empty` for any other document. */
  private with<T>(uri: string, empty: T, run: (analysis: FileAnalysis) => T): T {
    const analysis = this.workspace.analysisFor(uri);
    return analysis ? run(analysis) : empty;
  }
}

/** What a rename of a playbook's symbol renames in its tests; undefined for what tests do not name (roles). */
function renamedName(symbol: PlaybookSymbol | undefined): RenamedName | undefined {
  if (!symbol) return undefined;
  switch (symbol.kind) {
    case 'step':
    case 'after':
      return { kind: 'step', name: symbol.name, after: symbol.kind === 'after' };
    case 'input':
      return { kind: 'input', name: symbol.name };
    case 'output':
    case 'outcome':
      return symbol.owner
        ? { kind: symbol.kind, name: symbol.name, step: symbol.owner.name, after: symbol.owner.isAfter }
        : undefined;
    default:
      return undefined;
  }
}

/** The path of a URI (a file URI as the platform writes paths); undefined when it is not a URI. */
function pathOf(uri: string): string | undefined {
  try {
    if (uri.startsWith('file:')) return fileURLToPath(uri);
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return undefined;
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

/** A named test's label for the path it takes: `ship` and `reject` → `ship-reject` (letters, digits, `-`). */
function testLabel(unit: string, arm: string): string {
  const label = `${unit}-${arm}`.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
  return label.toLowerCase() === 'playbook' || label === '' ? 'path' : label;
}
