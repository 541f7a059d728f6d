import type { Backend, BackendContext, BackendEffect } from './backend.js';
import { advance, stepRun } from '@kairoku-playbook/machine';
import type {
  Effect,
  RefusalCode,
  RunEvent,
  RunState,
  TransitionRefusal,
  TransitionResult,
} from '@kairoku-playbook/machine';

export interface DriverOptions {
  backend: Backend;
  /**
   * Without a manager agent the driver is the manager (SPEC §6): it starts ready steps, opens ready
   * gates and applies each report's outcome as reported. Default true.
   */
  autopilot?: boolean;
  clock?: () => number;
  /** secret input values, kept in memory only */
  secrets?: Record<string, unknown>;
  /** the key of the run's secret fingerprints (`loadMaskKey`), for secrets not in `secrets` */
  maskKey?: Uint8Array;
  /** writes the state; called once per batch of events, after the queue drains */
  persist?: (state: RunState) => void;
  /** sees every accepted event with the state before and after it, and the effects it asks for */
  onTransition?: (before: RunState, after: RunState, event: RunEvent, effects: readonly Effect[]) => void;
}

export interface Refusal {
  event: RunEvent;
  error: string;
  /** the refusal's stable code (`TransitionRefusal`), for callers that branch on it */
  code: RefusalCode;
}

/**
 * A run's state could not be written (a full disk): the driver went back to the state last written,
 * and performed none of the effects that state change made, so the run is as its file says.
 */
export class WriteFailed extends Error {}

/**
 * Feeds events to the transition function and its effects to a backend, whose events come back
 * through a FIFO queue: one event at a time, in order, so a run is deterministic for a deterministic
 * backend. Persistence is coalesced to once per drained batch.
 *
 * Write first, then act: a backend's effects (start an agent, stop one, run a check) are performed only
 * once the state that made them is written; a write that fails takes the run back to the state last
 * written, drops those effects and throws `WriteFailed`, so an agent is never started for a decision the
 * file does not hold (issue 27: after a full disk, a gate approved twice ran its step twice). A backend
 * whose effects stay in this process (`inMemory`: the sim) has them performed at once, within the batch.
 */
export class Driver {
  private current: RunState;
  /** events waiting their turn; `head` is the next one (an index walk keeps a long queue O(1) per event) */
  private queue: RunEvent[] = [];
  private head = 0;
  private draining = false;
  private dirty = false;
  /** the state as last written (or as given): where a failed write takes the run back to */
  private written: RunState;
  /** effects waiting for the write of the state that made them */
  private pending: BackendEffect[] = [];
  readonly refusals: Refusal[] = [];
  /** complete-step events autopilot made from wake-ups (not a manager's, so a stale one is dropped) */
  private readonly decisions = new WeakSet<RunEvent>();
  /** events a backend sent: a refusal of one is recorded in the run's history */
  private readonly fromBackend = new WeakSet<RunEvent>();
  readonly autopilot: boolean;
  private readonly clock: () => number;

  constructor(
    state: RunState,
    private readonly options: DriverOptions,
  ) {
    this.current = state;
    this.written = state;
    this.autopilot = options.autopilot ?? true;
    this.clock = options.clock ?? Date.now;
  }

  get state(): RunState {
    return this.current;
  }

  /**
   * Sends an event. Called from outside (not from a backend while the queue drains), it returns the
   * event's refusal, if any; events that arrive while draining are queued and their refusals collected.
   */
  dispatch(event: RunEvent): string | undefined {
    return this.send(event)?.message;
  }

  /** `dispatch` with the typed refusal (its code and sentence), for callers that branch on the code. */
  send(event: RunEvent): TransitionRefusal | undefined {
    if (this.draining) {
      this.queue.push(event);
      return undefined;
    }
    this.draining = true;
    let first: TransitionRefusal | undefined;
    try {
      first = this.apply(event);
      this.drain();
      // Each wave: written, then its effects performed; what they feed back is the next wave.
      for (;;) {
        if (this.dirty) this.write();
        if (!this.pending.length) break;
        const wave = this.pending;
        this.pending = [];
        for (const effect of wave) this.options.backend.perform(effect, this.backendContext);
        this.drain();
      }
    } finally {
      this.queue = [];
      this.head = 0;
      this.pending = [];
      this.draining = false;
    }
    return first;
  }

  private drain(): void {
    while (this.head < this.queue.length) {
      this.apply(this.queue[this.head++]!);
      // Drop what has been handled now and then, so a long batch does not keep every event.
      if (this.head > 4096 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
    }
  }

  private write(): void {
    this.dirty = false;
    try {
      this.options.persist?.(this.current);
    } catch (error) {
      this.current = this.written;
      this.pending = [];
      throw new WriteFailed((error as Error).message, { cause: error });
    }
    this.written = this.current;
  }

  private apply(event: RunEvent): TransitionRefusal | undefined {
    const before = this.current;
    const result = this.transition(before, event);
    if (result.refusal !== undefined) {
      // Autopilot decided on a report that a loop has since reset (parallel steps): the report is
      // gone with its attempt, so the decision is moot, not refused.
      if (
        event.type === 'complete-step' &&
        this.decisions.has(event) &&
        stepRun(before, event.step)?.status !== 'reported'
      )
        return undefined;
      this.refusals.push({ event, error: result.refusal.message, code: result.refusal.code });
      if (this.fromBackend.has(event))
        this.queue.push(refusalNote(event, result.refusal.message, this.options.backend.name));
      return result.refusal;
    }
    if (result.state === before) return undefined;
    this.current = result.state;
    this.options.onTransition?.(before, result.state, event, result.effects);
    for (const effect of result.effects) this.perform(effect);
    return undefined;
  }

  /** The one call of the transition function: the driver's clock, secrets and mask key. */
  private transition(state: RunState, event: RunEvent): TransitionResult {
    return advance(state, event, this.clock(), {
      secrets: this.options.secrets ?? {},
      ...(this.options.maskKey ? { maskKey: this.options.maskKey } : {}),
    });
  }

  private perform(effect: Effect): void {
    switch (effect.type) {
      case 'persist':
        this.dirty = true;
        return;
      case 'step-ready':
        if (this.autopilot)
          this.queue.push(
            effect.kind === 'gate'
              ? { type: 'request-gate', step: effect.step }
              : { type: 'start-step', step: effect.step },
          );
        return;
      case 'wake-manager':
        if (this.autopilot) {
          for (const wakeup of effect.wakeups)
            if (wakeup.kind === 'reported' && wakeup.step && wakeup.outcome) {
              const decision: RunEvent = {
                type: 'complete-step',
                step: wakeup.step,
                outcome: wakeup.outcome,
              };
              this.decisions.add(decision);
              this.queue.push(decision);
            }
          return;
        }
        this.toBackend(effect);
        return;
      default:
        this.toBackend(effect);
    }
  }

  private toBackend(effect: BackendEffect): void {
    if (this.options.backend.inMemory) this.options.backend.perform(effect, this.backendContext);
    else this.pending.push(effect);
  }

  private readonly backendContext: BackendContext = {
    emit: (event: RunEvent): void => {
      this.fromBackend.add(event);
      this.dispatch(event);
    },
    submit: (event: RunEvent): string | undefined => {
      this.fromBackend.add(event);
      return this.dispatch(event);
    },
    state: (): RunState => this.current,
    refusalOf: (event: RunEvent): string | undefined => this.transition(this.current, event).error,
  };

  /** What a backend that was not handed an effect (a daemon's message, a runner's request) feeds in. */
  get context(): BackendContext {
    return this.backendContext;
  }
}

function refusalNote(event: RunEvent, error: string, backend: string): RunEvent {
  const step = 'step' in event && event.step !== undefined ? event.step : undefined;
  const attempt = 'attempt' in event && typeof event.attempt === 'number' ? event.attempt : undefined;
  return {
    type: 'note',
    kind: 'refused',
    text: `${event.type} from the ${backend} backend was refused: ${error}`,
    ...(step !== undefined ? { step } : {}),
    ...(attempt !== undefined ? { attempt } : {}),
  };
}
