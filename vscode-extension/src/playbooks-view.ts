/**
 * The "Playbooks" view in the sidebar: the Playbooks panel (the page `kairoku-playbook serve` serves)
 * in a webview, in VS Code's theme colours, connected to the workspace's `serve`: the one already
 * running, else one started here from the bundled CLI (127.0.0.1, a free port) and stopped with the
 * extension.
 *
 * The page talks to serve only through this process (playbooks-protocol.ts): it posts a request, the
 * extension makes it with serve's bearer token and posts the answer back; serve's event stream is read
 * here and forwarded. So the token never reaches the webview (its state, its storage, its DOM), nothing
 * of it is written anywhere by the extension, and the webview needs no network (`connect-src 'none'`),
 * which also makes the view work where the webview and serve are on different machines (Remote, code-server).
 */
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import { COMMANDS, PLAYBOOKS_VIEW_ID, SETTINGS_SECTION } from './manifest.js';
import { pageMessage } from './playbooks-protocol.js';
import type { HostMessage } from './playbooks-protocol.js';
import { renderPlaybooksPage } from './playbooks-page.js';
import { EventStream, serveRequest } from './serve-client.js';
import type { ServeEvent } from './serve-client.js';
import { serveCommand } from './server-command.js';
import { defaultHome, findWorkspaceServe } from './serve-discovery.js';
import { connectServe, playbookIdOf } from './serve-process.js';
import type { ServeConnection } from './serve-process.js';

/** A run as serve lists it (`RunListItem`), as far as the extension reads it. */
export interface RunSummary {
  id: string;
  playbook: string;
  title: string;
  status: string;
  waiting: number;
  archived: boolean;
}

export interface ActiveRuns {
  /** the active (running or paused) runs of a playbook, by its id */
  activeRunsOf(playbook: string): RunSummary[];
  readonly onDidChangeRuns: vscode.Event<void>;
  /** follows the workspace's serve if one is already running (starts none) */
  watchRunningServe(): void;
}

function isRunSummary(value: unknown): value is RunSummary {
  const r = value as Partial<RunSummary> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.id === 'string' &&
    typeof r.playbook === 'string' &&
    typeof r.title === 'string' &&
    typeof r.status === 'string'
  );
}

const ACTIVE = new Set(['running', 'paused']);

export class PlaybooksView implements vscode.WebviewViewProvider, ActiveRuns, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private ready = false;
  /** host commands for a page that is not listening yet */
  private waiting: HostMessage[] = [];
  private connecting: Promise<ServeConnection> | undefined;
  private connection: ServeConnection | undefined;
  private stream: EventStream | undefined;
  private live = false;
  private liveMessage: string | undefined;
  private readonly runs = new Map<string, RunSummary>();
  private readonly runsChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeRuns = this.runsChanged.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly output: vscode.LogOutputChannel,
  ) {}

  // ---- the webview --------------------------------------------------------------------------------

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    const assets = vscode.Uri.joinPath(this.extensionUri, 'dist', 'panel');
    view.webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [assets] };
    view.webview.html = renderPlaybooksPage({
      cspSource: view.webview.cspSource,
      script: view.webview.asWebviewUri(vscode.Uri.joinPath(assets, 'panel.js')).toString(),
      style: view.webview.asWebviewUri(vscode.Uri.joinPath(assets, 'panel.css')).toString(),
    });
    view.webview.onDidReceiveMessage((message: unknown) => this.onPageMessage(message));
    view.onDidDispose(() => {
      if (this.view === view) {
        this.view = undefined;
        this.ready = false;
      }
    });
    // Not awaited: a failure is said in the page (the connection line) and the output channel.
    void this.ensureServe().catch(() => undefined);
  }

  private post(message: HostMessage): void {
    // A view being disposed rejects; the page that would have got it is gone.
    void this.view?.webview.postMessage(message).then(undefined, () => undefined);
  }

  private onPageMessage(value: unknown): void {
    const message = pageMessage(value);
    if (!message) return;
    if (message.type === 'ready') {
      this.ready = true;
      this.post({
        type: 'connection',
        live: this.live,
        ...(this.liveMessage ? { message: this.liveMessage } : {}),
      });
      for (const waiting of this.waiting.splice(0)) this.post(waiting);
      return;
    }
    const { id, method, path, body } = message;
    // Not awaited: every outcome is posted back as the answer.
    void this.request(method, path, body).then(
      (answer) => this.post({ type: 'response', id, ...answer }),
      (error: unknown) =>
        this.post({
          type: 'response',
          id,
          status: 0,
          text: error instanceof Error ? error.message : String(error),
        }),
    );
  }

  /** An API call with serve's token; once more on a fresh connection if serve has gone away. */
  private async request(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
  ): Promise<{ status: number; text: string }> {
    const connection = await this.ensureServe();
    try {
      return await serveRequest(connection, method, path, body);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNREFUSED') throw error;
      this.forget(connection, 'serve went away');
      return serveRequest(await this.ensureServe(), method, path, body);
    }
  }

  /** Reveals the view and tells its page to do something, once it listens. */
  private async showInView(message: HostMessage): Promise<void> {
    await vscode.commands.executeCommand(`${PLAYBOOKS_VIEW_ID}.focus`);
    if (this.view && this.ready) this.post(message);
    else this.waiting = [...this.waiting.filter((m) => m.type !== message.type), message];
  }

  // ---- commands -----------------------------------------------------------------------------------

  /** "Run playbook": the view with the playbook's start form open. */
  async runPlaybook(uri: vscode.Uri | undefined): Promise<void> {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!target || target.scheme !== 'file') {
      // Not awaited: the command is done once it is said; the message needs no answer.
      void vscode.window.showInformationMessage('Open a playbook file to run it.');
      return;
    }
    const folder = this.workspaceFolder();
    const id = folder ? playbookIdOf(folder, target.fsPath) : undefined;
    if (!folder || id === undefined) {
      // Not awaited: the command is done once it is said; the message needs no answer.
      void vscode.window.showErrorMessage(
        `${vscode.workspace.asRelativePath(target)} is not in the workspace folder the Playbooks view serves${folder ? ` (${folder})` : ''}.`,
      );
      return;
    }
    await this.showInView({ type: 'start-playbook', playbook: id });
  }

  /** The graph view's link: the run's tab in the view. */
  async openRun(run: unknown): Promise<void> {
    if (typeof run !== 'string' || !run) return;
    await this.showInView({ type: 'open-run', run });
  }

  // ---- serve --------------------------------------------------------------------------------------

  /** The folder serve serves: the first workspace folder. */
  private workspaceFolder(): string | undefined {
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
    return folder?.uri.fsPath;
  }

  private setLive(live: boolean, message?: string): void {
    this.live = live;
    this.liveMessage = message;
    if (this.ready) this.post({ type: 'connection', live, ...(message ? { message } : {}) });
  }

  /** The workspace's serve: the one this window follows, else a running one, else a new one. */
  ensureServe(): Promise<ServeConnection> {
    if (this.connection) return Promise.resolve(this.connection);
    this.connecting ??= (async () => {
      const workspace = this.workspaceFolder();
      if (!workspace)
        throw new Error('Open a folder: the Playbooks view serves the playbooks of a workspace folder.');
      const cli = serveCommand(
        vscode.workspace.getConfiguration(SETTINGS_SECTION).get<string>('server.path'),
        { extensionPath: this.extensionUri.fsPath, workspaceFolder: workspace, home: homedir() },
      );
      const connection = await connectServe({
        ...(cli.kind === 'module' ? { cli: cli.module } : { cli: cli.command, executable: true }),
        workspace,
        home: defaultHome(),
        log: (line) => this.output.info(`serve: ${line}`),
      });
      this.follow(connection);
      return connection;
    })().then(
      (connection) => {
        this.connecting = undefined;
        return connection;
      },
      (error: unknown) => {
        this.connecting = undefined;
        const message = `The Playbooks view could not start kairoku-playbook serve: ${error instanceof Error ? error.message : String(error)}`;
        this.output.error(message);
        this.setLive(false, message);
        throw error;
      },
    );
    return this.connecting;
  }

  watchRunningServe(): void {
    if (this.connection || this.connecting) return;
    const workspace = this.workspaceFolder();
    if (!workspace) return;
    let real: string;
    try {
      real = realpathSync(workspace);
    } catch {
      return;
    }
    // Only a serve that is up: the graph view starts none.
    if (findWorkspaceServe(defaultHome(), real)) void this.ensureServe().catch(() => undefined);
  }

  private follow(connection: ServeConnection): void {
    this.connection = connection;
    this.output.info(
      connection.started
        ? `Started kairoku-playbook serve for ${connection.workspace} (process ${connection.pid}, ${connection.url})`
        : `Using the running kairoku-playbook serve of ${connection.workspace} (process ${connection.pid}, ${connection.url})`,
    );
    connection.onExit((why) => {
      this.output.warn(why);
      this.forget(connection, why);
    });
    this.stream = new EventStream(connection, {
      onEvent: (event) => this.onServeEvent(event),
      onConnection: (live, why) => {
        this.setLive(live, why);
        // loadRuns says its own failure in the output channel
        if (live) void this.loadRuns(connection);
        // A serve found running that has gone (its stream cannot reconnect): look again next time.
        else if (!connection.started && !findWorkspaceServe(defaultHome(), connection.workspace))
          this.forget(connection, why ?? 'serve went away');
      },
    });
  }

  private forget(connection: ServeConnection, why: string): void {
    if (this.connection !== connection) return;
    this.connection = undefined;
    this.stream?.close();
    this.stream = undefined;
    this.runs.clear();
    this.runsChanged.fire();
    this.setLive(false, why);
  }

  private onServeEvent(event: ServeEvent): void {
    this.post({ type: 'event', event: event.event, data: event.data });
    if (event.event === 'run') {
      try {
        const run: unknown = JSON.parse(event.data);
        if (isRunSummary(run)) {
          this.runs.set(run.id, run);
          this.runsChanged.fire();
        }
      } catch {
        // not a run: nothing for the graph view
      }
    } else if (event.event === 'reset' && this.connection) {
      // loadRuns says its own failure in the output channel
      void this.loadRuns(this.connection);
    }
  }

  /** The active runs, for the graph view's links (the page loads its own list). */
  private async loadRuns(connection: ServeConnection): Promise<void> {
    try {
      const answer = await serveRequest(connection, 'GET', '/runs?status=active');
      const runs = (JSON.parse(answer.text) as { runs?: unknown }).runs;
      if (answer.status !== 200 || !Array.isArray(runs) || this.connection !== connection) return;
      this.runs.clear();
      for (const run of runs) if (isRunSummary(run)) this.runs.set(run.id, run);
      this.runsChanged.fire();
    } catch (error) {
      this.output.warn(`Could not list the runs: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  activeRunsOf(playbook: string): RunSummary[] {
    return [...this.runs.values()].filter(
      (r) => r.playbook === playbook && ACTIVE.has(r.status) && !r.archived,
    );
  }

  // ---- the end ------------------------------------------------------------------------------------

  /** Stops a serve this window started (the runs stay on disk; the next serve takes them up). */
  async stop(): Promise<void> {
    const connection = this.connection ?? (await this.connecting?.catch(() => undefined));
    this.stream?.close();
    this.stream = undefined;
    this.connection = undefined;
    if (connection?.started) {
      this.output.info(`Stopping kairoku-playbook serve (process ${connection.pid})`);
      await connection.stop();
    }
  }

  dispose(): void {
    // deactivate awaits stop(); this is the synchronous part for the subscriptions.
    this.stream?.close();
    this.runsChanged.dispose();
  }
}

/** "▶ Run playbook" above the first line of a playbook on disk. */
export class RunPlaybookLens implements vscode.CodeLensProvider {
  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (document.uri.scheme !== 'file') return [];
    return [
      new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), {
        title: '$(play) Run playbook',
        tooltip: 'Open the Playbooks view with the start form of this playbook',
        command: COMMANDS.runPlaybook,
        arguments: [document.uri],
      }),
    ];
  }
}
