import { serveStdio } from '@kairoku-playbook/lsp';
import { parseArgs } from '../args.js';
import { UsageError } from '../io.js';
import type { CommandIo } from '../io.js';
import { LSP_HELP } from './lsp-help.js';

export { LSP_HELP };

export function runLsp(argv: readonly string[], io: CommandIo): number {
  // Language clients add --clientProcessId=N; the server watches its parent through initialize instead.
  const args = parseArgs(
    argv,
    { stdio: 'boolean', clientProcessId: 'string', help: 'boolean' },
    { h: 'help' },
  );
  if (args.flags.has('help')) {
    io.stdout(`${LSP_HELP}\n`);
    return 0;
  }
  if (!args.flags.has('stdio'))
    throw new UsageError('lsp needs --stdio (the only transport); see kairoku-playbook lsp --help');
  if (args.positionals.length) throw new UsageError(`lsp takes no arguments, not "${args.positionals[0]}"`);
  // Runs until the client says exit; nothing else may write to stdout, and no stray error ends it.
  serveStdio();
  return 0;
}
