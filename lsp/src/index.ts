/**
 * `@kairoku-playbook/lsp`: the playbook language server (`startServer`, `serveStdio`) and the language
 * service it answers with (`PlaybookLanguageService`: documents in, LSP answers out, no connection), whose
 * features are also pure functions over a compiler `FileAnalysis` and UTF-16 offsets.
 */
export const LSP_VERSION = 1;

export { serveStdio, startServer } from './server/server.js';
export type { ServerOptions } from './server/playbook-server.js';
export { GRAPH_REQUEST, PLAYBOOK_FILES_REQUEST, STATS_REQUEST } from './server/custom-requests.js';
export type { GraphParams, PlaybookFilesParams, ServerStats } from './server/custom-requests.js';
export { MAX_MESSAGE_BYTES } from './server/protocol/framing.js';
export { nodeFileSystem } from './server/node-file-system.js';
export { prettierOptionsForPath } from './server/prettier-config.js';

export { PlaybookLanguageService, isRefusal } from './service/language-service.js';
export type { DiagnosticsOfWorkspace, Refusal, WatchedFileChange } from './service/language-service.js';
export { PlaybookWorkspace } from './service/workspace/playbook-workspace.js';
export type {
  DiscoveryWalk,
  WorkspaceFolder,
  WorkspaceValidation,
} from './service/workspace/playbook-workspace.js';
export { discoverPlaybooks, isPlaybookPath } from './service/workspace/discovery.js';
export type { PlaybookFileSystem } from './service/workspace/file-system.js';

export { completionsAt } from './service/features/completion.js';
export type { CompletionEntry, CompletionKind } from './service/features/completion.js';
export { hoverAt } from './service/features/hover.js';
export type { HoverResult } from './service/features/hover.js';
export { definitionAt } from './service/features/definition.js';
export type { DefinitionResult } from './service/features/definition.js';
export { referencesAt } from './service/features/references.js';
export { highlightsAt } from './service/features/document-highlights.js';
export type { Highlight } from './service/features/document-highlights.js';
export { prepareRenameAt, renameAt } from './service/features/rename.js';
export type { PrepareRenameResult, RenameResult } from './service/features/rename.js';
export { documentSymbols } from './service/features/document-symbols.js';
export type { OutlineKind, OutlineSymbol } from './service/features/document-symbols.js';
export { semanticTokens, TOKEN_MODIFIERS, TOKEN_TYPES } from './service/features/semantic-tokens.js';
export type { SemanticToken } from './service/features/semantic-tokens.js';
export { codeActionsFor } from './service/features/code-actions.js';
export type { CodeActionResult } from './service/features/code-actions.js';
export { foldingRanges } from './service/features/folding-ranges.js';
export { formatPlaybook, formatYaml } from './service/features/formatting.js';
export type { Formatted, PrettierOptions } from './service/features/formatting.js';
export type { FoldingRangeResult } from './service/features/folding-ranges.js';
export { playbookGraph } from './service/features/graph.js';
// (the graph answer's types and request names are the protocol's, re-exported for the package's users)
export { LISTED_PROBLEMS } from '@kairoku-playbook/protocol';
export type {
  GraphAfterTask,
  GraphAnswer,
  GraphEdge,
  GraphLoop,
  GraphOutcome,
  GraphProblem,
  GraphStep,
  NoGraph,
  PlaybookGraph,
  PlaybookProblems,
} from '@kairoku-playbook/protocol';
export type { OffsetEdit } from './service/language/types.js';
