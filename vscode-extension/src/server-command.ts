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

/** How the Playbooks view starts `serve`: `module` is run with VS Code's Node, `executable` as it is. */
export type ServeCommand = { kind: 'module'; module: string } | { kind: 'executable'; command: string };

/**
 * The CLI `serve` is started from, by the same setting: the CLI it names (a `kairoku-playbook*` script or
 * an executable), so the view's runs are driven by the version the user chose; else (the setting empty,
 * or naming the language server's own entry, which has no `serve`) the CLI bundled with the extension.
 */
export function serveCommand(setting: string | undefined, context: ServerCommandContext): ServeCommand {
  const server = serverCommand(setting, context);
  if (server.kind === 'executable') return { kind: 'executable', command: server.command };
  if (!server.bundled && server.args.includes('lsp')) return { kind: 'module', module: server.module };
  return { kind: 'module', module: join(context.extensionPath, 'dist', 'cli.js') };
}

/** One line for the output channel: what runs. */
export function describeServerCommand(command: ServerCommand): string {
  if (command.kind === 'module')
    return command.bundled
      ? `the bundled server (${command.module})`
      : `node ${[command.module, ...command.args, '--stdio'].join(' ')}`;
  return [command.command, ...command.args, '--stdio'].join(' ');
}
