import { dueTimeouts } from '@kairoku-playbook/machine';
import type { RunEvent, RunState } from '@kairoku-playbook/machine';
import type { Driver } from '../../driver/driver.js';
import type { RunHost } from '../../host/run-host.js';
import { StoreBusyError } from '../../store/lock.js';
import type { RunStore } from '../../store/run-store.js';
import type { Backend, BackendContext, BackendEffect } from '../../driver/backend.js';

export interface StoreContextOptions {
  runId: string;
  /**
   * the host whose managed changes (`RunHost.change`) apply the events fed in: the MCP server's
   * (`PlaybookProtocol.host`), so its subscribers are told of them and the run's secrets are its
   */
  host: RunHost;
  clock: () => number;
  /** performs the effects of the events applied here (the run's backend; wake-ups to the manager) */
  perform: (effect: BackendEffect, context: BackendContext) => void;
  log: (line: string) => void;
}

/**
 * The `BackendContext` of one run whose agents answer later, in a server where the run lives in the
 * store rather than in memory (`kairoku-playbook mcp --agents paseo`). Each event a backend feeds in
 * is applied as a tool call applies one, by the host's managed change (`RunHost.change`): under the
 * store's lock, the run is loaded, the event goes through a driver without autopilot, its effects are
 * performed, the run is saved; so tool calls in this or other processes see it. `state()` is the
 * stored run.
 *
 * Re-entrancy: while an event is being applied (here, or by a tool call of this server through
 * `within`), events the backend feeds in synchronously join that driver's queue, under the lock
 * already held, instead of taking it again. The lock is never held across an await: every apply is
 * synchronous. An event that cannot take the lock (the store stayed busy) is kept and tried again at
 * the next `tick`.
 */
export class StoreBackedContext implements BackendContext {
  /** the driver applying events to this run right now (a tool call's or our own), under the lock */
  private active: Driver | undefined;
  /** events that found the store busy, tried again at the next tick */
  private deferred: RunEvent[] = [];
  /** the run as last read, for `state()` when the file cannot be read for a moment */
  private last: RunState | undefined;
  private readonly backend: Backend;

  constructor(private readonly options: StoreContextOptions) {
    this.backend = {
      name: 'paseo',
      perform: (effect) => options.perform(effect, this),
      agentExists: (agent) => agent !== undefined,
    };
  }

  get runId(): string {
    return this.options.runId;
  }

  emit(event: RunEvent): void {
    this.feed(event);
  }

  submit(event: RunEvent): string | undefined {
    return this.feed(event);
  }

  refusalOf(event: RunEvent): string | undefined {
    if (this.active) return this.active.context.refusalOf(event);
    // Judged on the stored run without the lock, as `state()` reads it: nothing is applied.
    return this.options.host.refusalOf(this.state(), event);
  }

  state(): RunState {
    if (this.active) return this.active.state;
    const stored = this.peek();
    if (!stored) throw new Error(`run ${this.options.runId} is no longer in ${this.store.folder}`);
    return stored;
  }

  /** The stored run, read without the lock (files are replaced atomically); undefined when it is gone. */
  peek(): RunState | undefined {
    try {
      const loaded = this.store.load(this.options.runId);
      if (loaded) this.last = loaded;
      return loaded ?? undefined;
    } catch (error) {
      this.options.log(`cannot read run ${this.options.runId}: ${(error as Error).message}`);
      return this.last;
    }
  }

  /**
   * Runs `work` (a tool call's change of this run, under the lock it holds) with `driver` as the run's
   * driver: what the backend feeds in meanwhile joins that driver's queue.
   */
  within<T>(driver: Driver, work: () => T): T {
    const outer = this.active;
    this.active = driver;
    try {
      return work();
    } finally {
      this.active = outer;
    }
  }

  /**
   * Applies `work` to the stored run, as one managed change of the host: under the store's lock, load,
   * let `work` dispatch through a driver (which performs the effects and saves). Undefined when the run
   * file is gone. Throws when the lock cannot be had (`StoreBusyError`) or the run cannot be read.
   */
  update<T>(work: (driver: Driver) => T): T | undefined {
    if (this.active) return work(this.active);
    const changed = this.options.host.change(
      this.options.runId,
      { backend: () => this.backend, around: (driver, apply) => this.within(driver, apply) },
      (driver) => work(driver),
    );
    if (!changed.ok) {
      if (changed.refusal.code === 'unknown-run') return undefined;
      throw new Error(changed.refusal.message);
    }
    this.last = changed.value.state;
    return changed.value.value;
  }

  private get store(): RunStore {
    return this.options.host.store;
  }

  /**
   * Once a second: events kept from a busy store, a cancel another process asked for (`runs
   * cancel`), and the step and run timeouts that are due. Returns the run as it is then.
   */
  tick(): RunState | undefined {
    for (const event of this.deferred.splice(0)) this.feed(event);
    const { clock } = this.options;
    const asked: RunEvent[] = this.store
      .takeRequests(this.options.runId)
      .map((request) =>
        request.type === 'cancel' && request.reason === undefined
          ? { type: 'cancel', reason: 'canceled by kairoku-playbook runs cancel' }
          : request,
      );
    const stored = this.peek();
    if (!asked.length && (!stored || !dueTimeouts(stored, clock()).length)) return stored;
    try {
      return this.update((driver) => {
        for (const event of asked) driver.dispatch(event);
        for (const event of dueTimeouts(driver.state, clock())) driver.dispatch(event);
        return driver.state;
      });
    } catch (error) {
      this.deferred.push(...asked);
      this.options.log(`run ${this.options.runId}: ${(error as Error).message}`);
      return stored;
    }
  }

  /** An event from the backend: into the driver at work, else applied to the stored run now. */
  private feed(event: RunEvent): string | undefined {
    if (this.active) return this.active.context.submit(event);
    try {
      return this.update((driver) => driver.context.submit(event));
    } catch (error) {
      // The store stayed busy: the event is not lost, it is tried again at the next tick.
      const busy = error instanceof StoreBusyError;
      if (busy) this.deferred.push(event);
      this.options.log(
        `run ${this.options.runId}: ${event.type}${'step' in event && event.step ? ` of ${event.step}` : ''} ${busy ? 'is kept for later' : 'was dropped'}: ${(error as Error).message}`,
      );
      return undefined;
    }
  }
}
