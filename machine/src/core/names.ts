/**
 * The transition function's reading of the names an event gives: a step or an after-task, one of its
 * outcomes or choices, and whether it may start now, each refused with what would fit.
 */
import { closest } from '@kairoku-playbook/grammar';
import type { IrOutcome } from '@kairoku-playbook/compiler';
import { refuseEvent } from './refusal.js';
import type { TransitionRefusal } from './refusal.js';
import { AFTER_PREFIX, isEnded } from './state.js';
import { isSettled } from './working-run.js';
import type { Ref, WorkingRun } from './working-run.js';

/** A step's or an after-task's (`after.NAME`) reference, or why there is none. */
export function resolve(run: WorkingRun, name: string): Ref | TransitionRefusal {
  if (name.startsWith(AFTER_PREFIX)) {
    const task = name.slice(AFTER_PREFIX.length);
    const index = run.derived.afterIndex.get(task);
    if (index !== undefined) return { after: true, index };
    return refuseEvent('unknown-after-task', unknown('after-task', task, [...run.derived.afterIndex.keys()]));
  }
  const index = run.derived.stepIndex.get(name);
  if (index !== undefined) return { after: false, index };
  return refuseEvent('unknown-step', unknown('step', name, [...run.derived.stepIndex.keys()]));
}

function unknown(what: string, name: string, names: string[]): string {
  const suggestion = closest(name, names);
  return `unknown ${what} "${name}"${suggestion ? `; did you mean "${suggestion}"?` : ''}`;
}

/** One of a step's outcomes (a gate's choices), or why it has none of that name. */
export function outcomeOf(run: WorkingRun, ref: Ref, name: string): IrOutcome | TransitionRefusal {
  const outcomes = ref.after ? run.derived.afterOutcomes[ref.index]! : run.derived.stepOutcomes[ref.index]!;
  const outcome = outcomes.get(name);
  if (outcome) return outcome;
  const isGate = !ref.after && run.state.ir.steps[ref.index]!.kind === 'gate';
  const what = isGate ? 'choice' : 'outcome';
  return refuseEvent(
    isGate ? 'unknown-choice' : 'unknown-outcome',
    `${run.label(ref)} has no ${what} "${name}"; its ${what}s are ${[...outcomes.keys()].join(', ')}`,
  );
}

export function isGate(run: WorkingRun, ref: Ref): boolean {
  return !ref.after && run.state.ir.steps[ref.index]!.kind === 'gate';
}

/** Why nothing may start now, or undefined when a step may. */
export function cannotStart(run: WorkingRun, ref: Ref): TransitionRefusal | undefined {
  const status = run.state.status;
  if (ref.after) {
    if (!isEnded(status))
      return refuseEvent(
        'run-not-ended',
        `${run.label(ref)} starts once the run has ended; the run is ${status}`,
      );
    const task = run.get(ref).status;
    if (task === 'running' || task === 'reported')
      return refuseEvent('already-running', `${run.label(ref)} is already ${task}`);
    return undefined;
  }
  if (run.state.startedAt === null) return refuseEvent('not-started', 'the run has not started');
  if (status === 'paused')
    return refuseEvent('run-paused', 'the run is paused: nothing new starts until it is resumed');
  if (isEnded(status)) return refuseEvent('run-ended', `the run has ended (${status})`);
  const step = run.get(ref);
  if (step.status === 'ready') return undefined;
  let why = `${run.label(ref)} is not ready: it is ${step.status}`;
  if (step.status === 'pending') {
    const waiting = run.state.ir.steps[ref.index]!.needs.filter((n) => !isSettled(run.step(n).status));
    if (waiting.length) why += `, waiting for ${waiting.map((n) => run.state.ir.steps[n]!.name).join(', ')}`;
  }
  return refuseEvent('not-ready', why);
}
