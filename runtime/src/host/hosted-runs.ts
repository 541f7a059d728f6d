import type { Backend, BackendContext, BackendEffect } from '../driver/backend.js';
import { Driver } from '../driver/driver.js';
import { dueTimeouts, hasWorkGoing, vecToArray } from '@kairoku-playbook/machine';
import type { RunEvent, RunState } from '@kairoku-playbook/machine';
import { StoreBusyError } from '../store/lock.js';
import type { OperatorRequest } from '../store/run-store.js';
import { performCarried, withoutOutbox } from './outbox.js';
import { fromTransition } from './refusal.js';
import type { HostResult } from './refusal.js';
import { isStorageFault } from './run-book.js';
import type { RunBook } from './run-book.js';
import type { RunHostOptions } from './run-host-types.js';

interface Hosted {
  driver: Driver;
  backend: Backend;
  secrets: Record<string, unknown>;
}

/**
 * The hosted mode (`serve`): runs driven here by a `Driver` with autopilot over the host's backend,
 * their gates held open until someone decides them, timeouts and other processes' requests looked for
 * by one timer, each run claimed in the store while it is hosted.
 */
export class HostedRuns {
  private readonly hosted = new Map<string, Hosted>();
  private readonly timers: NonNullable<RunHostOptions['timers']>;
  /** started when the host first drives a run itself: only those have timeouts and requests to look for */
  private ticker: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  constructor(private readonly book: RunBook) {
    this.timers = book.options.timers ?? { setInterval, clearInterval };
  }

  has(id: string): boolean {
    return this.hosted.has(id);
  }

  /** The run as its driver holds it, when it is hosted here. */
  state(id: string): RunState | undefined {
    return this.hosted.get(id)?.driver.state;
  }

  secrets(id: string): Record<string, unknown> | undefined {
    return this.hosted.get(id)?.secrets;
  }

  get ids(): string[] {
    return [...this.hosted.keys()];
  }

  /** Whether this host has a backend of its own to drive runs with. */
  get canHost(): boolean {
    return this.book.options.backendFor !== undefined;
  }

  /** A new run (saved by the caller): hosted, started, let go of when it has already ended. */
  start(state: RunState, secrets: Record<string, unknown>): HostResult<RunState> {
    const hosted = this.host(state, secrets);
    const refusal = hosted.driver.send({ type: 'start' });
    if (refusal) return fromTransition<RunState>(refusal);
    this.settle(hosted);
    return { ok: true, value: hosted.driver.state };
  }

  /** A run taken up by recovery, with the backend it was connected with; the backend's driver context. */
  adopt(state: RunState, backend: Backend): BackendContext {
    return this.host(state, {}, backend).driver.context;
  }

  /** What was ready starts (autopilot), due timeouts fire: a run taken up again goes on. */
  goOn(id: string): void {
    const hosted = this.hosted.get(id);
    if (hosted) this.kick(hosted);
  }

  /** The run's driver (taken up here when it is not hosted yet) applies an operator's event. */
  operate(state: RunState, event: RunEvent, reopens: boolean): HostResult<void> {
    const hosted = this.hosted.get(state.id) ?? this.host(state, {});
    const refusal = hosted.driver.send(event);
    if (refusal) {
      this.settle(hosted);
      return fromTransition(refusal);
    }
    const manager = this.book.manager;
    if (reopens) {
      const reopened = hosted.driver.state;
      if (reopened.archivedAt !== undefined || reopened.manager !== manager) {
        const { archivedAt: _archived, ...rest } = reopened;
        this.book.save({ ...rest, manager });
        this.rehost(hosted, { ...rest, manager });
      }
    }
    this.settle(hosted);
    return { ok: true, value: undefined };
  }

  /** A state the host changed outside the driver (archived), driven from now on. */
  replace(state: RunState): void {
    const hosted = this.hosted.get(state.id);
    if (hosted) this.rehost(hosted, state);
  }

  /** Stops the timer and lets go of every hosted run (their files stay: a new host takes them up). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.ticker !== undefined) this.timers.clearInterval(this.ticker);
    for (const [id, hosted] of this.hosted) {
      this.book.store.release(id);
      // Not awaited: closing is the host letting go, nothing waits on it; a backend whose close fails
      // leaves no state behind that the run file does not hold (the next host recovers from the file).
      void hosted.backend.close?.();
    }
    this.hosted.clear();
  }

  /** Drives `state` from now on: its backend, autopilot, its gates held open for a decision. */
  private host(state: RunState, secrets: Record<string, unknown>, backend?: Backend): Hosted {
    const inner = backend ?? this.backendOf(state);
    this.startTicking();
    const routed: Backend = {
      name: inner.name,
      ...(inner.inMemory ? { inMemory: true } : {}),
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
    hosted.driver = this.driverOf(taken, routed, secrets);
    this.hosted.set(state.id, hosted);
    this.book.store.claim(state.id);
    // What changes applied in place left for the run's host: performed now, in order, and emptied.
    if (carried.length) {
      this.book.save(taken);
      for (const effect of carried) performCarried(effect, routed, hosted.driver.context);
    }
    return hosted;
  }

  private driverOf(state: RunState, backend: Backend, secrets: Record<string, unknown>): Driver {
    return new Driver(state, {
      backend,
      clock: this.book.clock,
      secrets,
      maskKey: this.book.maskKey,
      persist: (next) => this.book.save(next),
    });
  }

  /** The backend of a run the host drives itself. */
  backendOf(state: RunState): Backend {
    const backendFor = this.book.options.backendFor;
    if (!backendFor) throw new Error(`this host has no backend of its own to drive run ${state.id} with`);
    return backendFor(state);
  }

  private startTicking(): void {
    if (this.ticker !== undefined || this.closed) return;
    this.ticker = this.timers.setInterval(() => this.tick(), this.book.options.tickMs ?? 1000);
    this.ticker.unref?.();
  }

  /** The same backend and secrets, driving a state the host changed outside the driver (archive, a new manager). */
  private rehost(old: Hosted, state: RunState): void {
    old.driver = this.driverOf(state, old.backend, old.secrets);
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
    for (const due of dueTimeouts(hosted.driver.state, this.book.clock())) hosted.driver.send(due);
    this.settle(hosted);
  }

  /** A run that has ended, with no after-task going, is let go of. */
  private settle(hosted: Hosted): void {
    const state = hosted.driver.state;
    if (hasWorkGoing(state)) return;
    if (this.hosted.get(state.id) !== hosted) return;
    this.hosted.delete(state.id);
    this.book.store.release(state.id);
    // Not awaited: the run has ended and is written; a failed close of its backend changes nothing in it.
    void hosted.backend.close?.();
  }

  private tick(): void {
    if (this.closed) return;
    for (const hosted of [...this.hosted.values()]) {
      const id = hosted.driver.state.id;
      try {
        this.book.locked(() => {
          for (const asked of this.book.store.takeRequests(id)) hosted.driver.send(asRequested(asked));
          for (const due of dueTimeouts(hosted.driver.state, this.book.clock())) hosted.driver.send(due);
          this.settle(hosted);
        });
      } catch (error) {
        // A busy store, or a full disk (the run stays as its file says), is tried again at the next
        // tick: serve stays up and answers meanwhile. Anything else is a bug worth seeing.
        if (!(error instanceof StoreBusyError) && !isStorageFault(error)) throw error;
      }
    }
  }
}

/** An event another process asked for (`runs cancel`), as the run records it. */
export function asRequested(asked: OperatorRequest): RunEvent {
  return asked.type === 'cancel' && asked.reason === undefined
    ? { type: 'cancel', reason: 'canceled by kairoku-playbook runs cancel' }
    : asked;
}
