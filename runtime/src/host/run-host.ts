import type { Ir } from '@kairoku-playbook/compiler';
import type { Backend } from '../driver/backend.js';
import type { Driver } from '../driver/driver.js';
import { advance, isEnded } from '@kairoku-playbook/machine';
import type { CarriedEffect, Kickoff, RunEvent, RunState } from '@kairoku-playbook/machine';
import { findRoomConflict } from '../store/room.js';
import { HostedRuns, asRequested } from './hosted-runs.js';
import { LiveRun } from './live-run.js';
import { ManagedRuns } from './managed-runs.js';
import { newRun } from './new-run.js';
import { operationSpec } from './operations.js';
import type { Operation } from './operations.js';
import { loseGoneRuns, recoverWorkspace } from './recovery.js';
import type { Recovered } from './recovery.js';
import { refused } from './refusal.js';
import type { HostRefusal, HostResult } from './refusal.js';
import { RunBook } from './run-book.js';
import type {
  Asked,
  Changed,
  CreateOptions,
  DriveOptions,
  ManagedChange,
  RunChange,
  RunHostOptions,
  StartOptions,
} from './run-host-types.js';

export type { HostRefusal, HostResult } from './refusal.js';
export type { Operation } from './operations.js';
export type {
  Asked,
  Changed,
  CreateOptions,
  DriveOptions,
  ManagedChange,
  RoomHelp,
  RunChange,
  RunHostOptions,
  StartOptions,
} from './run-host-types.js';
export { HOST_MANAGER } from './run-host-types.js';
export { newWorktreeBranch } from './new-run.js';
export type { Recovered } from './recovery.js';

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
 *
 * The modes live apart: `RunBook` (run-book.ts: the store, its lock, every write and read), the hosted
 * mode (hosted-runs.ts), the managed mode (managed-runs.ts), recovery (recovery.ts) and the making of a
 * run (new-run.ts). This class routes between them; it holds the driven mode, which is small.
 */
export class RunHost {
  readonly store;
  private readonly book: RunBook;
  private readonly hosted: HostedRuns;
  private readonly managed: ManagedRuns;
  /** runs driven with their gates decided here (`drive`) */
  private readonly driven = new Map<string, LiveRun>();
  private closed = false;

  constructor(private readonly options: RunHostOptions) {
    this.book = new RunBook(options);
    this.store = this.book.store;
    this.hosted = new HostedRuns(this.book);
    this.managed = new ManagedRuns(this.book);
  }

  get workspace(): string {
    return this.options.workspace;
  }

  get backendName(): string {
    return this.options.backend;
  }

  /** Listens for run writes; returns the function that stops listening. */
  subscribe(listener: (change: RunChange) => void): () => void {
    return this.book.subscribe(listener);
  }

  /** Listens for run files removed (`runs prune`, seen by the store's watch); returns the function that stops. */
  subscribeRemovals(listener: (id: string) => void): () => void {
    return this.book.subscribeRemovals(listener);
  }

  /** The version of a run's last write seen by this host (0 when it has not written it). */
  version(id: string): number {
    return this.book.version(id);
  }

  /** The run as it is now: in memory when hosted, else from the store. */
  get(id: string): HostResult<RunState> {
    const hosted = this.hosted.state(id);
    if (hosted) return { ok: true, value: hosted };
    return this.book.load(id);
  }

  /** Every run of the store (the hosted ones as they are in memory), and the files that do not read. */
  list(): { runs: RunState[]; problems: { file: string; message: string }[] } {
    const { runs, problems } = this.store.loadAll();
    return { runs: runs.map((r) => this.hosted.state(r.id) ?? r), problems };
  }

  /** On start: the runs of this workspace a host that died left active, taken up (recovery.ts). */
  recover(): Recovered {
    return recoverWorkspace(this.book, this.hosted);
  }

  /**
   * Recovery for callers that drive runs themselves (`run`, the MCP server), where `recover` would take
   * them up: the lost-agent rule on every active run of `backend` (default this host's), recovery.ts.
   */
  loseGone(
    agentExists: (agent: string | undefined) => boolean,
    backend = this.options.backend,
  ): { runs: RunState[]; problems: { file: string; message: string }[] } {
    return loseGoneRuns(this.book, agentExists, backend);
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
    const started = newRun(
      this.book,
      playbook,
      inputs,
      { ...options, manager: this.book.manager },
      (state, secrets) => {
        this.book.save(state);
        return this.hosted.start(state, secrets);
      },
    );
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
    const started = newRun(this.book, playbook, inputs, options, (state, secrets) => {
      this.book.save(state);
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
    const started = newRun(this.book, playbook, inputs, options, (state, secrets) => {
      this.managed.secrets.set(state.id, secrets);
      let applied: HostResult<Changed<T>> | undefined;
      try {
        applied = this.managed.apply(state, how, work, true);
        return applied;
      } finally {
        if (!applied?.ok) this.managed.secrets.delete(state.id);
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
    return this.book.locked(() => {
      if (this.drivesHere(id))
        return refused(
          'driven-here',
          `run ${id} is driven by this host: operate on it instead of changing it as a manager`,
          'conflict',
        );
      const loaded = this.book.load(id);
      if (!loaded.ok) return loaded;
      return this.managed.apply(loaded.value, how, work, false);
    });
  }

  /**
   * What the transition function says to `event` on `state`, with the secrets and mask key this host
   * holds for the run: a refusal's sentence, or undefined. Nothing is applied or written (a backend
   * asking whether a report would be taken, without the store's lock).
   */
  refusalOf(state: RunState, event: RunEvent): string | undefined {
    const context = { secrets: this.secretsOf(state.id), maskKey: this.book.maskKey };
    return advance(state, event, this.book.clock(), context).error;
  }

  /**
   * Names the manager of a run a manager drives (serve made a manager agent for it, whose id it learnt
   * once the run was made): under the store's lock, subscribers told. Not for a run driven here.
   */
  setManager(id: string, manager: string): HostResult<RunState> {
    return this.book.locked(() => {
      if (this.drivesHere(id))
        return refused(
          'driven-here',
          `run ${id} is driven by this host: it has no other manager`,
          'conflict',
        );
      const loaded = this.book.load(id);
      if (!loaded.ok) return loaded;
      const state: RunState = { ...loaded.value, manager };
      this.book.save(state);
      return { ok: true, value: state };
    });
  }

  /**
   * Sets (or, with undefined, drops) a managed run's queued kickoff (`RunState.kickoff`), under the
   * store's lock; subscribers are told.
   */
  setKickoff(id: string, kickoff: Kickoff | undefined): HostResult<RunState> {
    return this.book.locked(() => {
      const loaded = this.book.load(id);
      if (!loaded.ok) return loaded;
      const { kickoff: _old, ...rest } = loaded.value;
      const state: RunState = kickoff ? { ...rest, kickoff } : rest;
      this.book.save(state);
      return { ok: true, value: state };
    });
  }

  /** The secret input values this host holds for a run (memory only); none for other runs. */
  secretsOf(id: string): Record<string, unknown> {
    return this.hosted.secrets(id) ?? this.driven.get(id)?.secrets ?? this.managed.secrets.get(id) ?? {};
  }

  /**
   * Whether a new run of `ir` has room in this host's workspace (one active run per workspace,
   * `limits.concurrency` per playbook): the refusal `start` would give, read without the lock, for a
   * caller that has more to do before starting (connect a backend) and would rather be refused first.
   */
  room(ir: Ir): HostRefusal | undefined {
    const conflict = findRoomConflict(this.store.loadActive().runs, ir, this.workspace);
    return conflict ? this.book.roomRefusal(conflict, ir) : undefined;
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
    return this.book.locked(() => {
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
        const conflict = findRoomConflict(this.store.loadActive().runs, state.ir, this.workspace, state.id);
        if (conflict && isEnded(state.status))
          return { ok: false, refusal: this.book.roomRefusal(conflict, state.ir) };
      }
      switch (this.routeOf(state)) {
        case 'elsewhere':
          return this.ask(state, event.event, asked);
        case 'in-place':
          if (this.driven.has(state.id))
            return refused('driven-here', `run ${state.id} is driven by this host`, 'conflict');
          // A restart reopens the run with the same manager, no longer archived.
          return this.managed.inPlace(state, event.event, reopens ? state.manager : undefined);
        case 'here': {
          const applied = this.hosted.operate(state, event.event, reopens);
          return applied.ok ? this.get(state.id) : applied;
        }
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
    if (state.manager !== undefined && state.manager !== this.book.manager) return 'in-place';
    if (this.store.owner(state.id) !== undefined) return 'elsewhere';
    return this.hosted.canHost ? 'here' : 'in-place';
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
   * Takes a run's outbox (what changes applied in place left for its host) under the store's lock: the
   * run is saved without it, and the effects are the caller's to perform, in order. For a process that
   * hosts runs its own way (a manager's MCP server, `PaseoHost`); runs hosted here take theirs as they
   * are taken up.
   */
  takeOutbox(id: string): HostResult<CarriedEffect[]> {
    return this.managed.takeOutbox(id);
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
      clock: this.book.clock,
      maskKey: this.book.maskKey,
      persist: (next) => this.book.save(next),
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
    this.hosted.close();
    for (const id of [...this.driven.keys()]) this.letGo(id);
    this.book.close();
  }

  /**
   * From now on, subscribers also hear of run files other processes write (a manager agent's MCP
   * server, a step agent's report, `runs cancel` on a run nobody hosts), each as a change with a new
   * version, as soon as the file lands (an inotify watch on the run folder, not polling). `serve`
   * turns it on, so its page shows every run of the store live. Stops with `close`.
   */
  watchOtherWriters(log?: (line: string) => void): void {
    if (this.closed) return;
    // A run hosted here has one writer, this host: what the file says is what it wrote.
    this.book.watchOtherWriters((id) => this.drivesHere(id), log);
  }

  /** The runs this host drives now. */
  get active(): string[] {
    return this.hosted.ids;
  }

  private drivesHere(id: string): boolean {
    return this.hosted.has(id) || this.driven.has(id);
  }

  private archive(state: RunState): HostResult<RunState> {
    if (!isEnded(state.status))
      return refused(
        'run-not-ended',
        `run ${state.id} is ${state.status}: only an ended run can be archived (cancel it first)`,
        'conflict',
      );
    if (state.archivedAt) return { ok: true, value: state };
    const archived = { ...state, archivedAt: new Date(this.book.clock()).toISOString() };
    this.book.save(archived);
    this.hosted.replace(archived);
    return { ok: true, value: archived };
  }
}
