/**
 * "Kairoku Playbooks: Show playbook graph": a webview beside the editor drawing the active playbook's
 * graph, as the language server gives it (`kairoku-playbook/graph`: the same compiler and analysis as
 * the diagnostics), drawn by graph-page.ts (pure) with the panel's one step graph (dist/panel/graph.js). It follows the active playbook editor, redraws on
 * change (after the validation delay) and on save, and a click on a step reveals it in the playbook.
 * While the workspace's `serve` drives a run of the playbook, the view links to it in the Playbooks view.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { ErrorCodes, ResponseError } from 'vscode-languageclient/node';
import type { LanguageClient } from 'vscode-languageclient/node';
import { COMMANDS, LANGUAGE_ID } from './manifest.js';
import { renderGraphPage } from './graph-page.js';
import type { PlaybookPage } from './graph-page.js';
import { GRAPH_REQUEST } from '@kairoku-playbook/protocol';
import type { GraphAnswer } from '@kairoku-playbook/protocol';
import { isGraphAnswer } from './graph-protocol.js';
import { renderMessageHtml } from './graph-view.js';
import type { GraphViewAssets } from './graph-view.js';
import type { ActiveRuns } from './playbooks-view.js';

export const GRAPH_VIEW_TYPE = 'kairokuPlaybook.graph';

interface RevealMessage {
  type: 'reveal';
  line: number;
  column: number;
}

function isOpenRunMessage(message: unknown): message is { type: 'open-run'; run: string } {
  const m = message as { type?: unknown; run?: unknown } | null;
  return typeof m === 'object' && m !== null && m.type === 'open-run' && typeof m.run === 'string';
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

/** A document of the playbook language (the server answers for a playbook test that it has no graph). */
export function isPlaybookDocument(document: vscode.TextDocument): boolean {
  return document.languageId === LANGUAGE_ID;
}

export class GraphPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private document: vscode.TextDocument | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private html = '';
  /** bumped by every render: the answer to an older one is dropped */
  private renders = 0;
  private readonly nonce = randomBytes(18).toString('base64');
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly client: () => Promise<LanguageClient>,
    private readonly delay: () => number,
    private readonly runs?: ActiveRuns,
  ) {
    if (runs)
      this.subscriptions.push(
        // render shows its own failures in the panel
        runs.onDidChangeRuns(() => void (this.panel && this.render())),
      );
    this.subscriptions.push(
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (!this.panel || !editor || !isPlaybookDocument(editor.document)) return;
        if (editor.document === this.document) return;
        this.document = editor.document;
        // Listeners cannot wait; render shows its own failures in the panel (here and below).
        void this.render();
      }),
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (this.panel && event.document === this.document && event.contentChanges.length) this.schedule();
      }),
      // The server's diagnostics of the document came: its analysis (and the explorer's bounds, which the
      // graph view says) are of the current text now. The page is set again only if it changed.
      vscode.languages.onDidChangeDiagnostics((event) => {
        const shown = this.document?.uri.toString();
        // render shows its own failures in the panel
        if (this.panel && shown && event.uris.some((uri) => uri.toString() === shown)) void this.render();
      }),
      vscode.workspace.onDidSaveTextDocument((document) => {
        // render shows its own failures in the panel
        if (this.panel && document === this.document) void this.render();
      }),
      vscode.workspace.onDidCloseTextDocument((document) => {
        if (document !== this.document) return;
        this.document = undefined;
        // render shows its own failures in the panel
        void this.render();
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
        {
          enableScripts: true,
          enableCommandUris: false,
          // the panel's graph.js and graph.css, and nothing else of the disk
          localResourceRoots: [this.assetsFolder()],
          enableFindWidget: true,
        },
      );
      this.panel.onDidDispose(() => {
        this.panel = undefined;
        this.html = '';
        if (this.timer) clearTimeout(this.timer);
      });
      this.panel.webview.onDidReceiveMessage((message: unknown) => {
        // A listener cannot wait; a failure to reveal leaves the editor as it was, not worth a message.
        if (isRevealMessage(message)) void this.reveal(message.line, message.column).catch(() => undefined);
        // The command says its own failures.
        else if (isOpenRunMessage(message))
          void vscode.commands.executeCommand(COMMANDS.openRun, message.run);
      });
    } else {
      this.panel.reveal(undefined, true);
    }
    this.runs?.watchRunningServe();
    // Not awaited: the command returns once the panel is open; render shows its own failures in it.
    void this.render();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    // A timer cannot wait; render shows its own failures in the panel.
    this.timer = setTimeout(() => void this.render(), this.delay());
  }

  /** dist/panel/ of the extension: the panel's graph.js and graph.css, which draw the graph. */
  private assetsFolder(): vscode.Uri {
    return vscode.Uri.joinPath(this.extensionUri, 'dist', 'panel');
  }

  private pageOptions(webview: vscode.Webview): { nonce: string; assets: GraphViewAssets } {
    const asset = (name: string) =>
      webview.asWebviewUri(vscode.Uri.joinPath(this.assetsFolder(), name)).toString();
    return {
      nonce: this.nonce,
      assets: { cspSource: webview.cspSource, script: asset('graph.js'), style: asset('graph.css') },
    };
  }

  private async render(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const panel = this.panel;
    if (!panel) return;
    const render = ++this.renders;
    const document = this.document;
    const options = this.pageOptions(panel.webview);
    let html: string;
    if (!document) {
      panel.title = 'Playbook graph';
      html = renderMessageHtml('Open a playbook (a Kairoku Playbook file) to see its graph.', options);
    } else {
      const file = document.isUntitled
        ? document.fileName
        : vscode.workspace.asRelativePath(document.uri, false);
      let page: PlaybookPage | string;
      try {
        const answer = await this.graphOf(document);
        const runs = answer.kind === 'graph' ? this.runs?.activeRunsOf(answer.id) : undefined;
        page = renderGraphPage(answer, { ...options, file, ...(runs ? { runs } : {}) });
      } catch (error) {
        page = `The graph could not be drawn: ${error instanceof Error ? error.message : String(error)}`;
      }
      // A newer render (an edit, another editor) or a closed panel: this answer is out of date.
      if (render !== this.renders || panel !== this.panel) return;
      if (typeof page === 'string') {
        html = renderMessageHtml(page, options);
      } else {
        html = page.html;
        panel.title = `Graph: ${file.split('/').pop() ?? file}${page.errors ? ` (${page.errors} error${page.errors === 1 ? '' : 's'})` : ''}`;
      }
    }
    if (html === this.html) return;
    this.html = html;
    panel.webview.html = html;
  }

  /** The server's graph of the document's current text (the client sends the text before the request). */
  private async graphOf(document: vscode.TextDocument): Promise<GraphAnswer> {
    const client = await this.client();
    try {
      const answer: unknown = await client.sendRequest(GRAPH_REQUEST, {
        textDocument: { uri: client.code2ProtocolConverter.asUri(document.uri) },
      });
      if (!isGraphAnswer(answer)) throw new Error(`the language server's answer is not a graph`);
      return answer;
    } catch (error) {
      if (error instanceof ResponseError && error.code === ErrorCodes.MethodNotFound)
        throw new Error(
          'the language server does not draw graphs: kairokuPlaybook.server.path names a CLI older than the extension',
          { cause: error },
        );
      throw error;
    }
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
