import { resolve } from 'node:path';
import { SourceText, compilePlaybook, serializeIr } from '@kairoku-playbook/compiler';
import { withBounds } from '@kairoku-playbook/runtime';
import { flag, parseArgs } from '../args.js';
import { displayPath } from '../discover.js';
import { formatText } from '../format/index.js';
import { UsageError, readPlaybookFile, writeUserFile } from '../io.js';
import type { CommandIo } from '../io.js';

export const COMPILE_HELP = `Usage: kairoku-playbook compile FILE [-o FILE]

Checks a playbook and prints its execution IR (JSON) to standard output, or writes it to the -o
file (atomically). A playbook with errors gets its diagnostics on standard error and exit code 1.
The IR carries the bounds of a run (bounds: most agent turns, gate decisions, wall clock, each
step's most attempts), explored within a budget of states (so the IR stays deterministic); past it,
the static bound (bounds.explored false).

Options:
  -o, --output FILE   write the IR there instead of standard output
  -h, --help          this help`;

export function runCompile(argv: readonly string[], io: CommandIo): number {
  const args = parseArgs(argv, { output: 'string', help: 'boolean' }, { o: 'output', h: 'help' });
  if (args.flags.has('help')) {
    io.stdout(`${COMPILE_HELP}\n`);
    return 0;
  }
  const compiled = compileFile(args.positionals, io, 'compile');
  if (!compiled) return 1;
  const output = flag(args, 'output');
  const bytes = serializeIr(withBounds(compiled));
  if (output) writeUserFile(resolve(io.cwd, output), bytes);
  else io.stdout(bytes);
  return 0;
}

/** Compiles the one FILE argument; prints diagnostics to stderr and returns undefined on errors. */
export function compileFile(positionals: readonly string[], io: CommandIo, command: string) {
  if (positionals.length !== 1)
    throw new UsageError(`${command} takes exactly one FILE (see kairoku-playbook ${command} --help)`);
  const path = resolve(io.cwd, positionals[0]!);
  const shown = displayPath(path, io.cwd);
  const read = readPlaybookFile(path, shown);
  const source = new SourceText('text' in read ? read.text : '');
  const result =
    'text' in read ? compilePlaybook(shown, read.text) : { diagnostics: [read.diagnostic], ir: undefined };
  if (!result.ir) {
    io.stderr(formatText(result.diagnostics, () => source, { color: io.colorStderr, fileCount: 1 }));
    return undefined;
  }
  return result.ir;
}
