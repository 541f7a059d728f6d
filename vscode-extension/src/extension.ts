/**
 * The Kairoku Playbooks extension: the playbook language server for `kairoku-playbook` documents
 * (diagnostics exactly those of `kairoku-playbook check`, completion, hover, navigation, rename, outline,
 * semantic highlighting, quick fixes), "Check workspace", the playbook graph, and the Playbooks view
 * (the panel of `kairoku-playbook serve`, with "Run playbook" on an open playbook).
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { CLIENT_NAME, createClient, validationDelay } from './client.js';
import { WorkspaceCheck } from './check-workspace.js';
import { COMMANDS, LANGUAGE_ID, PLAYBOOKS_VIEW_ID, SETTINGS } from './manifest.js';
import { GraphPanel } from './graph-panel.js';
import { PlaybooksView, RunPlaybookLens } from './playbooks-view.js';
import { PlainYaml } from './plain-yaml.js';

let client: LanguageClient | undefined;
let starting: Promise<LanguageClient> | undefined;
let playbooks: PlaybooksView | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel(CLIENT_NAME, { log: true });
  // Every YAML file: playbooks on disk take part in the duplicate-id check (PB110).
  // And each workspace's `.kairoku/exclude`: what it names is not a playbook, so a change re-discovers.
  // And `NAME.coverage.json`, which `test --coverage` writes beside a playbook: its coverage hints.
  const watcher = [
    vscode.workspace.createFileSystemWatcher('**/*.{yml,yaml}'),
    vscode.workspace.createFileSystemWatcher('**/.kairoku/exclude'),
    vscode.workspace.createFileSystemWatcher('**/*.coverage.json'),
  ];
  context.subscriptions.push(output, ...watcher);

  /** The running client, started (again) when needed. */
  const ensureClient = (): Promise<LanguageClient> => {
    if (client?.isRunning()) return Promise.resolve(client);
    starting ??= (async () => {
      const created = client ?? createClient(context, output, watcher);
      client = created;
      try {
        await created.start();
        return created;
      } catch (error) {
        if (client === created) client = undefined;
        await created.dispose().catch(() => undefined);
        throw error;
      } finally {
        starting = undefined;
      }
    })();
    return starting;
  };

  const restart = async () => {
    const previous = client;
    client = undefined;
    if (previous)
      await previous.dispose().catch((error) => output.error(`stopping the server: ${String(error)}`));
    await ensureClient();
  };

  const check = new WorkspaceCheck(ensureClient);
  const view = new PlaybooksView(context.extensionUri, output);
  playbooks = view;
  // An Ansible playbook in a bare playbooks/ folder stays plain YAML (SPEC §2).
  context.subscriptions.push(new PlainYaml(ensureClient, (line) => output.warn(line)));
  const graph = new GraphPanel(context.extensionUri, ensureClient, validationDelay, view);
  context.subscriptions.push(
    check,
    graph,
    view,
    vscode.window.registerWebviewViewProvider(PLAYBOOKS_VIEW_ID, view, {
      // The open run, a half-filled start form and the tabs survive the view being hidden.
      webviewOptions: { retainContextWhenHidden: true },
    }),
    ...commandsOf(view, check, graph, restart),
    restartOnSettings(restart, output),
  );

  await ensureClient().catch((error: unknown) => sayNotStarted(error, output));
}

export async function deactivate(): Promise<void> {
  const previous = client;
  client = undefined;
  const view = playbooks;
  playbooks = undefined;
  // The serve this window started stops with it; its runs stay on disk for the next one.
  await Promise.all([previous?.dispose(), view?.stop()]);
}

/** The extension's commands and its Run lens: each a thin call into the part that does it. */
function commandsOf(
  view: PlaybooksView,
  check: WorkspaceCheck,
  graph: GraphPanel,
  restart: () => Promise<void>,
): vscode.Disposable[] {
  return [
    vscode.languages.registerCodeLensProvider(
      { language: LANGUAGE_ID, scheme: 'file' },
      new RunPlaybookLens(),
    ),
    vscode.commands.registerCommand(COMMANDS.runPlaybook, (uri?: unknown) =>
      view.runPlaybook(uri instanceof vscode.Uri ? uri : undefined),
    ),
    vscode.commands.registerCommand(COMMANDS.openRun, (run?: unknown) => view.openRun(run)),
    vscode.commands.registerCommand(COMMANDS.checkWorkspace, () => check.run()),
    vscode.commands.registerCommand(COMMANDS.showGraph, (uri?: vscode.Uri) => {
      const document =
        uri instanceof vscode.Uri
          ? vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString())
          : undefined;
      graph.show(document);
    }),
    vscode.commands.registerCommand(COMMANDS.restartServer, restart),
  ];
}

/** A change of the server's path, the validation delay or exploring restarts the server. */
function restartOnSettings(restart: () => Promise<void>, output: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((event) => {
    if (
      event.affectsConfiguration(SETTINGS.serverPath) ||
      event.affectsConfiguration(SETTINGS.validationDelay) ||
      event.affectsConfiguration(SETTINGS.explore)
    )
      // A listener cannot wait; a server that does not start again is said in the output channel.
      void restart().catch((error: unknown) =>
        output.error(
          `The playbook language server did not restart: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
  });
}

/** The server did not start: said in the output channel and in a message with a way to the settings. */
function sayNotStarted(error: unknown, output: vscode.LogOutputChannel): void {
  const message = `The playbook language server did not start: ${error instanceof Error ? error.message : String(error)}`;
  output.error(message);
  // Not awaited: activation must not wait for the person to dismiss the message; the error is in the
  // output channel already, and opening the settings from the button needs no answer.
  void vscode.window.showErrorMessage(message, 'Open settings').then((choice) => {
    if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', SETTINGS.serverPath);
  });
}
