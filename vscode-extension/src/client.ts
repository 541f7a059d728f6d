/**
 * The language client: the bundled server (or the CLI the user points `kairokuPlaybook.server.path` at)
 * over stdio, for documents in the `kairoku-playbook` language. The server's diagnostics are pulled
 * (VS Code's model). Unless the user sets `kairokuPlaybook.validationDelay`, the server decides when to
 * validate (its adaptive delay: at once while the analysis is cheap); set, it debounces the pulls while
 * typing, and the server gets it too for its own background validation.
 */
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import { LanguageClient, TransportKind } from 'vscode-languageclient/node';
import type { LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';
import { DEFAULT_VALIDATION_DELAY, LANGUAGE_ID, POLICY_FILE_GLOB, SETTINGS_SECTION } from './manifest.js';
import { describeServerCommand, serverCommand } from './server-command.js';

export const CLIENT_NAME = 'Kairoku Playbooks';

export function validationDelay(): number {
  const value = vscode.workspace
    .getConfiguration(SETTINGS_SECTION)
    .get<number>('validationDelay', DEFAULT_VALIDATION_DELAY);
  return typeof value === 'number' && Number.isFinite(value) && value >= 0
    ? Math.min(value, 5000)
    : DEFAULT_VALIDATION_DELAY;
}

/** The delay the user set (in any scope), or undefined: the server's adaptive delay applies. */
export function explicitValidationDelay(): number | undefined {
  const set = vscode.workspace.getConfiguration(SETTINGS_SECTION).inspect<number>('validationDelay');
  const explicit = set?.workspaceFolderValue ?? set?.workspaceValue ?? set?.globalValue;
  return explicit === undefined ? undefined : validationDelay();
}

function delay(ms: number, token: vscode.CancellationToken): Promise<void> {
  return new Promise((resolve) => {
    if (token.isCancellationRequested) return resolve();
    const timer = setTimeout(done, ms);
    const subscription = token.onCancellationRequested(done);
    function done() {
      clearTimeout(timer);
      subscription.dispose();
      resolve();
    }
  });
}

function serverOptions(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): ServerOptions {
  const command = serverCommand(
    vscode.workspace.getConfiguration(SETTINGS_SECTION).get<string>('server.path'),
    {
      extensionPath: context.extensionPath,
      workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      home: homedir(),
    },
  );
  output.info(`Starting ${describeServerCommand(command)}`);
  if (command.kind === 'module') {
    const run = { module: command.module, args: command.args, transport: TransportKind.stdio };
    return { run, debug: { ...run, options: { execArgv: ['--nolazy', '--inspect=6019'] } } };
  }
  // npm installs the CLI as a .cmd shim on Windows, which only a shell starts.
  return {
    command: command.command,
    args: command.args,
    transport: TransportKind.stdio,
    options: { shell: process.platform === 'win32' },
  };
}

export function createClient(
  context: vscode.ExtensionContext,
  output: vscode.LogOutputChannel,
  watcher: vscode.FileSystemWatcher[],
): LanguageClient {
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: LANGUAGE_ID },
      { scheme: 'untitled', language: LANGUAGE_ID },
      // the workspace's approval policy (PB700): plain YAML to VS Code, checked and completed by the server
      { scheme: 'file', language: 'yaml', pattern: POLICY_FILE_GLOB },
    ],
    outputChannel: output,
    initializationOptions: () => {
      const fixed = explicitValidationDelay();
      // PB310 and PB311 as `check --explore` reports them, within the server's budget (on by default)
      const explore =
        vscode.workspace.getConfiguration(SETTINGS_SECTION).get<boolean>('explore', true) !== false;
      return fixed === undefined ? { explore } : { validationDelay: fixed, explore };
    },
    synchronize: { fileEvents: watcher },
    diagnosticPullOptions: { onChange: true, onSave: true },
    // Check workspace opens playbooks without showing them: they must reach the server.
    textSynchronization: { delayOpenNotifications: false },
    middleware: {
      // A delay the user set debounces while typing: each change cancels the waiting pull (the client
      // then asks again). Without one the server waits as long as it must (lsp: validation-delay.ts).
      provideDiagnostics: async (document, previousResultId, token, next) => {
        const fixed = explicitValidationDelay();
        if (fixed !== undefined) await delay(fixed, token);
        if (token.isCancellationRequested) throw new vscode.CancellationError();
        return next(document, previousResultId, token);
      },
    },
  };
  return new LanguageClient(SETTINGS_SECTION, CLIENT_NAME, serverOptions(context, output), clientOptions);
}
