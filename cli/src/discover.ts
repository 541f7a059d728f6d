import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git']);

/** SPEC §2: `*.playbook.yml|yaml` anywhere, and every `*.yml|yaml` directly in a `playbooks/` folder. */
export function isPlaybookPath(path: string): boolean {
  const name = basename(path);
  if (!/\.ya?ml$/i.test(name) || /\.test\.ya?ml$/i.test(name)) return false;
  if (/\.playbook\.ya?ml$/i.test(name)) return true;
  return basename(dirname(path)) === 'playbooks';
}

/** Playbook files below a folder, sorted, skipping node_modules and .git. */
export function discoverPlaybooks(root: string): string[] {
  const found: string[] = [];
  const walk = (directory: string) => {
    let names: string[];
    try {
      names = readdirSync(directory).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(directory, name);
      let isDirectory: boolean;
      try {
        isDirectory = statSync(path).isDirectory();
      } catch {
        continue;
      }
      if (isDirectory) {
        if (!SKIPPED_DIRECTORIES.has(name)) walk(path);
      } else if (isPlaybookPath(path)) found.push(path);
    }
  };
  walk(root);
  return found;
}

/** The path shown in diagnostics: relative to the working directory, with forward slashes. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return (rel && !rel.startsWith('..') ? rel : path).split('\\').join('/');
}
