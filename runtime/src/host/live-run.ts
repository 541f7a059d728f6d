import type { Backend, BackendContext, BackendEffect } from '../driver/backend.js';
import { dueTimeouts, hasWorkGoing, vecToArray } from '@kairoku-playbook/machine';
import type { GateDecision, OpenGate, RunEvent, RunState, StepStatus } from '@kairoku-playbook/machine';
import { Driver } from '../driver/driver.js';
import type { Refusal } from '../driver/driver.js';

/** Asks a person to decide a gate; undefined when nobody can (end of input). Aborted when the gate closes. */
export type GateAsker = (
  gate: OpenGate,
  state: RunState,
  signal: AbortSignal,
) => Promise<GateDecision | undefined>;

export interface LiveRunOptions {
  /** what runs agents and checks (paseo, kairoku); gates are the host's */
  backend: Backend;
  /** the run, new (`createRun`) or loaded from the store */
  state: RunState;
  /** secret input values, kept in memory only */
  secrets?: Record<string, unknown>;
  /** the key of the run's secret fingerprints (`loadMaskKey`) */
  maskKey?: Uint8Array;
  clock?: () => number;
  persist?: (state: RunState) => void;
  onTransition?: (before: RunState, after: RunState, event: RunEvent) => void;
  /**
   * decides a gate at once when it opens, before anyone is asked (a scenario's scripted decision, a
   * command line's `--gate`); undefined: ask
   */
  decideGate?: (gate: OpenGate, state: RunState) => GateDecision | undefined;
  /**
   * who decides gates; without one (or when it answers undefined, at end of input) a gate stays open:
   * the tool never decides a human gate, the run waits at it (`waiting`) for someone to decide it later
   */
  askGate?: GateAsker;
  /** how often step and run timeouts are looked for (default 1 s) */
  tickMs?: number;
  /** events other processes asked for (a `runs cancel` elsewhere), looked for at every tick */
  requests?: () => RunEvent[];
  /** timers are started with these (tests pass fakes) */
  timers?: { setInterval: typeof setInterval; clearInterval: typeof clearInterval };
}

/**
 * Runs a playbook on a backend whose agents answer later (Paseo agents, Kairoku runners): the driver
 * with autopilot, plus what a synchronous sim run does not need — a timer for step and run timeouts,
 * gates asked without blocking the event loop, and a promise for the end of the run.
 */
export class LiveRun {
  readonly driver: Driver;
  /**
   * resolves once the run has ended and no after-task is still going, or once it can go no further
   * here: nothing runs and its open gates wait for a decision nobody here can give (`waiting`)
   */
  readonly done: Promise<RunState>;
  private finish: (state: RunState) => void = () => undefined;
  private finished: RunState | undefined;
  /** gates that opened with nobody here to decide them */
  private readonly unasked = new Set<string>();
  private readonly gates = new Map<string, AbortController>();
  private readonly ticker: ReturnType<typeof setInterval>;
  private readonly clock: () => number;
  private readonly timers: NonNullable<LiveRunOptions['timers']>;

  constructor(private readonly options: LiveRunOptions) {
    this.clock = options.clock ?? Date.now;
    this.timers = options.timers ?? { setInterval, clearInterval };
    this.done = new Promise((resolve) => (this.finish = resolve));
    const routed: Backend = {
      name: options.backend.name,
      perform: (effect: BackendEffect, context: BackendContext) => {
        if (effect.type === 'open-gate') this.openGate(effect, context);
        else if (effect.type === 'close-gate') this.closeGate(effect.step);
        else options.backend.perform(effect, context);
      },
      agentExists: (agent) => options.backend.agentExists(agent),
    };
    this.driver = new Driver(options.state, {
      backend: routed,
      clock: this.clock,
      ...(options.secrets ? { secrets: options.secrets } : {}),
      ...(options.maskKey ? { maskKey: options.maskKey } : {}),
      persist: (state) => {
        options.persist?.(state);
        this.settleIfDone(state);
      },
      ...(options.onTransition ? { onTransition: options.onTransition } : {}),
    });
    this.ticker = this.timers.setInterval(() => this.tick(), options.tickMs ?? 1000);
    this.ticker.unref?.();
  }

  get state(): RunState {
    return this.driver.state;
  }

  /** The secret input values the run is driven with (memory only). */
  get secrets(): Record<string, unknown> {
    return this.options.secrets ?? {};
  }

  get refusals(): readonly Refusal[] {
    return this.driver.refusals;
  }

  /** The state `done` resolved with, once it has (so a run that settled at once needs no await). */
  get settled(): RunState | undefined {
    return this.finished;
  }

  /** The gates the run waits at with nobody here to decide them (when `done` resolved with a running run). */
  get waiting(): string[] {
    return [...this.unasked];
  }

  /** Sets the run going (`start` for a new run, `restart-from` for an ended one); the refusal, if any. */
  begin(event: RunEvent = { type: 'start' }): string | undefined {
    const refusal = this.driver.dispatch(event);
    this.settleIfDone(this.driver.state);
    return refusal;
  }

  /** The operator's cancel (Ctrl-C): running agents are stopped, open gates closed. */
  cancel(reason: string): string | undefined {
    return this.driver.dispatch({ type: 'cancel', reason });
  }

  /** Stops the timers and pending questions; the backend is the caller's to close. */
  close(): void {
    this.timers.clearInterval(this.ticker);
    for (const controller of this.gates.values()) controller.abort();
    this.gates.clear();
  }

  /** Step and run timeouts that are due now. */
  tick(): void {
    if (this.finished) return;
    for (const event of this.options.requests?.() ?? []) this.driver.dispatch(event);
    for (const event of dueTimeouts(this.driver.state, this.clock())) this.driver.dispatch(event);
  }

  private openGate(gate: OpenGate, context: BackendContext): void {
    const state = context.state();
    this.unasked.delete(gate.step);
    const decided = this.options.decideGate?.(gate, state);
    if (decided) {
      const event: RunEvent = { type: 'gate-decided', step: gate.step, ...decided };
      // A decision the run refuses (a required comment missing) leaves the gate open with nobody to
      // decide it here: the run waits at it, and the refusal is in its history.
      if (context.refusalOf(event) !== undefined) this.unasked.add(gate.step);
      context.emit(event);
      return;
    }
    const ask = this.options.askGate;
    if (!ask) {
      // Nobody to ask: the gate stays open, and once nothing else runs the run waits at it (`done`).
      this.unasked.add(gate.step);
      return;
    }
    this.gates.get(gate.step)?.abort();
    const controller = new AbortController();
    this.gates.set(gate.step, controller);
    // Not awaited: a gate waits for a person while the run goes on; the decision, or the failure to ask,
    // is dispatched when it comes (the two handlers below).
    void ask(gate, state, controller.signal).then(
      (decision) => {
        if (controller.signal.aborted) return;
        this.gates.delete(gate.step);
        if (decision) this.driver.dispatch({ type: 'gate-decided', step: gate.step, ...decision });
        else {
          // End of input: nobody here decides it; the gate stays open and the run waits at it.
          this.unasked.add(gate.step);
          this.settleIfDone(this.driver.state);
        }
      },
      (error: unknown) => {
        this.gates.delete(gate.step);
        this.driver.dispatch({
          type: 'note',
          kind: 'backend',
          step: gate.step,
          text: `the gate could not be asked: ${(error as Error).message}`,
        });
      },
    );
  }

  private closeGate(step: string): void {
    this.gates.get(step)?.abort();
    this.gates.delete(step);
    this.unasked.delete(step);
  }

  private settleIfDone(state: RunState): void {
    if (this.finished || (hasWorkGoing(state) && !this.waitsOnNobody(state))) return;
    this.finished = state;
    this.close();
    this.finish(state);
  }

  /**
   * Whether the run can go no further here: it is running, no step or after-task is busy, no gate is
   * being asked, and a gate waits that nobody here will decide.
   */
  private waitsOnNobody(state: RunState): boolean {
    if (state.status !== 'running' || this.gates.size || !this.unasked.size) return false;
    const busy = (status: StepStatus) => status === 'running' || status === 'reported' || status === 'ready';
    if (vecToArray(state.steps).some((s) => busy(s.status))) return false;
    return !state.after.some((t) => busy(t.status));
  }
}
