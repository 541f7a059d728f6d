/**
 * Playbook discovery (SPEC §2), the one rule `check`, the language server and the manager protocol
 * share: `*.playbook.yml|yaml` anywhere, every `*.yml|yaml` directly in a `playbooks/` folder (so also
 * `.kairoku/playbooks/` and `.paseo/playbooks/`); `node_modules`, `.git` and `*.test.yml|yaml` are
 * skipped. The folder listing is passed in, so this stays free of I/O.
 */

export interface DirectoryLister {
  /** the entries of a folder, sorted by name; empty when it cannot be read */
  readDirectory(path: string): { name: string; isDirectory: boolean }[];
}

const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git']);

function segments(path: string): string[] {
  return path.replace(/\\/g, '/').split('/');
}

export function isPlaybookTest(path: string): boolean {
  return /\.test\.ya?ml$/i.test(segments(path).pop() ?? '');
}

export function isPlaybookPath(path: string): boolean {
  const parts = segments(path);
  const name = parts[parts.length - 1] ?? '';
  if (!/\.ya?ml$/i.test(name) || isPlaybookTest(name)) return false;
  if (/\.playbook\.ya?ml$/i.test(name)) return true;
  return parts[parts.length - 2] === 'playbooks';
}

/** Playbook files below a folder, sorted, depth first: the order `check` visits them. */
export function discoverPlaybooks(root: string, lister: DirectoryLister, limit = 10_000): string[] {
  const separator = root.includes('\\') && !root.includes('/') ? '\\' : '/';
  const join = (directory: string, name: string) =>
    directory.endsWith(separator) ? `${directory}${name}` : `${directory}${separator}${name}`;
  const found: string[] = [];
  const walk = (directory: string, depth: number) => {
    if (depth > 32 || found.length >= limit) return;
    for (const entry of lister.readDirectory(directory)) {
      const path = join(directory, entry.name);
      if (entry.isDirectory) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) walk(path, depth + 1);
      } else if (isPlaybookPath(path) && found.length < limit) found.push(path);
    }
  };
  walk(root, 0);
  return found;
}

/** The path diagnostics show: relative to the workspace root, with forward slashes. */
export function displayPath(path: string, root: string): string {
  const normalise = (p: string) => p.replace(/\\/g, '/').replace(/\/+$/, '');
  const full = normalise(path);
  const base = normalise(root);
  if (full.startsWith(`${base}/`)) return full.slice(base.length + 1);
  return full;
}
