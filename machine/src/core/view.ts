import type { IrAfterTask, IrStep } from '@kairoku-playbook/compiler';
import { derive } from './derived.js';
import { vecGet, vecToArray } from './pvec.js';
import { AFTER_PREFIX } from './state.js';
import type { Attempt, RunState, RunStatus, StepRun, StepStatus } from './state.js';

/** A step's run by name (`after.NAME` for an after-task); undefined for an unknown name. */
export function stepRun(state: RunState, name: string): StepRun | undefined {
  const { stepIndex, afterIndex } = derive(state.ir);
  if (name.startsWith(AFTER_PREFIX)) {
    const index = afterIndex.get(name.slice(AFTER_PREFIX.length));
    return index === undefined ? undefined : state.after[index];
  }
  const index = stepIndex.get(name);
  return index === undefined ? undefined : vecGet(state.steps, index);
}

/** A step's IR by name (`after.NAME` for an after-task); undefined for an unknown name. */
export function stepIr(state: RunState, name: string): IrStep | IrAfterTask | undefined {
  const { stepIndex, afterIndex } = derive(state.ir);
  if (name.startsWith(AFTER_PREFIX)) {
    const index = afterIndex.get(name.slice(AFTER_PREFIX.length));
    return index === undefined ? undefined : state.ir.after[index];
  }
  const index = stepIndex.get(name);
  return index === undefined ? undefined : state.ir.steps[index];
}

export function allSteps(state: RunState): StepRun[] {
  return vecToArray(state.steps);
}

export interface AttemptSummary {
  outcome: string | null;
  /** how an attempt without an outcome ended */
  ended?: Attempt['ended'];
}

export interface StepSummary {
  status: StepStatus;
  attempts: AttemptSummary[];
}

/** The final state as `run --json` prints it (SPEC §8). */
export interface RunSummary {
  id: string;
  playbook: string;
  status: RunStatus;
  reason?: string;
  steps: Record<string, StepSummary>;
  after?: Record<string, StepSummary>;
  loops?: Record<string, number>;
  outputs?: Record<string, unknown> | null;
}

export function summarize(state: RunState): RunSummary {
  const steps: Record<string, StepSummary> = {};
  for (const run of vecToArray(state.steps)) steps[run.name] = stepSummary(run);
  const summary: RunSummary = { id: state.id, playbook: state.playbook, status: state.status, steps };
  if (state.reason) summary.reason = state.reason;
  if (state.after.length) {
    summary.after = {};
    for (const run of state.after) summary.after[run.name] = stepSummary(run);
  }
  summary.loops = { ...state.loops };
  summary.outputs = state.outputs;
  return summary;
}

function stepSummary(run: StepRun): StepSummary {
  return {
    status: run.status,
    attempts: run.attempts.map((a) => {
      const attempt: AttemptSummary = { outcome: a.outcome ?? null };
      if (a.ended) attempt.ended = a.ended;
      return attempt;
    }),
  };
}
