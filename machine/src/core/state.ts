import type { AttemptView } from '@kairoku-playbook/protocol';
import type { Ir } from '@kairoku-playbook/compiler';
import type { CarriedEffect } from './effects.js';
import type { PVec } from './pvec.js';

/**
 * Run state (SPEC §6): everything a run is, in plain JSON. The transition function reads one of these
 * and returns the next; the store writes it to disk. Secrets never appear in it: secret inputs are
 * stored as `MASK`, and their values travel beside the state, in memory only.
 */

export const STATE_VERSION = 1;
export const MASK = '••••••';

export type RunStatus = 'running' | 'paused' | 'completed' | 'failed' | 'canceled';

export type StepStatus =
  | 'pending'
  | 'ready'
  | 'running'
  | 'reported'
  | 'waiting'
  | 'completed'
  | 'skipped'
  | 'failed'
  | 'canceled'
  | 'lost';

/**
 * One attempt of a step: an agent's turn, a check's commands, or one opening of a gate, as the run file
 * records it. Defined once, as the protocol's `AttemptView`, so serve's API shows attempts as they are kept.
 */
export type Attempt = AttemptView;

export interface StepRun {
  name: string;
  status: StepStatus;
  attempts: Attempt[];
  /** needs not yet settled (completed or skipped); kept incrementally */
  unsettledNeeds: number;
  /** retries spent since the step was last reset */
  retriesUsed: number;
  /** what the last loop back to this step handed it */
  loop: { count: number; feedback: string; counter: string } | null;
  /** the open gate, while `waiting` */
  gate: { title: string; summary: string; openedAt: string } | null;
  /** the outcome that settled the step */
  outcome: string | null;
  outputs: Record<string, unknown> | null;
  summary: string | null;
  /** why the step was skipped, failed, canceled or lost */
  reason: string | null;
}

export type { WakeUp, WakeUpKind } from './wakeup.js';
import type { WakeUp } from './wakeup.js';

export interface HistoryEntry {
  at: string;
  kind: string;
  step?: string;
  attempt?: number;
  text: string;
  /**
   * a note that came again (the same kind, step, attempt and text): how many times in all, and when
   * last — repeats are counted here instead of each adding an entry
   */
  count?: number;
  lastAt?: string;
}

/**
 * What outsiders (backends, runners, step agents' refused calls) have written to the history as
 * notes: the run keeps at most `NOTE_LIMITS.entries` of them, and counts the rest in one entry.
 */
export interface NoteLog {
  /** note entries in the history */
  entries: number;
  /** notes not recorded since the limit was reached, and the history entry that counts them */
  dropped: number;
  droppedEntry?: number;
}

/** A keyed fingerprint of a piece of a secret input, for masking it in output (core/secret-mask.ts). */
export interface SecretFingerprint {
  length: number;
  /** the keyed rolling hash of the piece (a fast first look) */
  roll: number;
  /** HMAC-SHA256 of the piece, first 128 bits, base64url (the proof) */
  mac: string;
}

export interface RunState {
  version: typeof STATE_VERSION;
  id: string;
  playbook: string;
  title: string;
  backend: string;
  branch: string;
  /** the IR the run was started with: a later edit of the playbook does not change a running run */
  ir: Ir;
  /** the run's inputs, defaults applied, secret ones as `MASK` */
  inputs: Record<string, unknown>;
  secretInputs: string[];
  /**
   * per secret input given, keyed fingerprints of what is masked (`secret-mask.ts`): never the value,
   * and nothing to guess it against without the home's key; absent when no key was given
   */
  secretFingerprints?: Record<string, SecretFingerprint[]>;
  status: RunStatus;
  /** why the run failed or was canceled */
  reason: string | null;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  updatedAt: string;
  /** the run's wall clock (limits.timeout): the driver raises a run timeout then */
  deadline: string | null;
  /** index-aligned with `ir.steps` */
  steps: PVec<StepRun>;
  /** index-aligned with `ir.after` */
  after: StepRun[];
  /** steps completed or skipped; the run completes when this reaches the step count */
  settled: number;
  /** loop counters, keyed STEP.OUTCOME (a gate: STEP.CHOICE) */
  loops: Record<string, number>;
  /** steps that would have become ready while the run was paused */
  deferred: { step: number; retry: boolean }[];
  /** wake-ups held while the run is paused */
  wakeups: WakeUp[];
  history: PVec<HistoryEntry>;
  /** absent until the first note */
  notes?: NoteLog;
  /** the playbook's outputs, once the run has ended */
  outputs: Record<string, unknown> | null;
  /**
   * Set by the manager protocol (`src/mcp/`), carried unchanged by the transition function:
   * the workspace folder the run belongs to (one active run per workspace), who manages it, and
   * when it was archived (hidden from `list_runs` unless asked for; `restart_run` clears it).
   */
  workspace?: string;
  manager?: string;
  archivedAt?: string;
  /**
   * What the run was started with beyond its inputs (the panel's start options): the provider and
   * model of its steps that name none. Kept in the run file so a host that takes the run up again
   * starts its next agents the same way.
   */
  startOptions?: RunStartOptions;
  /**
   * Effects of changes applied where nobody could perform them (an operator's decision on a run no
   * process here hosts, or one another process manages): stop these agents, deliver this nudge, wake
   * the manager. The next process that hosts the run performs them, in order, and empties it
   * (`runtime/src/host/outbox.ts`). Absent when empty.
   */
  outbox?: CarriedEffect[];
  /**
   * The first message for a manager agent that was not made for the run (serve's Start with the
   * workspace's current agent): kept here until that agent is idle and it is sent (`sentAt`), so a
   * restarted serve still delivers it; `confirmedAt` once the agent has called a playbook tool. It
   * also tells that agent's MCP server, which may not know its agent, whom it serves.
   */
  kickoff?: Kickoff;
}

/** A queued first message for a run's manager agent (`RunState.kickoff`). */
export interface Kickoff {
  /** the agent, as its backend names it (a Paseo agent id) */
  agent: string;
  text: string;
  queuedAt: string;
  sentAt?: string;
  confirmedAt?: string;
}

/** A run's start options (a backend that has agents: paseo). */
export interface RunStartOptions {
  provider?: string;
  model?: string;
}

/** How much of the history notes may take (see `NoteLog`). */
export const NOTE_LIMITS = {
  /** characters of one note's text */
  text: 2000,
  /** note entries per run; more are counted, not recorded */
  entries: 500,
  /** how many recent history entries a repeated note is looked for in */
  window: 64,
} as const;

/** Refers to a step by name, or to an after-task as `after.NAME`. */
export const AFTER_PREFIX = 'after.';

export const ENDED: readonly RunStatus[] = ['completed', 'failed', 'canceled'];

export function isEnded(status: RunStatus): boolean {
  return ENDED.includes(status);
}

/** Steps in these states have an agent working, a report waiting for a decision, or a gate open. */
export const ACTIVE: readonly StepStatus[] = ['running', 'reported', 'waiting'];

/** A run with work going: not ended, or ended with an after-task still at work (its host keeps it). */
export function hasWorkGoing(state: RunState): boolean {
  return !isEnded(state.status) || state.after.some((task) => ACTIVE.includes(task.status));
}
