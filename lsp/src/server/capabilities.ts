/** What the server tells a client it can do (`initialize`'s answer). */
import { TextDocumentSyncKind } from 'vscode-languageserver/node';
import type { InitializeResult } from 'vscode-languageserver/node';
import { DIAGNOSTIC_SOURCE, SEMANTIC_TOKENS_LEGEND } from '../service/convert.js';

/** Completion triggers: where a name, a key or a value starts. */
export const COMPLETION_TRIGGERS = ['.', "'", '"', '[', ',', ' ', '{', '('];

/** The capabilities; pull diagnostics (document and workspace) for a client that pulls, else pushed. */
export function serverCapabilities(pullDiagnostics: boolean): InitializeResult {
  const result: InitializeResult = {
    capabilities: {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
      completionProvider: { triggerCharacters: [...COMPLETION_TRIGGERS] },
      hoverProvider: true,
      definitionProvider: true,
      referencesProvider: true,
      documentHighlightProvider: true,
      renameProvider: { prepareProvider: true },
      documentSymbolProvider: true,
      semanticTokensProvider: { legend: SEMANTIC_TOKENS_LEGEND, full: true },
      codeActionProvider: { codeActionKinds: ['quickfix'] },
      foldingRangeProvider: true,
      documentFormattingProvider: true,
      documentRangeFormattingProvider: true,
      workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
    },
    serverInfo: { name: 'kairoku-playbook' },
  };
  if (pullDiagnostics) {
    result.capabilities.diagnosticProvider = {
      identifier: DIAGNOSTIC_SOURCE,
      interFileDependencies: true,
      workspaceDiagnostics: true,
    };
  }
  return result;
}
