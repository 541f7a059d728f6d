import type { IrAfterTask, IrStep } from '@kairoku-playbook/compiler';
import { AFTER_PREFIX, generatedOutputs, simString, stepIr } from '@kairoku-playbook/machine';
import type { OpenGate, RunState } from '@kairoku-playbook/machine';
import { ReadOnlyGuard } from '../worktree/read-only-guard.js';
import type { Backend, BackendContext, BackendEffect } from '../driver/backend.js';
import { emptyScenario } from './scenario.js';
import type { Scenario, ScriptedDecision } from './scenario.js';

export interface SimOptions {
  scenario?: Scenario;
  /**
   * Asked for a gate the scenario does not decide (a terminal prompt). Returning undefined leaves
   * the gate open. Without it, such a gate takes its first declared choice.
   */
  askGate?: (gate: OpenGate, state: RunState) => ScriptedDecision | undefined;
  /**
   * Milliseconds each agent and check takes before it reports (or stops), spent blocking (the sim
   * run stays synchronous). For tests that need a run to last, such as killing its process midway.
   */
  delayMs?: number;
  /**
   * The run's worktree: a read-only role's attempt (SPEC §3.3) is checked with git, a snapshot when
   * it starts compared when its turn ends; a change fails the attempt (`read-only-violated`). Without
   * it, nothing is checked.
   */
  worktree?: string;
  /**
   * Called during each agent's turn, before it reports (or stops): what a scripted agent does to the
   * worktree, in tests of the read-only check.
   */
  onAgentTurn?: (step: string, attempt: number) => void;
  /**
   * Spend `delayMs` on a timer rather than blocking: the agent reports from a later turn of the event
   * loop, so the process answers signals (Ctrl-C) and prompts meanwhile. For a run driven by `LiveRun`
   * (the CLI's `run`); a synchronous `runSim` blocks.
   */
  timers?: boolean;
}

/**
 * The embedded default backend (SPEC §6, §8): scripted agents and checks from a scenario, or
 * generated ones (the first declared outcome, outputs made from their types, strings `sim/STEP-hash`). No network, no model,
 * no clock: the same scenario gives the same run.
 */
export class SimBackend implements Backend {
  readonly name = 'sim';
  /** scripted agents and checks, in this process: nothing to write first */
  readonly inMemory = true;
  private readonly scenario: Scenario;
  /** agents of this process: a sim agent never outlives it */
  private readonly agents = new Set<string>();
  private readonly guard: ReadOnlyGuard | undefined;
  /** agents whose turn is on a timer (`timers`), by agent handle */
  private readonly turns = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly options: SimOptions = {}) {
    this.scenario = options.scenario ?? emptyScenario();
    this.guard = options.worktree !== undefined ? new ReadOnlyGuard(options.worktree) : undefined;
  }

  agentExists(agent: string | undefined): boolean {
    return agent !== undefined && this.agents.has(agent);
  }

  perform(effect: BackendEffect, context: BackendContext): void {
    switch (effect.type) {
      case 'start-agent':
      case 'start-check': {
        const state = context.state();
        const agent = `sim:${state.id}:${effect.step}:${effect.attempt}`;
        this.agents.add(agent);
        context.emit({ type: 'step-started', step: effect.step, attempt: effect.attempt, agent });
        if (effect.type === 'start-agent' && effect.readOnly && this.guard) {
          const unreadable = this.guard.begin(effect.step, effect.attempt);
          if (unreadable) {
            this.agents.delete(agent);
            context.emit(unreadable);
            return;
          }
        }
        this.turn(effect.step, effect.attempt, context);
        return;
      }
      case 'remind-agent':
        // A sim agent that stayed silent stays silent: after its reminder it is lost.
        this.turn(effect.step, effect.attempt, context);
        return;
      case 'stop-agent': {
        const agent = `sim:${context.state().id}:${effect.step}:${effect.attempt}`;
        this.guard?.forget(effect.step, effect.attempt);
        this.agents.delete(agent);
        clearTimeout(this.turns.get(agent));
        this.turns.delete(agent);
        return;
      }
      case 'open-gate': {
        const decision = this.decide(effect, context.state());
        if (decision) context.emit({ type: 'gate-decided', step: effect.step, ...decision });
        return;
      }
      case 'close-gate':
      case 'nudge-agent':
      case 'wake-manager':
        return;
    }
  }

  /** The scripted gate decision of the scenario, if it scripts one for this opening of the gate. */
  scripted(gate: OpenGate): ScriptedDecision | undefined {
    const script = this.scenario.gates[gate.step];
    return script?.length ? script[Math.min(gate.attempt, script.length) - 1] : undefined;
  }

  /** Stops every agent's turn still on a timer. */
  close(): Promise<void> {
    for (const timer of this.turns.values()) clearTimeout(timer);
    this.turns.clear();
    return Promise.resolve();
  }

  /** An agent's turn: now, or with `timers` after `delayMs` on a timer. */
  private turn(name: string, attempt: number, context: BackendContext): void {
    if (!this.options.timers || !this.options.delayMs) {
      this.act(name, attempt, context.state(), context);
      return;
    }
    const agent = `sim:${context.state().id}:${name}:${attempt}`;
    clearTimeout(this.turns.get(agent));
    const timer = setTimeout(() => {
      this.turns.delete(agent);
      this.act(name, attempt, context.state(), context, false);
    }, this.options.delayMs);
    this.turns.set(agent, timer);
  }

  private act(name: string, attempt: number, state: RunState, context: BackendContext, block = true): void {
    const ir = stepIr(state, name);
    if (!ir) return;
    const isAfter = name.startsWith(AFTER_PREFIX);
    const script = isAfter ? this.scenario.after[ir.name] : this.scenario.steps[ir.name];
    const scripted = script?.length ? script[Math.min(attempt, script.length) - 1]! : {};
    const agent = `sim:${state.id}:${name}:${attempt}`;
    if (block && this.options.delayMs) sleep(this.options.delayMs);
    if (ir.kind === 'agent') this.options.onAgentTurn?.(name, attempt);
    // The turn ends: a read-only role that changed the worktree fails, whatever it reports.
    const violated = this.guard?.end(name, attempt, scripted.silent === true);
    if (violated) {
      this.agents.delete(agent);
      context.emit(violated);
      return;
    }
    if (scripted.silent) {
      context.emit({ type: 'agent-stopped', step: name, attempt });
      return;
    }
    const outcome = scripted.outcome ?? defaultOutcome(ir);
    const report = {
      type: 'report' as const,
      step: name,
      attempt,
      outcome,
      summary: scripted.summary ?? '',
      outputs: { ...generatedOutputs(ir, outcome, simString), ...(scripted.outputs ?? {}) },
    };
    this.agents.delete(agent);
    context.emit(report);
  }

  private decide(gate: OpenGate, state: RunState): ScriptedDecision | undefined {
    const scripted = this.scripted(gate);
    if (scripted) return scripted;
    if (this.options.askGate) return this.options.askGate(gate, state);
    return { choice: gate.choices[0]!.name };
  }
}

/** Blocks the thread (a sim run is synchronous; there is nothing else for it to do meanwhile). */
function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** What a step the scenario does not script reports: a check passes, others their first outcome. */
function defaultOutcome(ir: IrStep | IrAfterTask): string {
  if (ir.kind === 'check' && ir.outcomes.some((o) => o.name === 'pass')) return 'pass';
  return ir.outcomes[0]?.name ?? 'done';
}
