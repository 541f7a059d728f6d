/**
 * Every command's long flags and what its arguments are, for shell completion (`completion`) and
 * `help`. The help texts are written by hand; cli/test/completion.test.ts holds this table equal to
 * them (every `--flag` a help text names is here and the other way round) and to the parsers (each
 * flag here is accepted, and takes a value exactly when the parser says it does).
 */

/** What follows a flag: nothing, a file, a folder, one of some words, or free text. */
export type FlagValue = 'none' | 'file' | 'dir' | 'text' | readonly string[];

/** What a command's positional arguments are. */
export type Positionals = 'none' | 'playbooks' | 'dir' | 'codes' | 'commands' | 'shells' | 'runs';

export interface CommandEntry {
  flags: Readonly<Record<string, FlagValue>>;
  positionals: Positionals;
}

const INPUT_FLAGS = { input: 'text', 'input-file': 'file', 'input-env': 'text' } as const;
const LIVE_FLAGS = {
  gate: 'text',
  'paseo-host': 'text',
  'paseo-password-file': 'file',
  'paseo-provider': 'text',
  'paseo-model': 'text',
  'parent-agent': 'text',
  listen: 'text',
  'allow-remote-runners': 'none',
  'app-token-file': 'file',
} as const;

/** serve's, and panel's (serve under the contract's name). */
const SERVE_ENTRY: CommandEntry = {
  flags: {
    listen: 'text',
    port: 'text',
    backend: ['sim', 'paseo', 'kairoku'],
    scenario: 'file',
    'sim-delay': 'text',
    'panel-dir': 'dir',
    'login-url': 'none',
    'archive-after': 'text',
    'paseo-host': 'text',
    'paseo-password-file': 'file',
    'paseo-provider': 'text',
    'paseo-model': 'text',
    'paseo-keep-agents': 'none',
    'app-listen': 'text',
    'app-url': 'text',
    'tls-cert': 'file',
    'tls-key': 'file',
    'tls-self-signed': 'none',
    'app-token-file': 'file',
    repository: 'text',
    help: 'none',
  },
  positionals: 'dir',
};

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** The subcommands of `runs`; all but `list` and `prune` take a run id. */
export const RUNS_SUBCOMMANDS = [
  'list',
  'show',
  'cancel',
  'pause',
  'resume',
  'restart',
  'decide',
  'archive',
  'prune',
] as const;

export const COMMAND_TABLE: Readonly<Record<string, CommandEntry>> = {
  check: {
    flags: {
      format: ['text', 'json', 'sarif', 'github'],
      'max-warnings': 'text',
      root: 'dir',
      explore: 'none',
      'max-agent-turns': 'text',
      watch: 'none',
      fix: 'none',
      'dry-run': 'none',
      'no-color': 'none',
      help: 'none',
    },
    positionals: 'playbooks',
  },
  format: { flags: { check: 'none', help: 'none' }, positionals: 'playbooks' },
  compile: { flags: { output: 'file', help: 'none' }, positionals: 'playbooks' },
  graph: { flags: { format: ['text', 'mermaid', 'dot'], help: 'none' }, positionals: 'playbooks' },
  diff: {
    flags: { format: ['text', 'json', 'markdown'], 'fail-on': ['widened', 'any'], help: 'none' },
    positionals: 'playbooks',
  },
  explore: {
    flags: { 'max-states': 'text', 'max-seconds': 'text', 'no-color': 'none', help: 'none' },
    positionals: 'playbooks',
  },
  run: {
    flags: {
      ...INPUT_FLAGS,
      backend: ['sim', 'paseo', 'kairoku'],
      json: 'none',
      help: 'none',
      scenario: 'file',
      worktree: 'dir',
      'sim-delay': 'text',
      ...LIVE_FLAGS,
    },
    positionals: 'playbooks',
  },
  runs: {
    flags: {
      all: 'none',
      json: 'none',
      from: 'text',
      scenario: 'file',
      reason: 'text',
      comment: 'text',
      help: 'none',
      'sim-delay': 'text',
      'ended-before': 'text',
      unarchived: 'none',
      'dry-run': 'none',
      ...INPUT_FLAGS,
      ...LIVE_FLAGS,
    },
    positionals: 'runs',
  },
  test: {
    flags: {
      coverage: 'none',
      'coverage-lcov': 'file',
      'min-coverage': 'text',
      format: ['text', 'json'],
      help: 'none',
    },
    positionals: 'playbooks',
  },
  init: {
    flags: { force: 'none', mcp: 'none', 'paseo-host': 'text', 'paseo-password-file': 'file', help: 'none' },
    positionals: 'dir',
  },
  serve: SERVE_ENTRY,
  panel: SERVE_ENTRY,
  playground: { flags: { listen: 'text', help: 'none' }, positionals: 'playbooks' },
  lsp: { flags: { stdio: 'none', help: 'none' }, positionals: 'none' },
  mcp: {
    flags: {
      workspace: 'dir',
      agents: ['sim', 'external', 'paseo'],
      scenario: 'file',
      'with-step-tools': 'none',
      'step-agent': 'none',
      'paseo-host': 'text',
      'paseo-password-file': 'file',
      'paseo-provider': 'text',
      'paseo-model': 'text',
      'manager-agent': 'text',
      'managed-run': 'text',
      run: 'text',
      step: 'text',
      attempt: 'text',
      token: 'text',
      help: 'none',
    },
    positionals: 'none',
  },
  runner: {
    flags: {
      app: 'text',
      'app-fingerprint': 'text',
      'app-ca': 'file',
      'token-file': 'file',
      repo: 'dir',
      repository: 'text',
      capacity: 'text',
      listen: 'text',
      provider: ['command', 'claude', 'codex'],
      'agent-command': 'text',
      'claude-executable': 'file',
      'codex-executable': 'file',
      'work-dir': 'dir',
      id: 'text',
      machine: 'text',
      'heartbeat-ms': 'text',
      'claim-ms': 'text',
      'flush-ms': 'text',
      'grace-ms': 'text',
      'keep-failed-worktrees': 'none',
      help: 'none',
    },
    positionals: 'none',
  },
  explain: { flags: { help: 'none' }, positionals: 'codes' },
  schema: { flags: { ir: 'none', help: 'none' }, positionals: 'none' },
  help: { flags: {}, positionals: 'commands' },
  completion: { flags: { help: 'none' }, positionals: 'shells' },
};
