/**
 * The transition function's handlers of events on the run as a whole: pause and resume, cancel, the
 * loss of its manager, and a restart from a step.
 */
import { resolve } from './names.js';
import { isEventRefusal, refuseEvent } from './refusal.js';
import type { TransitionRefusal } from './refusal.js';
import { isEnded } from './state.js';
import { isSettled } from './working-run.js';
import type { Ref, WorkingRun } from './working-run.js';

export function pause(run: WorkingRun): TransitionRefusal | undefined {
  if (run.state.status !== 'running')
    return refuseEvent('run-not-running', `the run is not running (it is ${run.state.status})`);
  run.state.status = 'paused';
  run.record('run-paused', 'run paused: running steps finish their turn, nothing new starts');
  return undefined;
}

export function resume(run: WorkingRun): TransitionRefusal | undefined {
  if (run.state.status !== 'paused')
    return refuseEvent('run-not-paused', `the run is not paused (it is ${run.state.status})`);
  run.state.status = 'running';
  run.record('run-resumed', 'run resumed');
  const deferred = run.state.deferred;
  run.state.deferred = [];
  for (const { step: index, retry } of deferred) {
    const step = run.step(index);
    if (step.status !== 'pending' || step.unsettledNeeds !== 0) continue;
    if (retry) run.makeReady({ after: false, index });
    else run.unblock(index);
  }
  if (run.state.wakeups.length) {
    run.release(run.state.wakeups);
    run.state.wakeups = [];
  }
  return undefined;
}

export function cancelRun(run: WorkingRun, reason: string | undefined): TransitionRefusal | undefined {
  const why = run.scrub(reason ?? 'canceled by request');
  if (!isEnded(run.state.status)) {
    run.cancelRun(why);
    return undefined;
  }
  // On an ended run, cancel its running after-tasks.
  let any = false;
  run.state.ir.after.forEach((_, index) => {
    const ref: Ref = { after: true, index };
    const status = run.get(ref).status;
    if (status !== 'running' && status !== 'reported' && status !== 'ready') return;
    run.stopActive(ref, 'canceled', 'canceled by request');
    run.put(ref, { status: 'canceled', reason: why });
    any = true;
  });
  if (!any)
    return refuseEvent(
      'nothing-to-cancel',
      `the run has already ended (${run.state.status}) and no after-task is running`,
    );
  run.record('after-canceled', `after-tasks canceled: ${why}`);
  return undefined;
}

export function managerLost(run: WorkingRun, reason: string | undefined): TransitionRefusal | undefined {
  const why = run.scrub(reason ?? 'its manager agent is gone');
  let stopped = false;
  run.state.ir.after.forEach((_, index) => {
    const ref: Ref = { after: true, index };
    const status = run.get(ref).status;
    if (status !== 'running' && status !== 'reported' && status !== 'ready') return;
    run.stopActive(ref, 'canceled', why);
    run.put(ref, { status: 'canceled', reason: why });
    stopped = true;
  });
  if (!isEnded(run.state.status)) {
    run.failRun(why, 'run-ended', { afterTasks: false });
    return undefined;
  }
  if (!stopped)
    return refuseEvent(
      'nothing-to-cancel',
      `the run has already ended (${run.state.status}) and no after-task is running`,
    );
  run.record('after-canceled', `after-tasks canceled: ${why}`);
  return undefined;
}

export function restartFrom(run: WorkingRun, name: string): TransitionRefusal | undefined {
  const ref = resolve(run, name);
  if (isEventRefusal(ref)) return ref;
  if (ref.after)
    return refuseEvent('is-an-after-task', `${run.label(ref)} is an after-task: restart the run from a step`);
  if (!isEnded(run.state.status))
    return refuseEvent('run-not-ended', `the run is ${run.state.status}: only an ended run can be restarted`);
  const needs = run.state.ir.steps[ref.index]!.needs;
  const open = needs.filter((n) => !isSettled(run.step(n).status));
  if (open.length) {
    const list = open.map((n) => `${run.state.ir.steps[n]!.name} is ${run.step(n).status}`).join(', ');
    return refuseEvent(
      'needs-not-completed',
      `${run.label(ref)} cannot restart: its needs have not completed (${list})`,
    );
  }
  // The step and everything after it run again; so does every step that had not completed (failed,
  // canceled, never started, or skipped: its `when` is evaluated again), and everything after those.
  const seeds = [ref.index];
  for (let index = 0; index < run.state.steps.size; index++)
    if (run.step(index).status !== 'completed') seeds.push(index);
  const region = new Set<number>();
  while (seeds.length) {
    const index = seeds.pop()!;
    if (region.has(index)) continue;
    region.add(index);
    seeds.push(...run.derived.dependents[index]!);
  }
  const reset = [...region].sort((a, b) => a - b);
  const loops = { ...run.state.loops };
  for (const index of region)
    for (const counter of run.derived.countersByTarget.get(index) ?? [])
      if (loops[counter]) loops[counter] = 0;
  run.state.loops = loops;
  run.state.ir.after.forEach((_, index) => {
    const task: Ref = { after: true, index };
    if (run.stopActive(task, 'canceled', 'the run restarted')) run.put(task, { status: 'canceled' });
    run.put(task, {
      status: 'pending',
      retriesUsed: 0,
      reason: null,
      outcome: null,
      outputs: null,
      summary: null,
    });
  });
  run.resetSteps(reset, -1, 'the run restarted');
  run.state.status = 'running';
  run.state.reason = null;
  run.state.endedAt = null;
  run.state.outputs = null;
  run.state.deferred = [];
  // A run canceled before it ever started (killed between creation and start) starts now.
  run.state.startedAt ??= run.at;
  const timeoutMs = run.state.ir.limits.timeoutMs;
  run.state.deadline = timeoutMs ? new Date(run.now + timeoutMs).toISOString() : null;
  run.record('run-restarted', `run restarted from ${name}`, ref);
  for (const index of reset) if (run.step(index).unsettledNeeds === 0) run.unblock(index);
  return undefined;
}
