import type { Ir } from '@kairoku-playbook/compiler';
import type { Scenario } from './backends/scenario.js';
import { SimBackend } from './backends/sim.js';
import type { SimOptions } from './backends/sim.js';
import { createRun } from './core/create-run.js';
import type { RunEvent } from './core/events.js';
import { prepareInputs, splitSecrets } from './core/inputs.js';
import type { RunState } from './core/state.js';
import { Driver } from './driver/driver.js';
import type { Refusal } from './driver/driver.js';

export interface SimRunOptions {
  ir: Ir;
  scenario: Scenario;
  /** inputs on top of the scenario's (a command line's `--input`) */
  inputs?: Record<string, unknown>;
  id: string;
  clock?: () => number;
  branch?: string;
  askGate?: SimOptions['askGate'];
  persist?: (state: RunState) => void;
  onTransition?: (before: RunState, after: RunState, event: RunEvent) => void;
}

export type SimRunResult =
  { ok: true; state: RunState; refusals: Refusal[] } | { ok: false; inputErrors: string[] };

/** Runs a playbook on the `sim` backend with autopilot, from start to where it stops. */
export function runSim(options: SimRunOptions): SimRunResult {
  const prepared = prepareInputs(options.ir, { ...options.scenario.inputs, ...(options.inputs ?? {}) });
  if (!prepared.ok) return { ok: false, inputErrors: prepared.errors };
  const clock = options.clock ?? Date.now;
  const { secrets } = splitSecrets(options.ir, prepared.inputs);
  const state = createRun(options.ir, {
    id: options.id,
    inputs: prepared.inputs,
    now: clock(),
    backend: 'sim',
    branch: options.branch ?? defaultBranch(options.ir, options.id),
  });
  const simOptions: SimOptions = { scenario: options.scenario };
  if (options.askGate) simOptions.askGate = options.askGate;
  const driver = new Driver(state, {
    backend: new SimBackend(simOptions),
    clock,
    secrets,
    ...(options.persist ? { persist: options.persist } : {}),
    ...(options.onTransition ? { onTransition: options.onTransition } : {}),
  });
  options.persist?.(state);
  driver.dispatch({ type: 'start' });
  return { ok: true, state: driver.state, refusals: driver.refusals };
}

/** `new-worktree` runs get `playbooks/<playbook>-<short id>` (seed 000); others the current branch, unknown to sim. */
function defaultBranch(ir: Ir, id: string): string {
  return ir.workspace === 'new-worktree' ? `playbooks/${ir.id}-${id.slice(-6)}` : '';
}
