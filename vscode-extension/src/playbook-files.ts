/**
 * Which files are playbooks (SPEC §2), as VS Code looks for them: `*.playbook.yml|yaml` anywhere and
 * every `*.yml|yaml` directly in a `playbooks/` folder (so also `.kairoku/playbooks/` and
 * `.paseo/playbooks/`), never below `node_modules` or `.git` (`SKIPPED_GLOB`). The rule itself (which also
 * leaves out playbook tests, `*.test.yml|yaml`) is the language server's: Check workspace asks it
 * (`kairoku-playbook/playbookFiles`) which of the files found are playbooks.
 */

/** What `workspace.findFiles` looks for; the server then drops the playbook tests. */
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

/**
 * Whether a file's path is one only the bare `playbooks/` folder pattern claims (SPEC §2): Ansible keeps
 * its playbooks in such a folder too, so what is in the file decides, and that rule is the server's
 * (plain-yaml.ts asks it). `*.playbook.yml`, `.kairoku/playbooks/` and `.paseo/playbooks/` are ours
 * whatever they hold.
 */
export function inBarePlaybooksFolder(path: string): boolean {
  const parts = path.replace(/\\/g, '/').split('/');
  const name = parts[parts.length - 1] ?? '';
  if (parts[parts.length - 2] !== 'playbooks' || !/\.ya?ml$/i.test(name)) return false;
  if (/\.(playbook|test)\.ya?ml$/i.test(name)) return false;
  const owner = parts[parts.length - 3];
  return owner !== '.kairoku' && owner !== '.paseo';
}
