/**
 * Which files are playbooks (SPEC §2), as `kairoku-playbook check` and the language server discover them:
 * `*.playbook.yml|yaml` anywhere and every `*.yml|yaml` directly in a `playbooks/` folder (so also
 * `.kairoku/playbooks/` and `.paseo/playbooks/`), never `*.test.yml|yaml` (playbook tests), never below
 * `node_modules` or `.git` (`SKIPPED_GLOB`). A test keeps these rules equal to the server's `isPlaybookPath`.
 */

/** What `workspace.findFiles` looks for; `isPlaybookPath` then drops the playbook tests. */
export const PLAYBOOK_GLOB = '**/{*.playbook.yml,*.playbook.yaml,playbooks/*.yml,playbooks/*.yaml}';

/** What discovery skips, as `workspace.findFiles` takes it. */
export const SKIPPED_GLOB = '**/{node_modules,.git}/**';

/** The language's file associations (package.json `filenamePatterns`). */
export const PLAYBOOK_FILENAME_PATTERNS = [
  '**/*.playbook.yml',
  '**/*.playbook.yaml',
  '**/playbooks/*.yml',
  '**/playbooks/*.yaml',
] as const;

function segments(path: string): string[] {
  return path.replace(/\\/g, '/').split('/');
}

export function isPlaybookTestPath(path: string): boolean {
  return /\.test\.ya?ml$/i.test(segments(path).pop() ?? '');
}

export function isPlaybookPath(path: string): boolean {
  const parts = segments(path);
  const name = parts[parts.length - 1] ?? '';
  if (!/\.ya?ml$/i.test(name) || isPlaybookTestPath(name)) return false;
  if (/\.playbook\.ya?ml$/i.test(name)) return true;
  return parts[parts.length - 2] === 'playbooks';
}
