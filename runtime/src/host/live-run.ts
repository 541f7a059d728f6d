import type { Backend, BackendContext, BackendEffect } from '../driver/backend.js';
import type { OpenGate } from '../core/effects.js';
import type { GateDecision, RunEvent } from '../core/events.js';
import { hasWorkGoing } from '../core/state.js';
import type { RunState } from '../core/state.js';
import { Driver } from '../driver/driver.js';
import type { Refusal } from '../driver/driver.js';
import { dueTimeouts } from '../core/timeouts.js';

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
  /** who decides gates; without one, a gate that opens cancels the run, saying who could decide it */
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
  /** resolves once the run has ended and no after-task is still going */
  readonly done: Promise<RunState>;
  private finish: (state: RunState) => void = () => undefined;
  private finished = false;
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

  get refusals(): readonly Refusal[] {
    return this.driver.refusals;
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
    const ask = this.options.askGate;
    if (!ask) {
      // Nobody to ask: say so at once rather than leave a run waiting for ever.
      queueMicrotask(() =>
        this.driver.dispatch({
          type: 'cancel',
          reason: `gate "${gate.step}" needs a person: run in a terminal, or decide it with --gate ${gate.step}=CHOICE`,
        }),
      );
      return;
    }
    this.gates.get(gate.step)?.abort();
    const controller = new AbortController();
    this.gates.set(gate.step, controller);
    const state = context.state();
    // Not awaited: a gate waits for a person while the run goes on; the decision, or the failure to ask,
    // is dispatched when it comes (the two handlers below).
    void ask(gate, state, controller.signal).then(
      (decision) => {
        if (controller.signal.aborted) return;
        this.gates.delete(gate.step);
        if (decision) this.driver.dispatch({ type: 'gate-decided', step: gate.step, ...decision });
        else
          this.driver.dispatch({
            type: 'cancel',
            reason: `gate "${gate.step}" was left open (end of input)`,
          });
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
  }

  private settleIfDone(state: RunState): void {
    if (this.finished || hasWorkGoing(state)) return;
    this.finished = true;
    this.close();
    this.finish(state);
  }
}
