/* eslint-disable max-lines -- over the bound when the rule came in (2026-12-06): to be split, issue 22 */
import type { Ir } from '@kairoku-playbook/compiler';
import type { Backend, BackendContext, BackendEffect } from '../driver/backend.js';
import { Driver } from '../driver/driver.js';
import {
  advance,
  createRun,
  dueTimeouts,
  hasWorkGoing,
  isEnded,
  prepareInputs,
  splitSecrets,
  vecToArray,
} from '@kairoku-playbook/machine';
import type {
  CarriedEffect,
  RunEvent,
  RunStartOptions,
  RunState,
  TransitionRefusal,
} from '@kairoku-playbook/machine';
import { lockStore, StoreBusyError } from '../store/lock.js';
import { loseGoneAgents } from '../store/recover.js';
import { describeRoomConflict, findRoomConflict } from '../store/room.js';
import type { RoomConflict } from '../store/room.js';
import { RunStore } from '../store/run-store.js';
import type { OperatorRequest } from '../store/run-store.js';
import { LiveRun } from './live-run.js';
import type { LiveRunOptions } from './live-run.js';
import { loadMaskKey } from './mask-key.js';
import { fileStamp, watchStore } from './store-watch.js';
import { outboxBackend, performCarried, withCarried, withoutOutbox } from './outbox.js';
import { operationSpec } from './operations.js';
import type { Operation } from './operations.js';

export type { HostRefusal, HostResult } from './refusal.js';
import type { HostRefusal, HostResult } from './refusal.js';

export type { Operation } from './operations.js';

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
  managerExists?: (manager: string) => boolean;
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

interface Hosted {
  driver: Driver;
  backend: Backend;
  secrets: Record<string, unknown>;
}

/**
 * The one place runs are built and driven (`serve`, `run`, `runs`, `mcp` and the tests use it). Every
 * run is created here (`create`: inputs checked, room refused with typed codes, the active-twin
 * warning, id, branch, record), then driven one of three ways:
 *
 * - **hosted** (`start`, `recover`, `operate`: `serve`): a `Driver` with autopilot; gates stay open
 *   until someone decides them; step and run timeouts come from one timer. The run is claimed in the
 *   store, so other processes ask the host (requests) rather than write its file.
 * - **driven** (`startDriven`, `drive`: `run`, `runs restart|decide` without a serve): a `LiveRun`
 *   with autopilot and the caller's backend; gates decided by a script, `--gate` or a person at a
 *   terminal. Claimed too.
 * - **managed** (`startManaged`, `change`: the MCP server, a manager agent decides, and what its runs'
 *   Paseo agents feed in between tool calls; `runs cancel` of a run no process drives): no claim, no
 *   autopilot; each change a one-shot under the store's lock (load, a driver over the caller's
 *   backend, the events, save), so the manager's server and step agents' servers, in other
 *   processes, share the run file.
 *
 * Every write goes through `save` (whole: write, fsync, rename) and is told to subscribers
 * (`subscribe`); secret input values stay in memory (`secretsOf`).
 */
export class RunHost {
  readonly store: RunStore;
  private readonly hosted = new Map<string, Hosted>();
  /** runs driven with their gates decided here (`drive`) */
  private readonly driven = new Map<string, LiveRun>();
  /** secret input values of the managed runs started here (`startManaged`), in memory only */
  private readonly managedSecrets = new Map<string, Record<string, unknown>>();
  private readonly listeners = new Set<(change: RunChange) => void>();
  private readonly versions = new Map<string, number>();
  /** `watchOtherWriters`: the watch, and each run file's stamp as this host last wrote it */
  private storeWatch: { close: () => void } | undefined;
  private ownStamps: Map<string, string> | undefined;
  /** starts at the clock, so a later host's versions follow an earlier one's */
  private sequence: number;
  private readonly clock: () => number;
  private readonly timers: NonNullable<RunHostOptions['timers']>;
  /** started when the host first drives a run itself: only those have timeouts and requests to look for */
  private ticker: ReturnType<typeof setInterval> | undefined;
  private maskKeyOfHome: Uint8Array | undefined;
  private closed = false;

  constructor(private readonly options: RunHostOptions) {
    this.store = new RunStore(options.home);
    this.clock = options.clock ?? Date.now;
    this.sequence = this.clock();
    this.timers = options.timers ?? { setInterval, clearInterval };
  }

  get workspace(): string {
    return this.options.workspace;
  }

  get backendName(): string {
    return this.options.backend;
  }

  private get maskKey(): Uint8Array {
    return (this.maskKeyOfHome ??= loadMaskKey(this.store.home));
  }

  /** Listens for run writes; returns the function that stops listening. */
  subscribe(listener: (change: RunChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The version of a run's last write seen by this host (0 when it has not written it). */
  version(id: string): number {
    return this.versions.get(id) ?? 0;
  }

  /** The run as it is now: in memory when hosted, else from the store. */
  get(id: string): HostResult<RunState> {
    const hosted = this.hosted.get(id);
    if (hosted) return { ok: true, value: hosted.driver.state };
    return this.load(id);
  }

  /** Every run of the store (the hosted ones as they are in memory), and the files that do not read. */
  list(): { runs: RunState[]; problems: { file: string; message: string }[] } {
    const { runs, problems } = this.store.loadAll();
    return { runs: runs.map((r) => this.hosted.get(r.id)?.driver.state ?? r), problems };
  }

  /**
   * On start (seed 000): runs of this workspace left active by a host that died (or by a `run` process
   * that did) are taken up again; runs a manager agent of their own manages are left to it, unless that
   * manager is gone.
   * Running steps whose agents are gone are lost (the lost-agent rule: a retry within `retries`, else
   * the step is lost); open gates stay open and are shown again; a run whose manager is gone fails.
   * What could not be read is returned, not fatal.
   */
  recover(): {
    adopted: string[];
    failed: string[];
    /** active runs of another backend: left for a host of theirs (their agents may be at work) */
    otherBackends: string[];
    problems: { file: string; message: string }[];
  } {
    const adopted: string[] = [];
    const failed: string[] = [];
    const otherBackends: string[] = [];
    const problems = this.locked(() => {
      const all = this.store.loadAll();
      for (const stored of all.runs) {
        if (stored.workspace !== this.workspace) continue;
        if (!hasWorkGoing(stored)) continue;
        const manager = stored.manager;
        if (manager && manager !== this.manager && !(this.options.managerExists?.(manager) ?? true)) {
          // Seed 000: on start, a run whose manager no longer exists is failed.
          const result = advance(
            stored,
            { type: 'manager-lost', reason: `its manager (${manager}) no longer exists` },
            this.clock(),
          );
          if (result.refusal === undefined) {
            this.save(result.state);
            failed.push(stored.id);
          }
          continue;
        }
        // A run another live process drives (`run --backend paseo`), or that a manager agent of its own
        // manages (the MCP server's), is theirs: the host neither drives it with autopilot nor writes it.
        if (this.store.owner(stored.id) !== undefined) continue;
        if (manager && manager !== this.manager) continue;
        // A sim host does not take up a paseo run (its agents would be sim agents from then on), nor
        // the reverse: the run waits, whole, for a host of its backend.
        if (stored.backend !== this.options.backend) {
          otherBackends.push(stored.id);
          continue;
        }
        const backend = this.backendOf(stored);
        const exists =
          this.options.agentExists ??
          ((_state: RunState, agent: string | undefined) => backend.agentExists(agent));
        // A Kairoku dispatch a dead host left non-terminal is failed this way, never relaunched (RF-013).
        const { state } = loseGoneAgents(
          stored,
          (agent) => exists(stored, agent),
          this.clock(),
          stored.backend === 'kairoku'
            ? 'its dispatch was left non-terminal by a host that stopped: failed, never relaunched (RF-013)'
            : undefined,
        );
        if (state !== stored) this.save(state);
        if (!hasWorkGoing(state)) continue;
        const hosted = this.host(state, {}, backend);
        this.options.adopt?.(state, backend, hosted.driver.context);
        adopted.push(state.id);
      }
      return all.problems;
    });
    // A run taken up again goes on from where it stood (ready steps start, due timeouts fire).
    for (const id of adopted) {
      const hosted = this.hosted.get(id);
      if (hosted) this.kick(hosted);
    }
    return { adopted, failed, otherBackends, problems };
  }

  /**
   * Recovery for callers that drive runs themselves (`run`, the MCP server), where `recover` would take
   * them up: the lost-agent rule on every active run of `backend` (default this host's) whose running
   * agents no longer exist, under the store's lock; changed runs are saved (subscribers told). A run
   * another live process has claimed is left to it (its agents are that process's). Returns every
   * run of the store as it is then, and the files that do not read.
   */
  loseGone(
    agentExists: (agent: string | undefined) => boolean,
    backend = this.options.backend,
  ): { runs: RunState[]; problems: { file: string; message: string }[] } {
    return this.locked(() => {
      const { runs, problems } = this.store.loadAll();
      const now = this.clock();
      const after = runs.map((stored) => {
        if (stored.backend !== backend || this.store.owner(stored.id) !== undefined) return stored;
        const { state, lost } = loseGoneAgents(stored, agentExists, now);
        if (lost.length) this.save(state);
        return state;
      });
      return { runs: after, problems };
    });
  }

  /**
   * Starts a run of `ir` with `inputs` (checked against its input schema), driven here with autopilot
   * (gates held open for a decision). Refused past `limits.concurrency`, or while another run of the
   * workspace is active; a warning when an active run of the playbook has the same inputs.
   */
  start(
    playbook: Ir,
    inputs: Record<string, unknown>,
    options: StartOptions = {},
  ): HostResult<{ state: RunState; warnings: string[] }> {
    const started = this.create(playbook, inputs, { ...options, manager: this.manager }, (state, secrets) => {
      this.save(state);
      const hosted = this.host(state, secrets);
      const refusal = hosted.driver.send({ type: 'start' });
      if (refusal) return fromTransition<RunState>(refusal);
      this.settle(hosted);
      return { ok: true, value: hosted.driver.state };
    });
    if (!started.ok) return started;
    return { ok: true, value: { state: started.value.made, warnings: started.value.warnings } };
  }

  /**
   * Creates a run as `start` does (the same checks, refusals and warnings) and drives it with its gates
   * decided by whoever `drive` names, as `drive` does (`kairoku-playbook run`). No manager is recorded:
   * a host started later takes the run up if this process dies. The run is saved and claimed; the
   * caller sets it going (`LiveRun.begin`) and lets go of it (`letGo`).
   */
  startDriven(
    playbook: Ir,
    inputs: Record<string, unknown>,
    options: CreateOptions,
    drive: Omit<DriveOptions, 'secrets'>,
  ): HostResult<{ run: LiveRun; warnings: string[] }> {
    const started = this.create(playbook, inputs, options, (state, secrets) => {
      this.save(state);
      return { ok: true, value: this.drive(state, { ...drive, secrets }) };
    });
    if (!started.ok) return started;
    return { ok: true, value: { run: started.value.made, warnings: started.value.warnings } };
  }

  /**
   * Creates a run as `start` does, managed by `manager` (a manager agent over MCP): nobody claims it and
   * no autopilot drives it. `work` applies its first events (`start`) through a driver without
   * autopilot, as `change` does, before it is first written; a throw in `work` leaves no run behind.
   * The run's secret input values stay in this host's memory (`secretsOf`).
   */
  startManaged<B extends Backend, T>(
    playbook: Ir,
    inputs: Record<string, unknown>,
    options: CreateOptions & { manager: string },
    how: ManagedChange<B>,
    work: (driver: Driver, backend: B) => T,
  ): HostResult<Changed<T> & { warnings: string[] }> {
    const started = this.create(playbook, inputs, options, (state, secrets) => {
      this.managedSecrets.set(state.id, secrets);
      let applied: HostResult<Changed<T>> | undefined;
      try {
        applied = this.apply(state, how, work, true);
        return applied;
      } finally {
        if (!applied?.ok) this.managedSecrets.delete(state.id);
      }
    });
    if (!started.ok) return started;
    return { ok: true, value: { ...started.value.made, warnings: started.value.warnings } };
  }

  /**
   * One change of a run a manager drives (manager mode: the MCP server's tools): under the store's lock,
   * the run is loaded, its due timeouts and `work`'s events go through a driver without autopilot over
   * `how.backend`, with the secrets this host holds for it, and it is saved (subscribers told). Nobody
   * claims the run: the manager's server and step agents' servers, in other processes, change it the
   * same way. A throw in `work` is passed on (what was saved before it stays).
   */
  change<B extends Backend, T>(
    id: string,
    how: ManagedChange<B>,
    work: (driver: Driver, backend: B) => T,
  ): HostResult<Changed<T>> {
    return this.locked(() => {
      if (this.hosted.has(id) || this.driven.has(id))
        return refused(
          'driven-here',
          `run ${id} is driven by this host: operate on it instead of changing it as a manager`,
          'conflict',
        );
      const loaded = this.load(id);
      if (!loaded.ok) return loaded;
      return this.apply(loaded.value, how, work, false);
    });
  }

  /**
   * What the transition function says to `event` on `state`, with the secrets and mask key this host
   * holds for the run: a refusal's sentence, or undefined. Nothing is applied or written (a backend
   * asking whether a report would be taken, without the store's lock).
   */
  refusalOf(state: RunState, event: RunEvent): string | undefined {
    return advance(state, event, this.clock(), { secrets: this.secretsOf(state.id), maskKey: this.maskKey })
      .error;
  }

  /**
   * Names the manager of a run a manager drives (serve made a manager agent for it, whose id it learnt
   * once the run was made): under the store's lock, subscribers told. Not for a run driven here.
   */
  setManager(id: string, manager: string): HostResult<RunState> {
    return this.locked(() => {
      if (this.hosted.has(id) || this.driven.has(id))
        return refused(
          'driven-here',
          `run ${id} is driven by this host: it has no other manager`,
          'conflict',
        );
      const loaded = this.load(id);
      if (!loaded.ok) return loaded;
      const state: RunState = { ...loaded.value, manager };
      this.save(state);
      return { ok: true, value: state };
    });
  }

  /** The secret input values this host holds for a run (memory only); none for other runs. */
  secretsOf(id: string): Record<string, unknown> {
    return this.hosted.get(id)?.secrets ?? this.driven.get(id)?.secrets ?? this.managedSecrets.get(id) ?? {};
  }

  /**
   * Whether a new run of `ir` has room in this host's workspace (one active run per workspace,
   * `limits.concurrency` per playbook): the refusal `start` would give, read without the lock, for a
   * caller that has more to do before starting (connect a backend) and would rather be refused first.
   */
  room(ir: Ir): HostRefusal | undefined {
    const conflict = findRoomConflict(this.store.loadAll().runs, ir, this.workspace);
    return conflict ? this.roomRefusal(conflict, ir) : undefined;
  }

  /**
   * An operator's decision on a run, wherever the run is (the one way every caller operates: serve's
   * API, `runs`, the VS Code view through serve). A run hosted here goes to its driver; a run another
   * live process drives is asked through the store's mailbox (cancel, pause, resume: it applies them
   * within a second); a run nobody hosts, or one another process's manager manages, is changed in place
   * with its effects saved on the run (its outbox) for the process that hosts it to perform. Answers the
   * run as it is once the decision is on disk (as it is now, when a process was asked: `asked` hears
   * which, and the request's name, to wait for it to be taken or to retract it: `RunStore`).
   */
  operate(id: string, operation: Operation, asked?: Asked): HostResult<RunState> {
    return this.locked(() => {
      const loaded = this.get(id);
      if (!loaded.ok) return loaded;
      const state = loaded.value;
      const spec = operationSpec(operation.type);
      if (!spec) return refused('unknown-operation', `no operation "${operation.type}"`, 'invalid');
      const event = spec.apply(state, operation);
      if ('archive' in event) return this.archive(state);
      if ('refusal' in event) return { ok: false, refusal: event.refusal };
      const reopens = spec.reopens === true;
      if (reopens) {
        const conflict = findRoomConflict(this.store.loadAll().runs, state.ir, this.workspace, state.id);
        if (conflict && isEnded(state.status))
          return { ok: false, refusal: this.roomRefusal(conflict, state.ir) };
      }
      switch (this.routeOf(state)) {
        case 'elsewhere':
          return this.ask(state, event.event, asked);
        case 'in-place':
          // A restart reopens the run with the same manager, no longer archived.
          return this.operateInPlace(state, event.event, reopens ? state.manager : undefined);
        case 'here':
          return this.operateHere(state, event.event, reopens);
      }
    });
  }

  /**
   * Where an operation on `state` is applied: by this host's driver (hosted here, or taken up now), by
   * the live process that drives it, or in place (a manager elsewhere manages it, or this host drives
   * nothing of its own).
   */
  private routeOf(state: RunState): 'here' | 'elsewhere' | 'in-place' {
    if (this.hosted.has(state.id)) return 'here';
    if (state.manager !== undefined && state.manager !== this.manager) return 'in-place';
    if (this.store.owner(state.id) !== undefined) return 'elsewhere';
    return this.options.backendFor ? 'here' : 'in-place';
  }

  /** The run's driver (taken up here when it is not hosted yet) applies the operation's event. */
  private operateHere(state: RunState, event: RunEvent, reopens: boolean): HostResult<RunState> {
    const hosted = this.hosted.get(state.id) ?? this.host(state, {});
    const refusal = hosted.driver.send(event);
    if (refusal) {
      this.settle(hosted);
      return fromTransition(refusal);
    }
    if (reopens) {
      const reopened = hosted.driver.state;
      if (reopened.archivedAt !== undefined || reopened.manager !== this.manager) {
        const { archivedAt: _archived, ...rest } = reopened;
        this.save({ ...rest, manager: this.manager });
        this.rehost(hosted, { ...rest, manager: this.manager });
      }
    }
    this.settle(hosted);
    return this.get(state.id);
  }

  /**
   * A run another live process drives (`run` at a terminal, another serve): it is asked through the
   * store's mailbox, and applies the request within a second. Only what it reads there can be asked;
   * a refusal the transition would give now is given now.
   */
  private ask(state: RunState, event: RunEvent, asked?: Asked): HostResult<RunState> {
    const owner = this.store.owner(state.id)!;
    if (event.type !== 'cancel' && event.type !== 'pause' && event.type !== 'resume')
      return refused(
        'driven-elsewhere',
        `run ${state.id} is driven by process ${owner}, which asks its gates and steps itself: ${event.type === 'gate-decided' ? 'decide there, ' : ''}or cancel it`,
        'conflict',
      );
    const refusal = this.refusalOf(state, event);
    if (refusal !== undefined) return refused('refused', refusal, 'conflict');
    const request = this.store.request(state.id, event);
    asked?.(owner, request);
    return { ok: true, value: state };
  }

  /**
   * An operator's decision on a run no process here hosts (a manager agent's MCP server manages it,
   * or this host drives nothing of its own): applied in place, as a managed change, so the run is not
   * taken from its manager (no claim, no autopilot, its manager kept). Its effects are saved on the run
   * in the same write (its outbox), and performed by the process that hosts it: the manager's server
   * wakes its manager with the decision, stops a cancel's agents, sends a nudge.
   */
  private operateInPlace(loaded: RunState, event: RunEvent, reopenAs?: string): HostResult<RunState> {
    if (this.driven.has(loaded.id))
      return refused('driven-here', `run ${loaded.id} is driven by this host`, 'conflict');
    let refusal: TransitionRefusal | undefined;
    const backend = outboxBackend(loaded.backend);
    const changed = this.apply(
      loaded,
      {
        backend: () => backend,
        // (the effects a transition makes are kept before the driver writes its state)
        written: (state) => withCarried(state, backend.kept),
        ...(reopenAs !== undefined ? { reopenAs } : {}),
      },
      (driver) => {
        refusal = driver.send(event);
      },
      false,
    );
    if (!changed.ok) return changed;
    if (refusal) return fromTransition(refusal);
    return { ok: true, value: changed.value.state };
  }

  /**
   * Takes a run's outbox (what changes applied in place left for its host) under the store's lock: the
   * run is saved without it, and the effects are the caller's to perform, in order. For a process that
   * hosts runs its own way (a manager's MCP server, `PaseoHost`); runs hosted here take theirs as they
   * are taken up.
   */
  takeOutbox(id: string): HostResult<CarriedEffect[]> {
    return this.locked(() => {
      const loaded = this.load(id);
      if (!loaded.ok) return loaded;
      const carried = loaded.value.outbox ?? [];
      if (carried.length) this.save(withoutOutbox(loaded.value));
      return { ok: true, value: carried };
    });
  }

  /**
   * Drives `state` (created and saved by the caller, or loaded again for a restart) with its gates
   * decided by whoever `options` names: a script, `--gate`, a person at a terminal; a gate nobody here
   * decides stays open and the run waits at it (`LiveRun.done`, `waiting`). This is how `run` and
   * `runs restart|decide` drive a run when no serve is up. The run is claimed until `letGo`.
   */
  drive(state: RunState, options: DriveOptions): LiveRun {
    const run = new LiveRun({
      ...options,
      state,
      clock: this.clock,
      maskKey: this.maskKey,
      persist: (next) => this.save(next),
      requests: () => this.store.takeRequests(state.id).map(asRequested),
    });
    this.store.claim(state.id);
    this.driven.set(state.id, run);
    return run;
  }

  /** Stops driving a run `drive` started (its timers and questions) and lets go of its claim. */
  letGo(id: string): void {
    const run = this.driven.get(id);
    if (!run) return;
    this.driven.delete(id);
    run.close();
    this.store.release(id);
  }

  /** Stops the timer and lets go of every hosted run (their files stay as they are: a new host takes them up). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.ticker !== undefined) this.timers.clearInterval(this.ticker);
    this.storeWatch?.close();
    for (const id of [...this.driven.keys()]) this.letGo(id);
    for (const [id, hosted] of this.hosted) {
      this.store.release(id);
      // Not awaited: closing is the host letting go, nothing waits on it; a backend whose close fails
      // leaves no state behind that the run file does not hold (the next host recovers from the file).
      void hosted.backend.close?.();
    }
    this.hosted.clear();
    this.listeners.clear();
  }

  /**
   * From now on, subscribers also hear of run files other processes write (a manager agent's MCP
   * server, a step agent's report, `runs cancel` on a run nobody hosts), each as a change with a new
   * version, as soon as the file lands (an inotify watch on the run folder, not polling). `serve`
   * turns it on, so its page shows every run of the store live. Stops with `close`.
   */
  watchOtherWriters(log?: (line: string) => void): void {
    if (this.storeWatch || this.closed) return;
    this.ownStamps = new Map();
    this.storeWatch = watchStore({
      store: this.store,
      ownStamp: (id) => this.ownStamps?.get(id),
      changed: (state) => {
        // A run hosted here has one writer, this host: what the file says is what it wrote.
        if (this.hosted.has(state.id) || this.driven.has(state.id)) return;
        this.tell(state);
      },
      ...(log ? { log } : {}),
    });
  }

  /** The runs this host drives now. */
  get active(): string[] {
    return [...this.hosted.keys()];
  }

  // ---- the machinery ------------------------------------------------------------------------------

  private get manager(): string {
    return this.options.manager ?? HOST_MANAGER;
  }

  /**
   * The one place a run is made: its inputs checked, its room (under the store's lock), the warning
   * about an active twin, its id, branch and record; `then` saves and drives it (under the same lock).
   */
  private create<T>(
    playbook: Ir,
    inputs: Record<string, unknown>,
    options: CreateOptions & { manager?: string },
    then: (state: RunState, secrets: Record<string, unknown>) => HostResult<T>,
  ): HostResult<{ made: T; warnings: string[] }> {
    // A worktree asked for at start is the playbook's `workspace: new-worktree`, for this run: its
    // snapshot says so, and everything that reads the run (its branch, its backend) follows it.
    const ir: Ir = options.worktree ? { ...playbook, workspace: 'new-worktree' } : playbook;
    const startOptions: RunStartOptions = {
      ...(options.provider !== undefined ? { provider: options.provider } : {}),
      ...(options.model !== undefined ? { model: options.model } : {}),
    };
    const prepared = prepareInputs(ir, inputs);
    if (!prepared.ok)
      return refused(
        'invalid-input',
        prepared.errors.join('; '),
        'invalid',
        inputPointer(ir, prepared.errors),
      );
    return this.locked(() => {
      const { runs } = this.store.loadAll();
      const conflict = findRoomConflict(runs, ir, this.workspace);
      if (conflict) return { ok: false, refusal: this.roomRefusal(conflict, ir) };
      const { secrets, visible } = splitSecrets(ir, prepared.inputs);
      const same = JSON.stringify(visible);
      const warnings = runs
        .filter(
          (r) =>
            r.playbook === ir.id &&
            (r.status === 'running' || r.status === 'paused') &&
            JSON.stringify(r.inputs) === same,
        )
        .map((r) => `run ${r.id} of playbook "${ir.id}" is already active with the same inputs`);
      const id = options.id ?? this.store.newId(ir.id);
      const branch =
        options.branch ??
        (ir.workspace === 'new-worktree' ? newWorktreeBranch(ir.id, id) : (options.workspaceBranch ?? ''));
      const state: RunState = {
        ...createRun(ir, {
          id,
          inputs: prepared.inputs,
          now: this.clock(),
          maskKey: this.maskKey,
          backend: this.options.backend,
          branch,
        }),
        workspace: this.workspace,
        ...(options.manager !== undefined ? { manager: options.manager } : {}),
        ...(Object.keys(startOptions).length ? { startOptions } : {}),
      };
      const made = then(state, secrets);
      if (!made.ok) return made;
      return { ok: true, value: { made: made.value, warnings } };
    });
  }

  /**
   * A managed change of `loaded` (under the store's lock): a driver without autopilot, `work`, and a
   * reopened run handed to its new manager. `fresh`: a run not yet on disk, written even when `work`
   * changed nothing.
   */
  private apply<B extends Backend, T>(
    loaded: RunState,
    how: ManagedChange<B>,
    work: (driver: Driver, backend: B) => T,
    fresh: boolean,
  ): HostResult<Changed<T>> {
    if (how.reopenAs !== undefined && isEnded(loaded.status)) {
      const workspace = loaded.workspace ?? this.workspace;
      const conflict = findRoomConflict(this.store.loadAll().runs, loaded.ir, workspace, loaded.id);
      if (conflict) return { ok: false, refusal: this.roomRefusal(conflict, loaded.ir) };
    }
    const backend = how.backend(loaded);
    let saved = false;
    const write = (next: RunState): RunState => {
      const written = how.written ? how.written(next) : next;
      this.save(written);
      return written;
    };
    const driver = new Driver(loaded, {
      backend,
      autopilot: false,
      clock: this.clock,
      secrets: this.managedSecrets.get(loaded.id) ?? {},
      maskKey: this.maskKey,
      persist: (next) => {
        saved = true;
        write(next);
      },
    });
    const value = how.around ? how.around(driver, () => work(driver, backend)) : work(driver, backend);
    let state = driver.state;
    if (
      how.reopenAs !== undefined &&
      state !== loaded &&
      (state.manager !== how.reopenAs || state.archivedAt !== undefined)
    ) {
      const { archivedAt: _archived, ...rest } = state;
      state = write({ ...rest, manager: how.reopenAs });
    } else if (fresh && !saved) state = write(state);
    else if (how.written) state = how.written(state);
    return { ok: true, value: { value, state } };
  }

  /** No room for another active run: the workspace has one, or the playbook is at `limits.concurrency`. */
  private roomRefusal(conflict: RoomConflict, ir: Ir): HostRefusal {
    const help = this.options.roomHelp ?? {
      cancel: (id: string) => `the panel or kairoku-playbook runs cancel ${id}`,
      decide: (id: string, gate: string) => `the panel or kairoku-playbook runs decide ${id} ${gate} CHOICE`,
    };
    return refusedValue(
      conflict.kind === 'workspace' ? 'workspace-busy' : 'concurrency-limit',
      describeRoomConflict(conflict, ir, help.cancel, help.decide),
      'conflict',
    );
  }

  private archive(state: RunState): HostResult<RunState> {
    if (!isEnded(state.status))
      return refused(
        'run-not-ended',
        `run ${state.id} is ${state.status}: only an ended run can be archived (cancel it first)`,
        'conflict',
      );
    if (state.archivedAt) return { ok: true, value: state };
    const archived = { ...state, archivedAt: new Date(this.clock()).toISOString() };
    this.save(archived);
    const hosted = this.hosted.get(state.id);
    if (hosted) this.rehost(hosted, archived);
    return { ok: true, value: archived };
  }

  /** Drives `state` from now on: its backend, autopilot, its gates held open for a decision. */
  private host(state: RunState, secrets: Record<string, unknown>, backend?: Backend): Hosted {
    const inner = backend ?? this.backendOf(state);
    this.startTicking();
    const routed: Backend = {
      name: inner.name,
      perform: (effect: BackendEffect, context: BackendContext) => {
        // Gates are the host's: an open gate waits in the run file for someone to decide it.
        if (effect.type === 'open-gate' || effect.type === 'close-gate') return;
        inner.perform(effect, context);
      },
      agentExists: (agent) => inner.agentExists(agent),
      ...(inner.close ? { close: () => inner.close?.() ?? Promise.resolve() } : {}),
    };
    const hosted: Hosted = { driver: undefined as unknown as Driver, backend: routed, secrets };
    const carried = state.outbox ?? [];
    const taken = withoutOutbox(state);
    hosted.driver = new Driver(taken, {
      backend: routed,
      clock: this.clock,
      secrets,
      maskKey: this.maskKey,
      persist: (next) => this.save(next),
    });
    this.hosted.set(state.id, hosted);
    this.store.claim(state.id);
    // What changes applied in place left for the run's host: performed now, in order, and emptied.
    if (carried.length) {
      this.save(taken);
      for (const effect of carried) performCarried(effect, routed, hosted.driver.context);
    }
    return hosted;
  }

  /** The backend of a run the host drives itself. */
  private backendOf(state: RunState): Backend {
    const backendFor = this.options.backendFor;
    if (!backendFor) throw new Error(`this host has no backend of its own to drive run ${state.id} with`);
    return backendFor(state);
  }

  private startTicking(): void {
    if (this.ticker !== undefined || this.closed) return;
    this.ticker = this.timers.setInterval(() => this.tick(), this.options.tickMs ?? 1000);
    this.ticker.unref?.();
  }

  /** The same backend and secrets, driving a state the host changed outside the driver (archive, a new manager). */
  private rehost(old: Hosted, state: RunState): void {
    old.driver = new Driver(state, {
      backend: old.backend,
      clock: this.clock,
      secrets: old.secrets,
      maskKey: this.maskKey,
      persist: (next) => this.save(next),
    });
  }

  /** A run taken up again: what was ready starts (autopilot), due timeouts fire. */
  private kick(hosted: Hosted): void {
    const state = hosted.driver.state;
    if (state.status === 'running')
      for (const step of vecToArray(state.steps)) {
        const ir = state.ir.steps.find((s) => s.name === step.name);
        const outcome = step.attempts.at(-1)?.outcome;
        // Autopilot applies a report as reported: one the dead host had not applied yet is applied now.
        if (step.status === 'reported' && outcome !== undefined)
          hosted.driver.send({ type: 'complete-step', step: step.name, outcome });
        if (step.status !== 'ready' || !ir) continue;
        hosted.driver.send(
          ir.kind === 'gate'
            ? { type: 'request-gate', step: step.name }
            : { type: 'start-step', step: step.name },
        );
      }
    for (const due of dueTimeouts(hosted.driver.state, this.clock())) hosted.driver.send(due);
    this.settle(hosted);
  }

  /** A run that has ended, with no after-task going, is let go of. */
  private settle(hosted: Hosted): void {
    const state = hosted.driver.state;
    if (hasWorkGoing(state)) return;
    if (this.hosted.get(state.id) !== hosted) return;
    this.hosted.delete(state.id);
    this.store.release(state.id);
    // Not awaited: the run has ended and is written; a failed close of its backend changes nothing in it.
    void hosted.backend.close?.();
  }

  private tick(): void {
    if (this.closed) return;
    for (const hosted of [...this.hosted.values()]) {
      const id = hosted.driver.state.id;
      try {
        this.locked(() => {
          for (const asked of this.store.takeRequests(id)) hosted.driver.send(asRequested(asked));
          for (const due of dueTimeouts(hosted.driver.state, this.clock())) hosted.driver.send(due);
          this.settle(hosted);
        });
      } catch (error) {
        // A busy store is tried again at the next tick; anything else is a bug worth seeing.
        if (!(error instanceof StoreBusyError)) throw error;
      }
    }
  }

  /** Writes a run file (whole, fsynced) and tells subscribers. */
  private save(state: RunState): void {
    this.store.save(state);
    if (this.ownStamps) {
      const stamp = fileStamp(this.store.path(state.id));
      if (stamp !== undefined) this.ownStamps.set(state.id, stamp);
    }
    this.tell(state);
  }

  /** A new version of a run for the subscribers. */
  private tell(state: RunState): void {
    const version = ++this.sequence;
    this.versions.set(state.id, version);
    for (const listener of this.listeners) listener({ state, version });
  }

  private load(id: string): HostResult<RunState> {
    let state: RunState | undefined;
    try {
      state = this.store.load(id);
    } catch (error) {
      return refused('unreadable-run', `run ${id} cannot be read: ${(error as Error).message}`, 'conflict');
    }
    if (!state) return refused('unknown-run', `there is no run "${id}"`, 'not-found');
    return { ok: true, value: state };
  }

  /** The store's lock around a change (other processes write the store too); re-entrant. */
  private depth = 0;
  private locked<T>(action: () => T): T {
    if (this.depth > 0) return action();
    this.depth++;
    try {
      return lockStore(this.store.folder, action);
    } finally {
      this.depth--;
    }
  }
}

/** An event another process asked for (`runs cancel`), as the run records it. */
function asRequested(asked: OperatorRequest): RunEvent {
  return asked.type === 'cancel' && asked.reason === undefined
    ? { type: 'cancel', reason: 'canceled by kairoku-playbook runs cancel' }
    : asked;
}

/** A run's own worktree gets its own branch (seed 000): `playbooks/<playbook>-<short id>`. */
export function newWorktreeBranch(playbook: string, runId: string): string {
  return `playbooks/${playbook}-${runId.slice(-6)}`;
}

/**
 * A refusal of the transition function: a step or after-task it does not know is not found (404, as for
 * an unknown run); every other code says "not now" (409).
 */
function fromTransition<T>(refusal: TransitionRefusal): HostResult<T> {
  const notFound = refusal.code === 'unknown-step' || refusal.code === 'unknown-after-task';
  return refused(refusal.code, refusal.message, notFound ? 'not-found' : 'conflict');
}

function refusedValue(code: string, message: string, kind: HostRefusal['kind'], field?: string): HostRefusal {
  return { code, message, kind, ...(field !== undefined ? { field } : {}) };
}

function refused<T>(code: string, message: string, kind: HostRefusal['kind'], field?: string): HostResult<T> {
  return { ok: false, refusal: refusedValue(code, message, kind, field) };
}

/** The input the first error names (`input "repo" ...`), as a JSON pointer into the request. */
function inputPointer(ir: Ir, errors: readonly string[]): string | undefined {
  for (const error of errors) {
    const named = /input "([^"]+)"/.exec(error)?.[1];
    if (named !== undefined && ir.inputs.some((i) => i.name === named)) return `/inputs/${named}`;
  }
  return undefined;
}
