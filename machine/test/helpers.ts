import { readFileSync } from 'node:fs';
import { compilePlaybook } from '@kairoku-playbook/compiler';
import type { Ir } from '@kairoku-playbook/compiler';
import { expect } from 'vitest';
import { createRun } from '../src/core/create-run.js';
import type { Effect } from '../src/core/effects.js';
import type { RunEvent } from '../src/core/events.js';
import { prepareInputs, splitSecrets } from '../src/core/inputs.js';
import { vecToArray } from '../src/core/pvec.js';
import type { RunState, StepRun } from '../src/core/state.js';
import { REFUSAL_CODES, advance } from '../src/core/transition.js';
import type { TransitionResult } from '../src/core/transition.js';
import { stepRun } from '../src/core/view.js';

export const repo = new URL('../../', import.meta.url).pathname;

/** Compiles a playbook's YAML; a playbook with errors fails the test with its diagnostics. */
export function compile(text: string, file = 'test.playbook.yml'): Ir {
  const { ir, diagnostics } = compilePlaybook(file, text);
  if (!ir)
    throw new Error(
      `the playbook has errors:\n${diagnostics.map((d) => `${d.code} ${d.message}`).join('\n')}`,
    );
  return ir;
}

export function compileFile(path: string): Ir {
  return compile(readFileSync(`${repo}${path}`, 'utf8'), path);
}

/** A playbook from just its steps (and optionally more top-level YAML). */
export function playbook(steps: string, extra = ''): Ir {
  return compile(`version: 1\nid: t\ntitle: Test\n${extra}steps:\n${steps}`);
}

/**
 * Drives the pure transition function by hand: every event must be accepted unless `refuse` is
 * used; the clock advances one second per event.
 */
export class Run {
  state: RunState;
  effects: Effect[] = [];
  now = Date.UTC(2025, 0, 1);
  readonly secrets: Record<string, unknown>;

  constructor(
    readonly ir: Ir,
    inputs: Record<string, unknown> = {},
  ) {
    const prepared = prepareInputs(ir, inputs);
    if (!prepared.ok) throw new Error(prepared.errors.join('; '));
    this.secrets = splitSecrets(ir, prepared.inputs).secrets;
    this.state = createRun(ir, { id: 'run-1', inputs: prepared.inputs, now: this.now });
  }

  try(event: RunEvent): TransitionResult {
    this.now += 1000;
    const before = this.state;
    // The input state is never changed: frozen, any write to it would throw.
    deepFreeze(before);
    const text = JSON.stringify(before);
    const result = advance(before, event, this.now, { secrets: this.secrets });
    expect(JSON.stringify(before)).toBe(text);
    return result;
  }

  send(event: RunEvent): Effect[] {
    const result = this.try(event);
    if (result.error !== undefined) throw new Error(`refused ${event.type}: ${result.error}`);
    this.state = result.state;
    this.effects = result.effects;
    checkInvariants(this.state);
    return result.effects;
  }

  refuse(event: RunEvent): string {
    const result = this.try(event);
    expect(result.error, `expected ${event.type} to be refused`).toBeDefined();
    expect(result.state).toBe(this.state);
    expect(result.effects).toEqual([]);
    // Every refusal is typed: a stable code, and the same sentence as `error`.
    expect(REFUSAL_CODES).toContain(result.refusal?.code);
    expect(result.refusal?.message).toBe(result.error);
    return result.error!;
  }

  /** The code of a refusal (`refuse` checks the rest). */
  refusalCode(event: RunEvent): string {
    const before = this.now;
    this.refuse(event);
    this.now = before;
    return advance(this.state, event, this.now, { secrets: this.secrets }).refusal!.code;
  }

  step(name: string): StepRun {
    const run = stepRun(this.state, name);
    if (!run) throw new Error(`no step ${name}`);
    return run;
  }

  status(name: string): string {
    return this.step(name).status;
  }

  statuses(): Record<string, string> {
    return Object.fromEntries(this.ir.steps.map((s) => [s.name, this.status(s.name)]));
  }

  /** Starts a ready step and has it report `outcome`, then completes it with that outcome. */
  pass(name: string, outcome?: string, outputs: Record<string, unknown> = {}, summary = ''): Effect[] {
    const ir =
      this.ir.steps.find((s) => s.name === name) ?? this.ir.after.find((a) => `after.${a.name}` === name)!;
    const chosen = outcome ?? ir.outcomes[0]!.name;
    this.send({ type: 'start-step', step: name });
    this.send({ type: 'report', step: name, outcome: chosen, outputs, summary });
    return this.send({ type: 'complete-step', step: name, outcome: chosen });
  }

  /** Opens a ready gate and decides it. */
  decide(name: string, choice: string, comment?: string): Effect[] {
    this.send({ type: 'request-gate', step: name });
    return this.send({
      type: 'gate-decided',
      step: name,
      choice,
      ...(comment !== undefined ? { comment } : {}),
    });
  }

  outcomes(name: string): (string | undefined)[] {
    return this.step(name).attempts.map((a) => a.outcome);
  }
}

/** What the incremental bookkeeping must always agree with, recounted the slow way. */
function checkInvariants(state: RunState): void {
  const steps = vecToArray(state.steps);
  const settled = (s: StepRun) => s.status === 'completed' || s.status === 'skipped';
  expect(state.settled, 'settled count').toBe(steps.filter(settled).length);
  state.ir.steps.forEach((ir, index) => {
    const run = steps[index]!;
    if (run.status !== 'pending' && run.status !== 'ready') return;
    const unsettled = ir.needs.filter((n) => !settled(steps[n]!)).length;
    expect(run.unsettledNeeds, `unsettled needs of ${ir.name}`).toBe(unsettled);
  });
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}

export function effectTypes(effects: Effect[]): string[] {
  return effects.map((e) => ('step' in e ? `${e.type}:${e.step}` : e.type));
}

export function ready(effects: Effect[]): string[] {
  return effects.filter((e) => e.type === 'step-ready').map((e) => (e as { step: string }).step);
}
