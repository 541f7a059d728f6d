/**
 * The commands a person waits for at every keystroke or commit, in a bundle of their own
 * (kairoku-playbook.check.cjs, from bin-check.ts): `check`, and `completion`'s script (`__complete`, what a
 * shell runs at every TAB, has a smaller bundle still: bin-complete.ts). The launcher runs it
 * for these commands only, so a cold `check` does not load the runtime, the language server, Prettier
 * or the pages `serve` and `playground` carry. Every other command is main.ts's.
 */
import { runCheck } from './commands/check.js';
import { runCompletion } from './commands/completion.js';
import { dispatch } from './dispatch.js';
import type { Command } from './dispatch.js';
import { HELP } from './help-text.js';
import type { CommandIo } from './io.js';

const COMMANDS: Record<string, Command> = {
  check: runCheck,
  completion: runCompletion,
};

export function mainCheck(argv: readonly string[], io: CommandIo): number | Promise<number> {
  return dispatch(argv, io, COMMANDS, HELP);
}
