/**
 * `@kairoku-playbook/lsp`: the playbook language server (`startServer`) and its features as pure
 * functions over a compiler `FileAnalysis` and UTF-16 offsets, usable without a connection.
 */
export const LSP_VERSION = 1;

export { serveStdio, startServer, STATS_REQUEST } from './server.js';
export { MAX_MESSAGE_BYTES } from './protocol/framing.js';
export type { ServerOptions, ServerStats } from './server.js';
export { PlaybookWorkspace } from './workspace/playbook-workspace.js';
export type { WorkspaceFolder, WorkspaceValidation } from './workspace/playbook-workspace.js';
export { discoverPlaybooks, isPlaybookPath } from './workspace/discovery.js';
export type { PlaybookFileSystem } from './workspace/file-system.js';

export { completionsAt } from './features/completion.js';
export type { CompletionEntry, CompletionKind } from './features/completion.js';
export { hoverAt } from './features/hover.js';
export type { HoverResult } from './features/hover.js';
export { definitionAt } from './features/definition.js';
export type { DefinitionResult } from './features/definition.js';
export { referencesAt } from './features/references.js';
export { highlightsAt } from './features/document-highlights.js';
export type { Highlight } from './features/document-highlights.js';
export { prepareRenameAt, renameAt } from './features/rename.js';
export type { PrepareRenameResult, RenameResult } from './features/rename.js';
export { documentSymbols } from './features/document-symbols.js';
export type { OutlineKind, OutlineSymbol } from './features/document-symbols.js';
export { semanticTokens, TOKEN_MODIFIERS, TOKEN_TYPES } from './features/semantic-tokens.js';
export type { SemanticToken } from './features/semantic-tokens.js';
export { codeActionsFor } from './features/code-actions.js';
export type { CodeActionResult } from './features/code-actions.js';
export { foldingRanges } from './features/folding-ranges.js';
export type { FoldingRangeResult } from './features/folding-ranges.js';
export type { OffsetEdit } from './language/types.js';
