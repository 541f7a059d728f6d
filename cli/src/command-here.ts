/**
 * The command a person types to run this CLI again from a folder (init's "Next:" line). The bare name
 * `kairoku-playbook` is on the PATH only after a global install; a repository that installed the
 * tarball or the npm package as a dependency runs it with `npx`, and a single executable or a clone's
 * bin script is run by its path.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import { isSingleExecutable } from './self-command.js';

const NAME = 'kairoku-playbook';

/** How this process was started: the single executable's path, or Node and the script it ran. */
export interface RunningProgram {
  sea: boolean;
  execPath: string;
  script: string | undefined;
}

export function runningProgram(): RunningProgram {
  return { sea: isSingleExecutable(), execPath: process.execPath, script: process.argv[1] };
}

/**
 * `npx kairoku-playbook` when the nearest package.json at or above `folder` depends on the package (or
 * its node_modules/.bin holds this very program, as in a clone of this repository); the bare name when
 * the one on the PATH is this program; else the path it was started by (the single executable, or
 * `node SCRIPT`). A program whose path is not one of this CLI's (its sources run by a test) gets the
 * bare name.
 */
export function commandHere(
  folder: string,
  program: RunningProgram = runningProgram(),
  path: string = process.env.PATH ?? '',
): string {
  return commandArgvHere(folder, program, path).map(shellWord).join(' ');
}

/**
 * `commandHere` as a command and its arguments (an MCP server's `command` and `args`): `npx` and the
 * name, the name, the single executable, or Node (by the path it runs as) and the script.
 */
export function commandArgvHere(
  folder: string,
  program: RunningProgram = runningProgram(),
  path: string = process.env.PATH ?? '',
): string[] {
  const self = program.sea ? program.execPath : program.script;
  if (dependsOnIt(folder, self)) return ['npx', NAME];
  if (!self || !(program.sea || /^kairoku-playbook(\.[cm]?js)?$/.test(basename(self)))) return [NAME];
  const onPath = path
    .split(delimiter)
    .filter((dir) => dir !== '')
    .some((dir) => sameFile(join(dir, NAME), self));
  if (onPath) return [NAME];
  return program.sea ? [resolve(self)] : ['node', resolve(self)];
}

function dependsOnIt(folder: string, self: string | undefined): boolean {
  for (let dir = resolve(folder); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      if (lists(manifest)) return true;
      return self !== undefined && sameFile(join(dir, 'node_modules', '.bin', NAME), self);
    }
    if (dirname(dir) === dir) return false;
  }
}

function lists(manifest: string): boolean {
  try {
    const json = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
    return ['dependencies', 'devDependencies', 'optionalDependencies'].some((key) => {
      const table = json[key];
      return typeof table === 'object' && table !== null && NAME in table;
    });
  } catch {
    return false; // not JSON: npx would not read it either
  }
}

function sameFile(a: string, b: string | undefined): boolean {
  if (b === undefined || !existsSync(a)) return false;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** A path as one word of a POSIX shell command line. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
