/**
 * What the `kairoku` backend keeps of each dispatch and each runner, and what its views (the queue, the
 * fleet) show of them.
 */
import type { StepReport } from '../report-endpoint.js';
import type { CuratedEvent, Dispatch, TerminalStatus } from './protocol.js';

export type DispatchState = 'queued' | 'held' | 'ended';
/** how a dispatch ended: a runner's terminal status, or the app's own reasons */
export type DispatchEnd = TerminalStatus | 'lost' | 'withdrawn';

export interface DispatchRecord {
  id: string;
  run: string;
  step: string;
  attempt: number;
  kind: 'agent' | 'check';
  readOnly: boolean;
  repository: string;
  machine: string | null;
  document: Dispatch;
  state: DispatchState;
  end?: DispatchEnd;
  reason?: string;
  runner?: string;
  claimedAt?: number;
  token?: string;
  /** the app stopped it (stop-agent): the runner tears it down and nothing more is fed to the run */
  canceled: boolean;
  /** its agent's report was accepted */
  reported: boolean;
  /** a read-only agent's report, fed in once the runner's worktree check is clean */
  heldReport?: StepReport;
  lastSeq: number;
  phase?: string;
  /** the last curated events (bounded) */
  events: CuratedEvent[];
  /** curated events written to the run's history as `agent` notes (at most HISTORY_EVENTS_PER_DISPATCH) */
  historyEvents: number;
}

export interface RunnerRecord {
  id: string;
  machine: string;
  version: string;
  repositories: string[];
  max: number;
  running: number;
  lastHeartbeat: number;
  held: Set<string>;
  /** the operator asked it to drain */
  drain: boolean;
  /** it says it is draining */
  draining: boolean;
}

/** What a view of the queue shows of a dispatch. */
export interface DispatchView {
  id: string;
  run: string;
  step: string;
  attempt: number;
  kind: 'agent' | 'check';
  state: DispatchState;
  end?: DispatchEnd;
  reason?: string;
  runner?: string;
  canceled: boolean;
  reported: boolean;
  events: CuratedEvent[];
}

export interface RunnerView {
  id: string;
  machine: string;
  repositories: string[];
  capacity: { running: number; max: number };
  held: string[];
  lastHeartbeat: string;
  drain: boolean;
}

/** A runner first heard of: what its heartbeat says is filled in by the caller. */
export function newRunner(id: string, now: number): RunnerRecord {
  return {
    id,
    machine: '',
    version: '',
    repositories: [],
    max: 0,
    running: 0,
    lastHeartbeat: now,
    held: new Set(),
    drain: false,
    draining: false,
  };
}

export function dispatchView(d: DispatchRecord): DispatchView {
  const view: DispatchView = {
    id: d.id,
    run: d.run,
    step: d.step,
    attempt: d.attempt,
    kind: d.kind,
    state: d.state,
    canceled: d.canceled,
    reported: d.reported || d.heldReport !== undefined,
    events: [...d.events],
  };
  if (d.end) view.end = d.end;
  if (d.reason) view.reason = d.reason;
  if (d.runner) view.runner = d.runner;
  return view;
}

export function runnerView(r: RunnerRecord): RunnerView {
  return {
    id: r.id,
    machine: r.machine,
    repositories: [...r.repositories],
    capacity: { running: r.running, max: r.max },
    held: [...r.held],
    lastHeartbeat: new Date(r.lastHeartbeat).toISOString(),
    drain: r.drain,
  };
}
