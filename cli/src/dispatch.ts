import { IR_VERSION } from '@kairoku-playbook/compiler';
import { assetText } from './assets.js';
import { unknownCommand } from './commands/help.js';
import { UsageError } from './io.js';
import type { CommandIo } from './io.js';
import { usageOrThrow } from './refusal.js';
import { VERSION } from './version.js';

export type Command = (argv: readonly string[], io: CommandIo) => number | Promise<number>;

/**
 * Runs the command named by the first word among `commands` (main.ts's, or main-check.ts's few); no
 * word or `--help` prints `help`, `--version` the versions.
 */
export function dispatch(
  argv: readonly string[],
  io: CommandIo,
  commands: Record<string, Command>,
  help: string,
): number | Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h') {
    io.stdout(`${help}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === '--version' || command === '-v') {
    io.stdout(versionText());
    return 0;
  }
  const run = commands[command];
  try {
    if (!run) throw new UsageError(unknownCommand(command, Object.keys(commands)));
    const code = run(rest, io);
    return typeof code === 'number' ? code : code.catch((error: unknown) => usageOrThrow(error, io));
  } catch (error) {
    return usageOrThrow(error, io);
  }
}

/**
 * The three versions (docs/versioning.md): the CLI's, the playbook language's a playbook declares
 * with `version:` (the one the surface schema accepts), and the IR's that compile writes as `ir:`.
 */
export function versionText(): string {
  const schema = JSON.parse(assetText('playbookSchema')) as { properties: { version: { const: number } } };
  return (
    `kairoku-playbook ${VERSION}\n` +
    `playbook language: version ${schema.properties.version.const}\n` +
    `execution IR: ir ${IR_VERSION}\n`
  );
}
