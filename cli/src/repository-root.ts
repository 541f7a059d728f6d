import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The top folder of the git work tree holding `from` (the nearest folder with a `.git` entry: a
 * folder in a clone, a file in a worktree or submodule), or `undefined` outside one. Read from disk,
 * so it needs no git on the PATH and costs no process.
 */
export function repositoryRoot(from: string): string | undefined {
  let dir = from;
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
