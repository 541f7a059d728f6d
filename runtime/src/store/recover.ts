import { advance, AFTER_PREFIX, vecGet } from '@kairoku-playbook/machine';
import type { Effect, RunState, StepRun } from '@kairoku-playbook/machine';
import type { RunStore } from './run-store.js';

export interface Recovery {
  state: RunState;
  /** what the lost-agent rule asks for: retries to start, the manager to wake */
  effects: Effect[];
  lost: string[];
}

/**
 * On start (SPEC §3.3, seed 000): every active run of `backend` whose running steps' agents no longer
 * exist gets the lost-agent rule (no reminder is possible: the agent is gone), and the manager is told.
 * Scans each run's steps once, at start. Changed runs are saved.
 */
export function recoverRuns(
  store: RunStore,
  options: { backend: string; agentExists: (agent: string | undefined) => boolean; now: number },
): { recovered: Recovery[]; runs: RunState[]; problems: { file: string; message: string }[] } {
  const { runs, problems } = store.loadAll();
  const recovered: Recovery[] = [];
  const result: RunState[] = [];
  for (const original of runs) {
    let state = original;
    if (state.backend === options.backend) {
      const recovery = loseGoneAgents(state, options.agentExists, options.now);
      if (recovery.lost.length) {
        state = recovery.state;
        store.save(state);
        recovered.push(recovery);
      }
    }
    result.push(state);
  }
  return { recovered, runs: result, problems };
}

/**
 * The lost-agent rule for one run: every running attempt whose agent no longer exists (steps of an
 * active run, after-tasks of any run: they run after it ended) is lost, and retries within `retries`.
 * Nothing is saved; `lost` is empty (and `state` the same object) when every agent still exists.
 */
export function loseGoneAgents(
  original: RunState,
  agentExists: (agent: string | undefined) => boolean,
  now: number,
  reason = 'its agent no longer exists after a restart',
): Recovery {
  let state = original;
  const effects: Effect[] = [];
  const lost: string[] = [];
  const active = state.status === 'running' || state.status === 'paused';
  const candidates: { name: string; run: StepRun }[] = [];
  if (active) {
    for (let index = 0; index < state.steps.size; index++) {
      const run = vecGet(state.steps, index);
      candidates.push({ name: run.name, run });
    }
  }
  for (const task of state.after) candidates.push({ name: `${AFTER_PREFIX}${task.name}`, run: task });
  for (const { name, run } of candidates) {
    const attempt = run.attempts[run.attempts.length - 1];
    if (run.status !== 'running' || !attempt || agentExists(attempt.agent)) continue;
    const next = advance(state, { type: 'agent-lost', step: name, attempt: attempt.attempt, reason }, now);
    if (next.refusal !== undefined) continue;
    state = next.state;
    effects.push(...next.effects);
    lost.push(name);
  }
  return { state, effects: effects.filter((e) => e.type !== 'persist'), lost };
}
