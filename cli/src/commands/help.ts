import { closest } from '@kairoku-playbook/grammar';
import { parseArgs } from '../args.js';
import { UsageError } from '../io.js';
import type { CommandIo } from '../io.js';

export const HELP_HELP = `Usage: kairoku-playbook help [COMMAND]

Prints the list of commands, or COMMAND's help: the same text as kairoku-playbook COMMAND --help.

Options:
  -h, --help  this help`;

type Dispatch = (argv: readonly string[], io: CommandIo) => number | Promise<number>;

/** `help [COMMAND]`: the overview, or `COMMAND --help` itself (an unknown COMMAND is refused by `main`). */
export function runHelp(
  argv: readonly string[],
  io: CommandIo,
  dispatch: Dispatch,
): number | Promise<number> {
  const args = parseArgs(argv, { help: 'boolean' }, { h: 'help' });
  if (args.flags.has('help')) {
    io.stdout(`${HELP_HELP}\n`);
    return 0;
  }
  const [command, ...extra] = args.positionals;
  if (extra.length) throw new UsageError(`help takes one command, not ${args.positionals.length}`);
  if (command === undefined) return dispatch(['--help'], io);
  if (command.startsWith('-') || command.startsWith('_'))
    throw new UsageError(`unknown command "${command}"; run kairoku-playbook help`);
  return dispatch([command, '--help'], io);
}

/** The refusal of a command that does not exist, with the nearest one when there is one. */
export function unknownCommand(command: string, known: readonly string[]): string {
  const suggestion = closest(
    command,
    known.filter((name) => !name.startsWith('_')),
  );
  return `unknown command "${command}"${suggestion ? `; did you mean "${suggestion}"?` : ''} (kairoku-playbook help lists them)`;
}
