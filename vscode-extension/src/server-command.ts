/**
 * How to start the language server, from the `kairokuPlaybook.server.path` setting. Pure: the extension
 * turns the result into vscode-languageclient `ServerOptions` (and adds `--stdio`, as it does for every
 * stdio server).
 *
 * - empty: the server bundled with the extension, `dist/server.js`, run with VS Code's own Node;
 * - a `.js`/`.cjs`/`.mjs` file: run with VS Code's Node; a `kairoku-playbook*` file is the CLI and gets
 *   `lsp`, any other (`lsp/dist/stdio.js`) is the server itself;
 * - anything else: an executable, the CLI (`kairoku-playbook lsp --stdio`), looked up on PATH when bare.
 */
import { isAbsolute, join, basename } from 'node:path';

export type ServerCommand =
  | { kind: 'module'; module: string; args: string[]; bundled: boolean }
  | { kind: 'executable'; command: string; args: string[] };

export interface ServerCommandContext {
  /** the extension's own folder */
  extensionPath: string;
  /** the first workspace folder, for relative paths */
  workspaceFolder?: string;
  /** the user's home folder, for `~/` */
  home?: string;
}

export function serverCommand(setting: string | undefined, context: ServerCommandContext): ServerCommand {
  const raw = (setting ?? '').trim();
  if (!raw)
    return {
      kind: 'module',
      module: join(context.extensionPath, 'dist', 'server.js'),
      args: [],
      bundled: true,
    };
  let path = raw;
  if (context.home && (path === '~' || path.startsWith('~/') || path.startsWith('~\\')))
    path = join(context.home, path.slice(1));
  const hasSeparator = /[\\/]/.test(path);
  if (hasSeparator && !isAbsolute(path) && context.workspaceFolder)
    path = join(context.workspaceFolder, path);
  if (/\.[cm]?js$/i.test(path)) {
    const cli = /^kairoku-playbook\b/i.test(basename(path));
    return { kind: 'module', module: path, args: cli ? ['lsp'] : [], bundled: false };
  }
  return { kind: 'executable', command: path, args: ['lsp'] };
}

/** One line for the output channel: what runs. */
export function describeServerCommand(command: ServerCommand): string {
  if (command.kind === 'module')
    return command.bundled
      ? `the bundled server (${command.module})`
      : `node ${[command.module, ...command.args, '--stdio'].join(' ')}`;
  return [command.command, ...command.args, '--stdio'].join(' ');
}
