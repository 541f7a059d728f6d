import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join, basename, resolve } from 'node:path';
import { decodeSource } from '@kairoku-playbook/compiler';
import type { Diagnostic } from '@kairoku-playbook/compiler';
import { parseYaml } from '@kairoku-playbook/runtime';
import { displayPath } from './discover.js';

/** A usage or I/O problem: printed as one line, exit code 2. */
export class UsageError extends Error {}

export function readPlaybookFile(path: string, shown: string): { text: string } | { diagnostic: Diagnostic } {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT' ? `no such file: ${shown}` : `cannot read ${shown}: ${(error as Error).message}`,
    );
  }
  const decoded = decodeSource(shown, bytes);
  return decoded.text === undefined ? { diagnostic: decoded.diagnostic } : { text: decoded.text };
}

/** The YAML of a `--scenario` file (undefined without one); a file that cannot be read or parsed is a usage error. */
export function readScenarioFile(file: string | undefined, cwd: string): unknown {
  if (file === undefined) return undefined;
  const path = resolve(cwd, file);
  const shown = displayPath(path, cwd);
  const read = readPlaybookFile(path, shown);
  if ('diagnostic' in read) throw new UsageError(`scenario ${shown}: ${read.diagnostic.message}`);
  const parsed = parseYaml(read.text);
  if ('error' in parsed) throw new UsageError(`scenario ${shown}: ${parsed.error}`);
  return parsed.value;
}

/** Writes a file whole or not at all: temp file, fsync, rename. */
export function writeFileAtomic(path: string, data: string): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}
