import { resolve } from 'node:path';
import { displayPath, readWorkspaceFile } from '@kairoku-playbook/compiler';
import type { Diagnostic } from '@kairoku-playbook/compiler';
import { diskFileSystem } from '@kairoku-playbook/compiler/disk';
import { parseYaml, writeFileAtomic } from '@kairoku-playbook/runtime';
import { UsageError } from './usage-error.js';

/**
 * What a command may touch: passed in, so commands run in tests without a process of their own. Declared
 * here, not in main.ts, which imports every command (a command importing main would make a cycle).
 */
export interface CommandIo {
  cwd: string;
  stdout(text: string): void;
  stderr(text: string): void;
  /** whether stdout is a terminal that takes colour */
  color: boolean;
  colorStderr: boolean;
}

export { UsageError };

/**
 * A playbook's text (also a scenario's or a test's: playbook-sized YAML). A file that is missing or
 * cannot be opened is a usage error; one that is not a regular file (a FIFO, `/dev/zero`, a folder)
 * or is over the size limit is refused unread, with a PB100 diagnostic that names the limit, like a
 * file that is not UTF-8.
 */
export function readPlaybookFile(
  path: string,
  shown: string,
  what = 'a playbook',
): { text: string; byteOrderMark: boolean } | { diagnostic: Diagnostic; shownText: string } {
  // (the compiler's read of a workspace file: its PB100, placed in the text as far as it decodes)
  const read = readWorkspaceFile(diskFileSystem, path, shown, what);
  if (read.text !== undefined) return { text: read.text, byteOrderMark: read.byteOrderMark };
  if (read.problem === 'missing') throw new UsageError(`no such file: ${shown}`);
  if (read.problem === 'unreadable') throw new UsageError(`cannot read ${shown}: ${read.reason}`);
  return { diagnostic: read.refused, shownText: read.shownText };
}

/** The YAML of a `--scenario` file (undefined without one); a file that cannot be read or parsed is a usage error. */
export function readScenarioFile(file: string | undefined, cwd: string): unknown {
  if (file === undefined) return undefined;
  const path = resolve(cwd, file);
  const shown = displayPath(path, cwd);
  const read = readPlaybookFile(path, shown, 'a scenario');
  if ('diagnostic' in read) throw new UsageError(`scenario ${shown}: ${read.diagnostic.message}`);
  const parsed = parseYaml(read.text);
  if ('error' in parsed) throw new UsageError(`scenario ${shown}: ${parsed.error}`);
  return parsed.value;
}

/**
 * Writes a file the user named (`compile -o`) whole or not at all: the runtime's `writeFileAtomic`, which
 * also refuses a target that is not a regular file, with a new file's mode left to the umask. What it
 * cannot write it throws as a `FileWriteError`, which the CLI prints as one line (exit 2). `durable: false`
 * for what the command rebuilds whenever it is lost (`test --coverage`'s files): no fsync.
 */
export function writeUserFile(path: string, data: string, options: { durable?: boolean } = {}): void {
  writeFileAtomic(path, data, 0o666, options);
}
