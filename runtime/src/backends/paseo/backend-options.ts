/**
 * What the `paseo` backend is given (`PaseoBackendOptions`), the labels it puts on its agents, and
 * how a step's provider and title become the agent's on Paseo.
 */
import type { Effect } from '@kairoku-playbook/machine';
import type { BackendContext } from '../../driver/backend.js';
import type { SharedReportEndpoint } from '../report-endpoint.js';
import type { Log, PaseoClientOptions } from './client.js';

export type StartCheck = Extract<Effect, { type: 'start-check' }>;

/** Runs check steps' commands (the runtime's `CheckRunner`, or a stand-in in tests). */
export interface CheckExecutor {
  start(effect: StartCheck, context: BackendContext): void;
  stop(step: string, attempt: number, reason: string): void;
  stopAll(reason: string): void | Promise<void>;
  /** whether the check behind a handle is still going */
  has?(agent: string | undefined): boolean;
}

export interface PaseoBackendOptions {
  /** the daemon: `HOST:PORT` (PASEO_HOST), default port 6767 */
  host: string;
  /** PASEO_PASSWORD, offered as the subprotocol `paseo.bearer.<password>` */
  password?: string;
  /** the workspace: the folder the run was started in */
  cwd: string;
  /** the playbook's `workspace:`; `new-worktree` gives the run a Paseo worktree of its own */
  workspace: 'current' | 'new-agent' | 'new-worktree';
  runId: string;
  /** the playbook's id */
  playbook: string;
  /** the run's branch for `new-worktree` (default `playbooks/<playbook>-<short id>`) */
  branch?: string;
  /** the run's worktree when it is already known (a run taken up again): nothing is made */
  worktree?: string;
  /** the manager's Paseo agent: step agents are labelled its children (`paseo.parent-agent-id`) */
  parentAgentId?: string;
  /** the provider of roles and steps that name none (default `claude`) */
  defaultProvider?: string;
  /** providers named by the playbook sent to another instead (`claude` → `codex`), as the CLI's `--paseo-provider FROM=TO` */
  providerMap?: Readonly<Record<string, string>>;
  /** the model of roles and steps that name none (default: the provider's own default) */
  defaultModel?: string;
  /**
   * after `send_agent_message_response {accepted: false}`, how long to look for the turn it may have
   * started all the same (default 15 s, the daemon's own wait for a run to start)
   */
  startConfirmMs?: number;
  /**
   * how long create_agent_request may take to answer (default 120 s): the daemon answers only once the
   * agent's process has started, which took 3 to 72 s (median 15 s) on a loaded 2-core machine
   */
  createTimeoutMs?: number;
  /** where the report endpoint listens (loopback only; port 0, the default, picks a free one) */
  endpoint?: { host?: string; port?: number };
  /**
   * a report endpoint shared by every run of a long-lived host (serve), used instead of one of the
   * backend's own (`endpoint` is then ignored): the backend attaches its run to it and never closes
   * it. When it is persistent, the agents `adopt` takes up after a restart report to it again.
   */
  reports?: SharedReportEndpoint;
  /**
   * where read-only attempts' worktree snapshots are kept (`<home>/read-only`; serve's): an agent
   * that outlives a restart is checked against the snapshot of its start; without it they live in
   * memory and such an agent is lost
   */
  snapshots?: string;
  /** makes the runner of check steps, given the run's worktree (default: the runtime's `CheckRunner`) */
  checks?: (cwd: string) => CheckExecutor;
  /** timeouts and reconnection of the daemon connection */
  connection?: Pick<PaseoClientOptions, 'requestTimeoutMs' | 'handshakeTimeoutMs' | 'reconnect' | 'clientId'>;
  /** default: warnings and errors to standard error */
  log?: Log;
}

export const LABELS = {
  run: 'kairoku.run',
  playbook: 'kairoku.playbook',
  step: 'kairoku.step',
  attempt: 'kairoku.attempt',
  /** the port of the report endpoint the agent was given: whether a restarted runtime is still there */
  reportPort: 'kairoku.report-port',
  parent: 'paseo.parent-agent-id',
} as const;

/**
 * Paseo's providers that pass `config.systemPrompt` to the model (claude, codex, opencode, pi; read
 * off the daemon's providers). The others (copilot, and custom providers, which speak ACP) ignore it.
 */
export const SYSTEM_PROMPT_PROVIDERS: ReadonlySet<string> = new Set(['claude', 'codex', 'opencode', 'pi']);

/** A step's provider on Paseo: the one it (or its role) names, as mapped, else the default. */
export function providerOf(
  named: string | null,
  options: Pick<PaseoBackendOptions, 'defaultProvider' | 'providerMap'>,
): string {
  if (!named) return options.defaultProvider ?? 'claude';
  return options.providerMap?.[named] ?? named;
}

/** Paseo's limit on an explicit agent title. */
export const MAX_TITLE = 40;

/** The agent's title in Paseo: the step's title, `#N` after the first attempt, within Paseo's limit. */
export function agentTitle(title: string, attempt: number): string {
  const suffix = attempt > 1 ? ` #${attempt}` : '';
  const text = title.replace(/\s+/g, ' ').trim() || 'step';
  const room = MAX_TITLE - suffix.length;
  return `${text.length > room ? `${text.slice(0, room - 1)}…` : text}${suffix}`;
}
