/**
 * Playbook discovery (SPEC §2), the same rules as `kairoku-playbook check` (cli/src/discover.ts):
 * `*.playbook.yml|yaml` anywhere, every `*.yml|yaml` directly in a `playbooks/` folder (so also
 * `.kairoku/playbooks/` and `.paseo/playbooks/`); `node_modules`, `.git` and `*.test.yml|yaml` are skipped.
 */
import { posix, win32 } from 'node:path';
import type { PlaybookFileSystem } from './file-system.js';

const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git']);

function basename(path: string): string {
  return path.replace(/\\/g, '/').split('/').pop() ?? path;
}

function parentName(path: string): string {
  const parts = path.replace(/\\/g, '/').split('/');
  return parts[parts.length - 2] ?? '';
}

export function isPlaybookTest(path: string): boolean {
  return /\.test\.ya?ml$/i.test(basename(path));
}

export function isPlaybookPath(path: string): boolean {
  const name = basename(path);
  if (!/\.ya?ml$/i.test(name) || isPlaybookTest(name)) return false;
  if (/\.playbook\.ya?ml$/i.test(name)) return true;
  return parentName(path) === 'playbooks';
}

/** Playbook files below a folder, in the order `check` visits them (sorted, depth first). */
export function discoverPlaybooks(root: string, fs: PlaybookFileSystem, limit = 10_000): string[] {
  const join = root.includes('\\') && !root.includes('/') ? win32.join : posix.join;
  const found: string[] = [];
  const walk = (directory: string, depth: number) => {
    if (depth > 32 || found.length >= limit) return;
    for (const entry of fs.readDirectory(directory)) {
      const path = join(directory, entry.name);
      if (entry.isDirectory) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) walk(path, depth + 1);
      } else if (isPlaybookPath(path) && found.length < limit) found.push(path);
    }
  };
  walk(root, 0);
  return found;
}
