/** What package.json `contributes` declares, for the code (a test keeps the two equal). */

export const LANGUAGE_ID = 'kairoku-playbook';

/** The settings section, and the language client's id (so `kairokuPlaybook.trace.server` works). */
export const SETTINGS_SECTION = 'kairokuPlaybook';

export const SETTINGS = {
  serverPath: 'kairokuPlaybook.server.path',
  validationDelay: 'kairokuPlaybook.validationDelay',
  explore: 'kairokuPlaybook.explore',
  traceServer: 'kairokuPlaybook.trace.server',
} as const;

export const COMMANDS = {
  checkWorkspace: 'kairokuPlaybook.checkWorkspace',
  showGraph: 'kairokuPlaybook.showGraph',
  restartServer: 'kairokuPlaybook.restartServer',
  runPlaybook: 'kairokuPlaybook.runPlaybook',
  openRun: 'kairokuPlaybook.openRun',
} as const;

/** The Playbooks view (a webview view) and the activity bar container that holds it. */
export const PLAYBOOKS_CONTAINER_ID = 'kairokuPlaybooks';
export const PLAYBOOKS_VIEW_ID = 'kairokuPlaybook.playbooks';

export const DEFAULT_VALIDATION_DELAY = 150;

/** The workspace's approval policy (`.kairoku/policy.yml`, PB700–PB702), which the server checks too. */
export const POLICY_FILE_GLOB = '**/.kairoku/policy.{yml,yaml}';
