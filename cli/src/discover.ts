import { relative } from 'node:path';
import { discoverPlaybooks as discover } from '@kairoku-playbook/compiler';
import { diskLister } from '@kairoku-playbook/compiler/disk';

/** Playbook files below a folder (SPEC §2), sorted, skipping node_modules, .git and tests. */
export function discoverPlaybooks(root: string): string[] {
  return discover(root, diskLister);
}

/** The path shown in diagnostics: relative to the working directory, with forward slashes. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return (rel && !rel.startsWith('..') ? rel : path).split('\\').join('/');
}
