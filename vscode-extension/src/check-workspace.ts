/**
 * "Kairoku Playbooks: Check workspace": every playbook `kairoku-playbook check` would discover, checked by
 * the language server, in the Problems panel.
 *
 * The command opens each discovered playbook as a document (not in an editor: the server gets `didOpen`)
 * and pulls its diagnostics with `textDocument/diagnostic`, to count them for its summary.
 *
 * Where they are shown depends on the server. One that answers `workspace/diagnostic` (the bundled one:
 * `workspaceDiagnostics` in its capabilities) has the client pull every playbook of the workspace into the
 * client's own collection, open or not: the command then shows nothing itself, since a second collection
 * would list each problem twice (the Problems badge said 14 for 7 whenever the file was not open). An
 * older server (`kairokuPlaybook.server.path`) reports only open documents, and the client pulls only
 * visible ones: the command's own collection then holds those of documents without an editor, each
 * dropped as soon as its document is shown or edited (the client takes over).
 */
import * as vscode from 'vscode';
import {
  DocumentDiagnosticReportKind,
  DocumentDiagnosticRequest,
  ErrorCodes,
  ResponseError,
} from 'vscode-languageclient/node';
import type { LanguageClient } from 'vscode-languageclient/node';
import { PLAYBOOK_FILES_REQUEST } from '@kairoku-playbook/protocol';
import { clientShowsWorkspaceDiagnostics } from './workspace-diagnostics.js';
import { LANGUAGE_ID } from './manifest.js';
import { PLAYBOOK_GLOB, SKIPPED_GLOB } from './playbook-files.js';

/** As many as the server discovers. */
const MAX_PLAYBOOKS = 10_000;

export interface CheckSummary {
  files: number;
  errors: number;
  warnings: number;
  /** discovered playbooks VS Code opened in another language (a `files.associations` override) */
  skipped: string[];
}

function visibleUris(): Set<string> {
  const uris = new Set<string>();
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      const input = tab.input;
      if (input instanceof vscode.TabInputText) uris.add(input.uri.toString());
      else if (input instanceof vscode.TabInputTextDiff) {
        uris.add(input.modified.toString());
        uris.add(input.original.toString());
      }
    }
  }
  return uris;
}

/** The files among `found` that are playbooks, as the server (and `check`) tells them. */
async function playbooksAmong(client: LanguageClient, found: readonly vscode.Uri[]): Promise<vscode.Uri[]> {
  const byUri = new Map(found.map((uri) => [client.code2ProtocolConverter.asUri(uri), uri]));
  let playbooks: unknown;
  try {
    playbooks = await client.sendRequest(PLAYBOOK_FILES_REQUEST, { uris: [...byUri.keys()] });
  } catch (error) {
    // A CLI older than the request (kairokuPlaybook.server.path): every file found, playbook tests too.
    if (error instanceof ResponseError && error.code === ErrorCodes.MethodNotFound) return [...found];
    throw error;
  }
  if (!Array.isArray(playbooks)) throw new Error(`the language server's list of playbooks is not a list`);
  return playbooks.flatMap((uri) => (typeof uri === 'string' && byUri.has(uri) ? [byUri.get(uri)!] : []));
}

export class WorkspaceCheck implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('kairoku-playbook-workspace');
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly client: () => Promise<LanguageClient>) {
    this.subscriptions.push(
      vscode.window.tabGroups.onDidChangeTabs(() => this.dropVisible()),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length) this.collection.delete(event.document.uri);
      }),
      vscode.workspace.onDidDeleteFiles((event) => event.files.forEach((uri) => this.collection.delete(uri))),
    );
  }

  private dropVisible(): void {
    const visible = visibleUris();
    this.collection.forEach((uri) => {
      if (visible.has(uri.toString())) this.collection.delete(uri);
    });
  }

  /** Discovers, opens and pulls; undefined when cancelled. */
  async check(
    token: vscode.CancellationToken,
    report: (message: string) => void,
  ): Promise<CheckSummary | undefined> {
    const client = await this.client();
    const found = await vscode.workspace.findFiles(PLAYBOOK_GLOB, SKIPPED_GLOB, MAX_PLAYBOOKS, token);
    const uris = (await playbooksAmong(client, found)).sort((a, b) =>
      a.toString() < b.toString() ? -1 : a.toString() > b.toString() ? 1 : 0,
    );
    report(`${uris.length} playbook${uris.length === 1 ? '' : 's'}`);
    const documents: vscode.TextDocument[] = [];
    const skipped: string[] = [];
    for (const uri of uris) {
      if (token.isCancellationRequested) return undefined;
      const document = await vscode.workspace.openTextDocument(uri);
      if (document.languageId === LANGUAGE_ID) documents.push(document);
      else skipped.push(vscode.workspace.asRelativePath(uri));
    }
    // The open notifications go out as the documents open; let them leave before the first pull.
    await new Promise((resolve) => setTimeout(resolve, 0));

    // With workspace diagnostics the client's collection already lists every playbook: count, show nothing.
    const shownByClient = clientShowsWorkspaceDiagnostics(client.initializeResult);
    const visible = visibleUris();
    const summary: CheckSummary = { files: documents.length, errors: 0, warnings: 0, skipped };
    const entries: [vscode.Uri, vscode.Diagnostic[]][] = [];
    for (const document of documents) {
      if (token.isCancellationRequested) return undefined;
      const result = await client.sendRequest(
        DocumentDiagnosticRequest.type,
        { textDocument: { uri: client.code2ProtocolConverter.asUri(document.uri) } },
        token,
      );
      const items = result.kind === DocumentDiagnosticReportKind.Full ? result.items : [];
      summary.errors += items.filter((d) => d.severity === 1).length;
      summary.warnings += items.filter((d) => d.severity === 2).length;
      if (shownByClient || visible.has(document.uri.toString())) continue;
      entries.push([document.uri, await client.protocol2CodeConverter.asDiagnostics(items, token)]);
    }
    this.collection.clear();
    this.collection.set(entries);
    return summary;
  }

  async run(): Promise<void> {
    const summary = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: 'Kairoku Playbooks: checking the workspace',
        cancellable: true,
      },
      (progress, token) => this.check(token, (message) => progress.report({ message })),
    );
    if (!summary) return;
    await vscode.commands.executeCommand('workbench.actions.view.problems');
    const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
    let message = `Checked ${plural(summary.files, 'playbook')}: ${plural(summary.errors, 'error')}, ${plural(summary.warnings, 'warning')}.`;
    if (summary.skipped.length)
      message += ` Not checked (not in the Kairoku Playbook language): ${summary.skipped.join(', ')}.`;
    // Not awaited: a message resolves only when the person dismisses it, and the check is over.
    if (summary.errors) void vscode.window.showWarningMessage(message);
    else void vscode.window.showInformationMessage(message);
  }

  dispose(): void {
    this.subscriptions.forEach((s) => s.dispose());
    this.collection.dispose();
  }
}
