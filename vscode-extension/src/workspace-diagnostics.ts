/**
 * Whether the language client shows the diagnostics of every playbook in the workspace by itself: the
 * server says it answers `workspace/diagnostic`, and vscode-languageclient then pulls the workspace into the
 * client's own diagnostic collection, open documents or not. Check workspace must then add no collection of
 * its own (one problem, one row). No `vscode` here, so it is tested against the real server.
 */
export interface ServerAnswer {
  capabilities: { diagnosticProvider?: unknown };
}

export function clientShowsWorkspaceDiagnostics(initializeResult: ServerAnswer | undefined): boolean {
  const provider = initializeResult?.capabilities.diagnosticProvider;
  return (
    typeof provider === 'object' &&
    provider !== null &&
    (provider as { workspaceDiagnostics?: unknown }).workspaceDiagnostics === true
  );
}
