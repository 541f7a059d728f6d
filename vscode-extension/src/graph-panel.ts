/**
 * "Kairoku Playbooks: Show playbook graph": a webview beside the editor drawing the active playbook's
 * graph (graph-page.ts, pure). It follows the active playbook editor, redraws on change (after the
 * validation delay) and on save, and a click on a step reveals it in the playbook.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { LANGUAGE_ID } from './manifest.js';
import { renderPlaybookPage } from './graph-page.js';
import { renderMessageHtml } from './graph-view.js';
import { isPlaybookTestPath } from './playbook-files.js';

export const GRAPH_VIEW_TYPE = 'kairokuPlaybook.graph';

interface RevealMessage {
  type: 'reveal';
  line: number;
  column: number;
}

function isRevealMessage(message: unknown): message is RevealMessage {
  const m = message as Partial<RevealMessage> | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    m.type === 'reveal' &&
    Number.isInteger(m.line) &&
    Number.isInteger(m.column)
  );
}

export function isPlaybookDocument(document: vscode.TextDocument): boolean {
  return document.languageId === LANGUAGE_ID && !isPlaybookTestPath(document.uri.path);
}

export class GraphPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private document: vscode.TextDocument | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private html = '';
  private readonly nonce = randomBytes(18).toString('base64');
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly delay: () => number) {
    this.subscriptions.push(
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (!this.panel || !editor || !isPlaybookDocument(editor.document)) return;
        if (editor.document === this.document) return;
        this.document = editor.document;
        this.render();
      }),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (this.panel && event.document === this.document && event.contentChanges.length) this.schedule();
      }),
      vscode.workspace.onDidSaveTextDocument((document) => {
        if (this.panel && document === this.document) this.render();
      }),
      vscode.workspace.onDidCloseTextDocument((document) => {
        if (document !== this.document) return;
        this.document = undefined;
        this.render();
      }),
    );
  }

  /** Opens (or reveals) the panel on a playbook: the given one, else the active editor's. */
  show(document = vscode.window.activeTextEditor?.document): void {
    if (document && isPlaybookDocument(document)) this.document = document;
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        GRAPH_VIEW_TYPE,
        'Playbook graph',
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: true, enableCommandUris: false, localResourceRoots: [], enableFindWidget: true },
      );
      this.panel.onDidDispose(() => {
        this.panel = undefined;
        this.html = '';
        if (this.timer) clearTimeout(this.timer);
      });
      this.panel.webview.onDidReceiveMessage((message: unknown) => {
        if (isRevealMessage(message)) void this.reveal(message.line, message.column);
      });
    } else {
      this.panel.reveal(undefined, true);
    }
    this.render();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.render(), this.delay());
  }

  private render(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const panel = this.panel;
    if (!panel) return;
    const document = this.document;
    let html: string;
    if (!document) {
      panel.title = 'Playbook graph';
      html = renderMessageHtml('Open a playbook (a Kairoku Playbook file) to see its graph.', {
        nonce: this.nonce,
      });
    } else {
      const file = document.isUntitled
        ? document.fileName
        : vscode.workspace.asRelativePath(document.uri, false);
      try {
        const page = renderPlaybookPage(file, document.getText(), { nonce: this.nonce });
        html = page.html;
        panel.title = `Graph: ${file.split('/').pop() ?? file}${page.errors ? ` (${page.errors} error${page.errors === 1 ? '' : 's'})` : ''}`;
      } catch (error) {
        html = renderMessageHtml(
          `The graph could not be drawn: ${error instanceof Error ? error.message : String(error)}`,
          { nonce: this.nonce },
        );
      }
    }
    if (html === this.html) return;
    this.html = html;
    panel.webview.html = html;
  }

  private async reveal(line: number, column: number): Promise<void> {
    const document = this.document;
    if (!document) return;
    const position = new vscode.Position(Math.max(0, line - 1), Math.max(0, column - 1));
    const shown = vscode.window.visibleTextEditors.find((editor) => editor.document === document);
    await vscode.window.showTextDocument(document, {
      viewColumn: shown?.viewColumn ?? vscode.ViewColumn.One,
      selection: new vscode.Range(position, position),
    });
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.subscriptions.forEach((s) => s.dispose());
    this.panel?.dispose();
  }
}
