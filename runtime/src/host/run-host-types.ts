import type { Backend, BackendContext } from '../driver/backend.js';
import type { Driver } from '../driver/driver.js';
import type { RunStartOptions, RunState } from '@kairoku-playbook/machine';
import type { LiveRunOptions } from './live-run.js';

// The run host's options and the shapes its callers pass and get (run-host.ts re-exports them).

/** Told which live process an operation was asked of, and the request's name in the store. */
export type Asked = (owner: number, request: string) => void;

/**
 * How a run is started beyond its inputs (the panel's start options), where the host's backend
 * supports them (`RunHostOptions.startOptions`): the provider and model of its steps that name
 * none, and a worktree of its own (the playbook's `workspace: new-worktree`, for this run).
 */
export interface StartOptions extends RunStartOptions {
  worktree?: boolean;
}

/** A run file was written: `version` increases with every write, across every run of the host. */
export interface RunChange {
  state: RunState;
  version: number;
}

export interface RunHostOptions {
  /** the run store's home */
  home: string;
  /** the workspace whose runs this host owns (its real path) */
  workspace: string;
  /** the backend new runs are started on, by name (`sim`, `paseo`, `kairoku`) */
  backend: string;
  /**
   * the backend that runs the agents and checks of a run the host drives itself (`start`, `recover`,
   * `operate`); gates are the host's (they wait for a decision). A host whose runs are all driven by
   * their callers (`startDriven`, `drive`) or managed (`startManaged`, `change`) needs none.
   */
  backendFor?: (state: RunState) => Backend;
  /**
   * How a refusal for want of room names what frees it, for the run in the way: `cancel` (a command,
   * a tool call), `decide` a gate it waits at. Default: the panel and `kairoku-playbook runs`.
   */
  roomHelp?: RoomHelp;
  /**
   * A backend that was watching agents when an earlier host stopped takes them up again here
   * (`PaseoBackend.adopt`): called for each run `recover` takes up, with the run's driver context,
   * before the run goes on.
   */
  adopt?: (state: RunState, backend: Backend, context: BackendContext) => void;
  /** recorded as the manager of runs started here */
  manager?: string;
  /**
   * whether a run's recorded manager still exists (recovery, seed 000: a run whose manager is gone
   * fails); default: every manager this host cannot judge is presumed alive
   */
  managerExists?: (manager: string, runId: string) => boolean;
  /**
   * whether the agent behind a running attempt still exists, by the run's backend (recovery, the
   * lost-agent rule); default: a run's own backend is asked (`Backend.agentExists`)
   */
  agentExists?: (state: RunState, agent: string | undefined) => boolean;
  clock?: () => number;
  /** how often timeouts and other processes' requests are looked for (default 1 s) */
  tickMs?: number;
  timers?: { setInterval: typeof setInterval; clearInterval: typeof clearInterval };
}

/**
 * A run driven with someone here to decide its gates (`RunHost.drive`): its backend is the caller's
 * (connected before, closed after), the rest is the host's (the clock, the mask key, every write, the
 * claim on the run, the requests of other processes).
 */
export type DriveOptions = Omit<LiveRunOptions, 'state' | 'persist' | 'requests' | 'clock' | 'maskKey'>;

/** How a refusal for want of room says to free it (`describeRoomConflict`). */
export interface RoomHelp {
  cancel: (id: string) => string;
  decide?: (id: string, gate: string) => string;
}

/** How a run is created (`startDriven`, `startManaged`) beyond its start options. */
export interface CreateOptions extends StartOptions {
  /** an id chosen before (a backend was connected for the run); default a new one */
  id?: string;
  /**
   * the run's branch when the caller knows it (a backend connected for the run named it); default a
   * new worktree's `playbooks/<playbook>-<short id>`, else `workspaceBranch`
   */
  branch?: string;
  /** the branch of the workspace, for a run that works in it (not in a new worktree of its own) */
  workspaceBranch?: string;
}

/**
 * One change of a run a manager drives (`change`, `startManaged`): nobody claims the run and no
 * autopilot plays the manager; the change is a one-shot under the store's lock.
 */
export interface ManagedChange<B extends Backend> {
  /** the backend of this change, made for the run as loaded; it performs the change's effects */
  backend: (state: RunState) => B;
  /**
   * runs the change: a backend whose agents feed events in while it is applied routes them to this
   * driver (`PaseoHost.within`) instead of taking the store's lock again
   */
  around?: <T>(driver: Driver, work: () => T) => T;
  /**
   * a restart by a manager: refused without room when the run had ended; once reopened, the run is
   * managed by `reopenAs` and no longer archived
   */
  reopenAs?: string;
  /**
   * what is written of the run, every time it is written (a change applied in place adds its effects
   * to the run's outbox, so they are saved in the change's own write)
   */
  written?: (state: RunState) => RunState;
}

/** What a managed change did: `work`'s value and the run as it is on disk. */
export interface Changed<T> {
  value: T;
  state: RunState;
}

/** The manager name of runs a host drives itself (autopilot). */
export const HOST_MANAGER = 'kairoku-playbook serve';

/**
 * The manager recorded while a hosting backend makes the run's manager agent in the background (its id
 * is not known yet: serve's "Start on a new agent" on Paseo); the panel says so.
 */
export const MANAGER_BEING_MADE = 'kairoku-playbook serve, making a Paseo manager agent';
