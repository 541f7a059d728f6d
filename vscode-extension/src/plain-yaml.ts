/**
 * Leaves an Ansible playbook plain YAML (SPEC §2). The language's file associations can only say "every
 * *.yml directly in a playbooks/ folder", and a glob cannot look inside a file; a bare playbooks/ folder
 * is where Ansible keeps its playbooks, lists of plays. So a document opened in the playbook language from
 * such a folder is asked about (`kairoku-playbook/playbookFiles`, the server's rule, the one `check`
 * follows), and one the server says is not a playbook is switched to YAML with
 * `setTextDocumentLanguage`. Once per document and session: a person who then picks the playbook
 * language for it keeps it.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { PLAYBOOK_FILES_REQUEST } from '@kairoku-playbook/protocol';
import { LANGUAGE_ID } from './manifest.js';
import { inBarePlaybooksFolder } from './playbook-files.js';

export class PlainYaml implements vscode.Disposable {
  /** documents switched to YAML this session (never switched twice) */
  private readonly switched = new Set<string>();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly client: () => Promise<LanguageClient>,
    private readonly log: (line: string) => void,
  ) {
    // Not awaited: a listener cannot wait, and `consider` catches its own failures (a line in the log).
    this.subscription = vscode.workspace.onDidOpenTextDocument((document) => void this.consider(document));
    // Not awaited either: activation does not wait for the server's answer; failures are logged.
    for (const document of vscode.workspace.textDocuments) void this.consider(document);
  }

  /** Switches a document to YAML when the server says it is not a playbook. */
  async consider(document: vscode.TextDocument): Promise<void> {
    const key = document.uri.toString();
    if (
      document.languageId !== LANGUAGE_ID ||
      document.uri.scheme !== 'file' ||
      !inBarePlaybooksFolder(document.uri.fsPath) ||
      this.switched.has(key)
    )
      return;
    try {
      const client = await this.client();
      const answer: unknown = await client.sendRequest(PLAYBOOK_FILES_REQUEST, {
        uris: [client.code2ProtocolConverter.asUri(document.uri)],
      });
      // (an older server, a server path of the user's, may not know the request: the document stays)
      if (!Array.isArray(answer) || answer.length > 0 || document.isClosed || this.switched.has(key)) return;
      this.switched.add(key);
      await vscode.languages.setTextDocumentLanguage(document, 'yaml');
    } catch (error) {
      this.log(`not deciding whether ${document.uri.fsPath} is a playbook: ${String(error)}`);
    }
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
