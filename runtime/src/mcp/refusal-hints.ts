/**
 * What the manager protocol adds to a refusal's message: what can be done instead, from the run as it
 * is (the steps ready, running, reported or waiting, the steps a run can restart from).
 */
import type { Ir } from '@kairoku-playbook/compiler';
import { AFTER_PREFIX, isEnded, stepIr, vecToArray } from '@kairoku-playbook/machine';
import type { RunState, TransitionRefusal } from '@kairoku-playbook/machine';
import { restartableSteps } from './views.js';

/** A playbook's inputs, for a start whose inputs do not fit. */
export function describeInputs(ir: Ir): string {
  if (!ir.inputs.length) return 'none';
  return ir.inputs
    .map(
      (i) =>
        `${i.name} (${i.type}${i.required ? ', required' : 'default' in i ? `, default ${JSON.stringify(i.default)}` : ', optional'})`,
    )
    .join(', ');
}

function names(state: RunState, statuses: readonly string[]): string[] {
  const found: string[] = [];
  vecToArray(state.steps).forEach((s) => statuses.includes(s.status) && found.push(s.name));
  state.after.forEach((s) => statuses.includes(s.status) && found.push(`${AFTER_PREFIX}${s.name}`));
  return found;
}

function listed(what: string, list: string[]): string {
  return list.length ? `${what}: ${list.join(', ')}` : `${what}: none`;
}

/** What can be started instead (the steps ready now, or the after-tasks of an ended run). */
export function readyNow(state: RunState): string {
  if (isEnded(state.status)) {
    const after = names(state, ['ready']);
    return after.length ? listed('after-tasks ready', after) : `the run has ended (${state.status})`;
  }
  return `${listed('ready now', names(state, ['ready']))} (get_run shows the run)`;
}

export function reportedNow(state: RunState): string {
  return `${listed('reports waiting for complete_step', names(state, ['reported']))} (get_run shows the run)`;
}

export function waitingNow(state: RunState): string {
  return `${listed('gates waiting for a decision', names(state, ['waiting']))} (get_run shows the run)`;
}

export function runningNow(state: RunState): string {
  return listed('running now', names(state, ['running']));
}

export function restartHint(state: RunState): string {
  return `; it can restart from ${restartableSteps(state).join(', ') || 'no step'}`;
}

/** What to do about a refused report: outputs that fit, another outcome, or which attempt runs. */
export function reportHint(state: RunState, step: string, refusal: TransitionRefusal): string {
  const ir = stepIr(state, step);
  if (refusal.code === 'outputs-do-not-fit' && ir) {
    const outputs = ir.outputs.map((o) => `${o.name}: ${o.type}`).join(', ');
    return `. Report again with outputs that fit: ${outputs || 'none (report no outputs)'}`;
  }
  if (refusal.code === 'unknown-outcome') return '. Report again with one of them';
  return `; only the running attempt of a step can report (${runningNow(state)})`;
}
