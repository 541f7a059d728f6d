import type { Ir } from '@kairoku-playbook/compiler';
import type { Scenario } from '../backends/scenario.js';
import { SimBackend } from '../backends/sim.js';
import type { SimOptions } from '../backends/sim.js';
import { createRun, prepareInputs, splitSecrets } from '@kairoku-playbook/machine';
import type { Effect, RunEvent, RunState } from '@kairoku-playbook/machine';
import { Driver } from '../driver/driver.js';
import type { Refusal } from '../driver/driver.js';
import { newWorktreeBranch } from '../host/run-host.js';

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
  onTransition?: (before: RunState, after: RunState, event: RunEvent, effects: readonly Effect[]) => void;
  /**
   * Each sim agent and check takes this long before it reports (SimOptions.delayMs); with a delay,
   * the run is also persisted after every accepted event, as a backend whose reports arrive one at a
   * time would persist it, so the run file follows the run while it lasts.
   */
  delayMs?: number;
  /** the workspace folder the run belongs to (one active run per workspace) */
  workspace?: string;
  /** the run's worktree, where read-only roles are checked with git (SimOptions.worktree) */
  worktree?: string;
  /** what each sim agent does during its turn (SimOptions.onAgentTurn), for tests */
  onAgentTurn?: SimOptions['onAgentTurn'];
  /** the key secret values are fingerprinted under (`loadMaskKey`; `createRun`'s `maskKey`) */
  maskKey?: Uint8Array;
}

export type SimRunResult =
  { ok: true; state: RunState; refusals: Refusal[] } | { ok: false; inputErrors: string[] };

/**
 * Runs a playbook on the `sim` backend with autopilot, from start to where it stops, in memory (playbook
 * tests, benchmarks): no store, no workspace, no claim, which is why it does not go through the run
 * host (`RunHost`, where every stored run is created); `persist` is the caller's.
 */
export function runSim(options: SimRunOptions): SimRunResult {
  const prepared = prepareInputs(options.ir, { ...options.scenario.inputs, ...(options.inputs ?? {}) });
  if (!prepared.ok) return { ok: false, inputErrors: prepared.errors };
  const clock = options.clock ?? Date.now;
  const { secrets } = splitSecrets(options.ir, prepared.inputs);
  const created = createRun(options.ir, {
    id: options.id,
    inputs: prepared.inputs,
    now: clock(),
    backend: 'sim',
    branch: options.branch ?? defaultBranch(options.ir, options.id),
    ...(options.maskKey ? { maskKey: options.maskKey } : {}),
  });
  const state = options.workspace === undefined ? created : { ...created, workspace: options.workspace };
  const driver = simDriver(state, options, clock, secrets);
  options.persist?.(state);
  driver.dispatch({ type: 'start' });
  return { ok: true, state: driver.state, refusals: driver.refusals };
}

export interface SimContinueOptions extends Omit<
  SimRunOptions,
  'ir' | 'inputs' | 'id' | 'branch' | 'workspace'
> {
  /** the run as the store has it */
  state: RunState;
  /** what sets it going again, such as `restart-from` */
  event: RunEvent;
  /** secret input values, when given again (a run loaded from the store has only the mask) */
  secrets?: Record<string, unknown>;
}

export type SimContinueResult =
  { ok: true; state: RunState; refusals: Refusal[] } | { ok: false; error: string; state: RunState };

/**
 * Drives a stored run on the `sim` backend with autopilot from `event` (a restart, say) to where it
 * stops, as `runSim` drives a new one. A refused `event` changes nothing and saves nothing.
 */
export function continueSim(options: SimContinueOptions): SimContinueResult {
  const clock = options.clock ?? Date.now;
  const driver = simDriver(options.state, options, clock, options.secrets ?? {});
  const error = driver.dispatch(options.event);
  if (error !== undefined) return { ok: false, error, state: options.state };
  return { ok: true, state: driver.state, refusals: driver.refusals };
}

function simDriver(
  state: RunState,
  options: Pick<
    SimRunOptions,
    'scenario' | 'askGate' | 'persist' | 'onTransition' | 'delayMs' | 'worktree' | 'onAgentTurn' | 'maskKey'
  >,
  clock: () => number,
  secrets: Record<string, unknown>,
): Driver {
  const simOptions: SimOptions = { scenario: options.scenario };
  if (options.askGate) simOptions.askGate = options.askGate;
  if (options.delayMs) simOptions.delayMs = options.delayMs;
  if (options.worktree !== undefined) simOptions.worktree = options.worktree;
  if (options.onAgentTurn) simOptions.onAgentTurn = options.onAgentTurn;
  const { persist, onTransition, delayMs } = options;
  const everyEvent = delayMs && persist;
  return new Driver(state, {
    backend: new SimBackend(simOptions),
    clock,
    secrets,
    ...(options.maskKey ? { maskKey: options.maskKey } : {}),
    ...(persist ? { persist } : {}),
    ...(onTransition || everyEvent
      ? {
          onTransition: (before: RunState, after: RunState, event: RunEvent, effects: readonly Effect[]) => {
            if (everyEvent) persist(after);
            onTransition?.(before, after, event, effects);
          },
        }
      : {}),
  });
}

/** `new-worktree` runs get their own branch, named as the run host names it; others the current branch, unknown to sim. */
function defaultBranch(ir: Ir, id: string): string {
  return ir.workspace === 'new-worktree' ? newWorktreeBranch(ir.id, id) : '';
}
