/**
 * Which files are playbooks (SPEC §2), as `kairoku-playbook check` and the language server discover them:
 * `*.playbook.yml|yaml` anywhere and every `*.yml|yaml` directly in a `playbooks/` folder (so also
 * `.kairoku/playbooks/` and `.paseo/playbooks/`), never `*.test.yml|yaml` (playbook tests), never below
 * `node_modules` or `.git` (`SKIPPED_GLOB`). `isPlaybookPath` is the compiler's own.
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

// The rule itself is the compiler's (the one `check` and the language server use); its own entry point
// keeps the rest of the compiler out of the extension's client bundle.
export { isPlaybookPath, isPlaybookTest as isPlaybookTestPath } from '@kairoku-playbook/compiler/discovery';
