import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { isIP } from 'node:net';
import { FILE_LIMITS, readTextBounded } from '@kairoku-playbook/compiler/disk';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  DEFAULT_FLUSH_MS,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  parseHostPort,
} from '../backends/kairoku/protocol.js';
import { readToken } from '../backends/kairoku/token-file.js';
import { literalKind } from '../backends/bind-address.js';
import { normalizeFingerprint } from '../backends/kairoku/tls.js';
import { PROVIDERS, isProviderName } from './providers/names.js';
import type { ProviderName } from './providers/names.js';

export interface RunnerOptions {
  /** the app's URL, such as http://127.0.0.1:7400 */
  app: string;
  /** the one app credential (RF-007, RF-011) */
  token: string;
  /** PEM of the CA the app's certificate must chain to (--app-ca) */
  appCa: string | undefined;
  /** the app certificate's pinned SHA-256 fingerprint, canonical `AB:CD:…` (--app-fingerprint) */
  appFingerprint: string | undefined;
  /** the repository's checkout, where worktrees are added */
  repo: string;
  /** the repository's id in claims (default: the checkout's real path) */
  repository: string;
  capacity: number;
  /** the loopback listener for `GET /capacity` */
  listen: { host: string; port: number };
  /**
   * what launches a dispatch's agent (RF-014): `command` (the agent command), `claude` (the Claude
   * Agent SDK) or `codex` (`codex exec --json`); undefined when the runner runs checks only
   */
  provider: ProviderName | undefined;
  /** the agent process of the `command` provider, run by the shell in the worktree (its own process group) */
  agentCommand: string | undefined;
  /** the Claude Code executable the SDK drives (default: the one the SDK ships) */
  claudeExecutable: string | undefined;
  /** the codex executable (default: `codex` on the PATH) */
  codexExecutable: string | undefined;
  /** logs, breadcrumbs and worktrees */
  workDir: string;
  id: string;
  machine: string;
  heartbeatMs: number;
  claimMs: number;
  flushMs: number;
  /** SIGTERM → SIGKILL grace of a process group */
  graceMs: number;
  /** RF-010's post-mortem flag: keep the worktree of a dispatch that failed */
  keepFailedWorktrees: boolean;
}

export { USAGE } from './usage.js';

/** The options that take a value (`--keep-failed-worktrees` alone takes none). */
const VALUE_OPTIONS = [
  'app',
  'app-ca',
  'app-fingerprint',
  'token-file',
  'repo',
  'repository',
  'capacity',
  'listen',
  'provider',
  'agent-command',
  'claude-executable',
  'codex-executable',
  'work-dir',
  'id',
  'machine',
  'heartbeat-ms',
  'claim-ms',
  'flush-ms',
  'grace-ms',
];

type Values = ReadonlyMap<string, string>;

/** Parses the command line; a string is the usage error. */
export function parseRunnerArgs(argv: readonly string[]): RunnerOptions | string {
  const given = readArgv(argv);
  if (typeof given === 'string') return given;
  const { values, flags } = given;
  for (const name of values.keys()) if (!VALUE_OPTIONS.includes(name)) return `unknown option --${name}`;
  const app = values.get('app');
  if (!app || !/^https?:\/\/[^/]+\/?$/.test(app))
    return '--app needs the app URL, such as https://10.0.0.5:7421 or http://127.0.0.1:7400';
  const trust = appTrust(app, values);
  if (typeof trust === 'string') return trust;
  const credential = readCredential(values);
  if (typeof credential === 'string') return credential;
  const checkout = checkoutOf(values);
  if (typeof checkout === 'string') return checkout;
  const listen = listenerOf(values);
  if (typeof listen === 'string') return listen;
  const agents = agentsOf(values);
  if (typeof agents === 'string') return agents;
  const numbers = numbersOf(values);
  if (typeof numbers === 'string') return numbers;
  const identity = identityOf(values);
  if (typeof identity === 'string') return identity;
  return {
    app: app.replace(/\/$/, ''),
    token: credential.token,
    ...trust,
    repo: checkout.repo,
    repository: values.get('repository') ?? checkout.repo,
    capacity: numbers.capacity!,
    listen,
    ...agents,
    claudeExecutable: values.get('claude-executable'),
    codexExecutable: values.get('codex-executable'),
    ...identity,
    heartbeatMs: numbers['heartbeat-ms']!,
    claimMs: numbers['claim-ms']!,
    flushMs: numbers['flush-ms']!,
    graceMs: numbers['grace-ms']!,
    keepFailedWorktrees: flags.has('--keep-failed-worktrees'),
  };
}

/** `--name value` and `--name=value` by name, and the flags that take no value. */
function readArgv(argv: readonly string[]): { values: Values; flags: ReadonlySet<string> } | string {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--keep-failed-worktrees') {
      flags.add(arg);
      continue;
    }
    if (!arg.startsWith('--')) return `unexpected argument "${arg}"`;
    const eq = arg.indexOf('=');
    if (eq > 0) {
      values.set(arg.slice(2, eq), arg.slice(eq + 1));
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined) return `${arg} needs a value`;
    values.set(arg.slice(2), value);
    i++;
  }
  return { values, flags };
}

/** How the app's certificate is trusted beyond the system's CAs: a CA file, or a pinned fingerprint. */
function appTrust(app: string, values: Values): Pick<RunnerOptions, 'appCa' | 'appFingerprint'> | string {
  const pinned = values.get('app-fingerprint');
  const appFingerprint = pinned === undefined ? undefined : normalizeFingerprint(pinned);
  if (pinned !== undefined && appFingerprint === undefined)
    return `--app-fingerprint takes the app certificate's SHA-256 fingerprint (64 hex digits, colons optional), not "${pinned}"`;
  const caFile = values.get('app-ca');
  let appCa: string | undefined;
  if (caFile !== undefined) {
    const ca = readTextBounded(caFile, FILE_LIMITS.small, 'a CA file');
    if (ca.problem !== undefined) return `cannot read the CA file ${caFile}: ${ca.message}`;
    if (!ca.text.includes('-----BEGIN CERTIFICATE-----'))
      return `--app-ca ${caFile} holds no PEM certificate`;
    appCa = ca.text;
  }
  if (appCa !== undefined && appFingerprint !== undefined)
    return '--app-ca and --app-fingerprint are two ways to trust the app: give one';
  if ((appCa !== undefined || appFingerprint !== undefined) && !app.startsWith('https:'))
    return `--app ${app} is plain HTTP: --app-ca and --app-fingerprint are for an https:// app`;
  return { appCa, appFingerprint };
}

function readCredential(values: Values): { token: string } | string {
  const tokenFile = values.get('token-file');
  if (!tokenFile) return '--token-file is required';
  // Bounded: a FIFO or /dev/zero given as the token file must not hang or fill the runner.
  const read = readTextBounded(tokenFile, FILE_LIMITS.small, 'a token file');
  if (read.problem !== undefined) return `cannot read the token file ${tokenFile}: ${read.message}`;
  const token = readToken(read.text);
  if (token.length < 16) return `the token file ${tokenFile} holds no credential of 16 characters or more`;
  return { token };
}

function checkoutOf(values: Values): { repo: string } | string {
  const repoPath = values.get('repo');
  if (!repoPath) return '--repo is required';
  try {
    return { repo: realpathSync(resolve(repoPath)) };
  } catch {
    return `--repo ${repoPath} does not exist`;
  }
}

/** The capacity listener's address: loopback only, as it has no credential (RF-006). */
function listenerOf(values: Values): RunnerOptions['listen'] | string {
  const listen = parseHostPort(values.get('listen') ?? '127.0.0.1:0');
  if (!listen) return '--listen takes HOST:PORT';
  // Literal addresses are judged here (a usage error); names and the numeric forms only a resolver
  // reads (`0`, `127.1`) when the listener starts, by what they resolve to (`resolveBindAddress`).
  const kind = literalKind(listen.host);
  if (kind === 'wildcard')
    return `--listen ${listen.host}: a wildcard bind is refused; the capacity listener is loopback only (RF-006)`;
  if (kind === 'other' && isIP(listen.host.replace(/%.*$/, '')))
    return `--listen ${listen.host}: the capacity listener has no credential, so it binds loopback only (RF-006)`;
  return listen;
}

/** What launches agents: the provider named, or `command` when only an agent command is given. */
function agentsOf(values: Values): Pick<RunnerOptions, 'provider' | 'agentCommand'> | string {
  const agentCommand = values.get('agent-command');
  const named = values.get('provider');
  if (named !== undefined && !isProviderName(named))
    return `--provider takes ${PROVIDERS.join(', ')}, not "${named}"`;
  const provider = named ?? (agentCommand !== undefined ? 'command' : undefined);
  if (provider === 'command' && !agentCommand) return '--provider command needs --agent-command CMD';
  if (provider !== 'command' && agentCommand !== undefined)
    return `--agent-command is the command provider's; --provider ${provider} does not run it`;
  for (const [flag, owner] of [
    ['claude-executable', 'claude'],
    ['codex-executable', 'codex'],
  ] as const)
    if (values.has(flag) && provider !== owner) return `--${flag} is for --provider ${owner}`;
  return { provider, agentCommand };
}

/** The capacity and the timers, by option name, with their defaults. */
function numbersOf(values: Values): Record<string, number> | string {
  const numbers: Record<string, number> = {};
  const defaults: Record<string, number> = {
    capacity: 1,
    'heartbeat-ms': DEFAULT_HEARTBEAT_INTERVAL_MS,
    'claim-ms': 1000,
    'flush-ms': DEFAULT_FLUSH_MS,
    'grace-ms': 2000,
  };
  for (const [name, fallback] of Object.entries(defaults)) {
    const text = values.get(name);
    const value = text === undefined ? fallback : Number(text);
    if (!Number.isInteger(value) || value < (name === 'grace-ms' ? 0 : 1))
      return `--${name} takes a positive whole number, not "${text}"`;
    numbers[name] = value;
  }
  return numbers;
}

/** The runner's machine, work folder and id (default: the machine and a hash of the work folder). */
function identityOf(values: Values): Pick<RunnerOptions, 'machine' | 'workDir' | 'id'> | string {
  const machine = values.get('machine') ?? hostname();
  const workDir = resolve(values.get('work-dir') ?? join(tmpdir(), `kairoku-runner-${process.pid}`));
  const id =
    values.get('id') ??
    `${machine.replace(/[^A-Za-z0-9._-]/g, '-')}-${createHash('sha256').update(workDir).digest('hex').slice(0, 8)}`;
  if (!/^[A-Za-z0-9][A-Za-z0-9._:@-]{0,199}$/.test(id))
    return `--id "${id}" may hold letters, digits and ._:@-`;
  return { workDir, id, machine };
}
