import { parseArgs } from '../args.js';
import { assetText } from '../assets.js';
import { UsageError } from '../io.js';
import type { CommandIo } from '../io.js';

export const SCHEMA_HELP = `Usage: kairoku-playbook schema [--ir]

Prints the JSON Schema of the playbook surface (draft-07), the one the toolchain checks playbooks
against: point yaml-language-server or another editor at it for completion and hover without the
VS Code extension (docs/cli.md, "schema"). The installed package has it as a file too:
node_modules/kairoku-playbook/dist/schema/playbook.schema.json.

Options:
  --ir        print the JSON Schema of the compiled IR (what compile writes) instead
  -h, --help  this help`;

export function runSchema(argv: readonly string[], io: CommandIo): number {
  const args = parseArgs(argv, { ir: 'boolean', help: 'boolean' }, { h: 'help' });
  if (args.flags.has('help')) {
    io.stdout(`${SCHEMA_HELP}\n`);
    return 0;
  }
  if (args.positionals.length)
    throw new UsageError(`schema takes no arguments, not "${args.positionals[0]}"`);
  const text = assetText(args.flags.has('ir') ? 'irSchema' : 'playbookSchema');
  io.stdout(text.endsWith('\n') ? text : `${text}\n`);
  return 0;
}
