import { describe, expect, it } from 'vitest';
import { vecToArray } from '../../src/core/pvec.js';
import { Run, effectTypes, playbook, ready } from '../helpers.js';

const CHAIN = playbook(
  `
  a: { role: implementer, prompt: A, outputs: { x: string } }
  b: { needs: [a], role: implementer, prompt: B }
  c: { needs: [a], role: implementer, prompt: C }
  d: { needs: [b, c], role: implementer, prompt: D }
`,
  `outputs:
  x: \${{ steps.a.outputs.x }}
after:
  notes: { trigger: auto, on: [completed], role: researcher, prompt: Notes }
  postmortem: { trigger: auto, on: [failed], role: researcher, prompt: Why }
  publish: { trigger: manual, role: implementer, prompt: Publish }
`,
);

describe('pause and resume', () => {
  it('starts nothing while paused, holds wake-ups, and releases both on resume', () => {
    const run = new Run(CHAIN);
    run.send({ type: 'start' });
    run.send({ type: 'start-step', step: 'a' });
    run.send({ type: 'pause' });
    expect(run.state.status).toBe('paused');
    expect(run.refuse({ type: 'pause' })).toBe('the run is not running (it is paused)');
    // The running agent finishes its turn: its report is taken, but the manager is not woken.
    const reported = run.send({ type: 'report', step: 'a', outcome: 'done', outputs: { x: '1' } });
    expect(effectTypes(reported)).toEqual(['persist']);
    expect(run.state.wakeups).toMatchObject([{ kind: 'reported', step: 'a', outcome: 'done' }]);
    const completed = run.send({ type: 'complete-step', step: 'a', outcome: 'done' });
    expect(ready(completed)).toEqual([]);
    expect(run.statuses()).toMatchObject({ a: 'completed', b: 'pending', c: 'pending' });
    expect(run.state.deferred).toEqual([
      { step: 1, retry: false },
      { step: 2, retry: false },
    ]);
    const resumed = run.send({ type: 'resume' });
    expect(ready(resumed)).toEqual(['b', 'c']);
    expect(resumed.filter((e) => e.type === 'wake-manager')).toMatchObject([
      { wakeups: [{ kind: 'reported', step: 'a' }] },
    ]);
    expect(run.state).toMatchObject({ status: 'running', deferred: [], wakeups: [] });
    expect(run.refuse({ type: 'resume' })).toBe('the run is not paused (it is running)');
  });

  it('refuses to start a ready step while paused', () => {
    const run = new Run(CHAIN);
    run.send({ type: 'start' });
    run.send({ type: 'pause' });
    expect(run.refuse({ type: 'start-step', step: 'a' })).toBe(
      'the run is paused: nothing new starts until it is resumed',
    );
  });
});

describe('cancel', () => {
  it('stops running agents and ends the run canceled; no after-task starts', () => {
    const run = new Run(CHAIN);
    run.send({ type: 'start' });
    run.pass('a', 'done', { x: '1' });
    run.send({ type: 'start-step', step: 'b' });
    const effects = run.send({ type: 'cancel', reason: 'wrong branch' });
    expect(run.state).toMatchObject({ status: 'canceled', reason: 'wrong branch' });
    expect(run.statuses()).toEqual({ a: 'completed', b: 'canceled', c: 'pending', d: 'pending' });
    expect(effectTypes(effects)).toContain('stop-agent:b');
    expect(ready(effects)).toEqual([]);
    expect(run.refuse({ type: 'cancel' })).toBe(
      'the run has already ended (canceled) and no after-task is running',
    );
  });

  it('on an ended run, cancels its running after-tasks', () => {
    const run = new Run(CHAIN);
    run.send({ type: 'start' });
    for (const s of ['a', 'b', 'c', 'd']) run.pass(s, 'done', s === 'a' ? { x: '1' } : {});
    run.send({ type: 'start-step', step: 'after.notes' });
    const effects = run.send({ type: 'cancel' });
    expect(effectTypes(effects)).toContain('stop-agent:after.notes');
    expect(run.step('after.notes').status).toBe('canceled');
    expect(run.state.status).toBe('completed');
  });
});

describe('the manager agent is gone (seed 000)', () => {
  it('fails the run and stops its running steps; no after-task starts, not even one on failed', () => {
    const run = new Run(CHAIN);
    run.send({ type: 'start' });
    run.pass('a', 'done', { x: '1' });
    run.send({ type: 'start-step', step: 'b' });
    const effects = run.send({ type: 'manager-lost', reason: 'the manager agent agt_1 was archived' });
    expect(run.state).toMatchObject({ status: 'failed', reason: 'the manager agent agt_1 was archived' });
    expect(run.statuses()).toEqual({ a: 'completed', b: 'canceled', c: 'pending', d: 'pending' });
    expect(effectTypes(effects)).toContain('stop-agent:b');
    expect(ready(effects)).toEqual([]);
    expect(run.step('after.postmortem').status).toBe('pending');
  });

  it('on an ended run, cancels its running after-tasks; with none running it is refused', () => {
    const run = new Run(CHAIN);
    run.send({ type: 'start' });
    for (const s of ['a', 'b', 'c', 'd']) run.pass(s, 'done', s === 'a' ? { x: '1' } : {});
    run.send({ type: 'start-step', step: 'after.notes' });
    const effects = run.send({ type: 'manager-lost' });
    expect(effectTypes(effects)).toContain('stop-agent:after.notes');
    expect(run.step('after.notes')).toMatchObject({
      status: 'canceled',
      reason: 'its manager agent is gone',
    });
    expect(run.state.status).toBe('completed');
    expect(run.refuse({ type: 'manager-lost' })).toBe(
      'the run has already ended (completed) and no after-task is running',
    );
  });
});

describe('after-tasks', () => {
  it('start when the run ends, filtered by on, and never change its status', () => {
    const run = new Run(CHAIN);
    run.send({ type: 'start' });
    for (const s of ['a', 'b', 'c']) run.pass(s, 'done', s === 'a' ? { x: '1' } : {});
    const effects = run.pass('d');
    expect(run.state).toMatchObject({ status: 'completed', outputs: { x: '1' } });
    expect(ready(effects)).toEqual(['after.notes']);
    expect(run.step('after.postmortem').status).toBe('pending');
    expect(run.step('after.publish').status).toBe('pending');
    run.send({ type: 'start-step', step: 'after.notes' });
    run.send({ type: 'report', step: 'after.notes', outcome: 'failed' });
    run.send({ type: 'complete-step', step: 'after.notes', outcome: 'failed' });
    expect(run.step('after.notes').status).toBe('failed');
    expect(run.state.status).toBe('completed');
  });

  it('run on failed runs when asked, and leave the run failed', () => {
    const run = new Run(CHAIN);
    run.send({ type: 'start' });
    const effects = run.pass('a', 'failed');
    expect(run.state.status).toBe('failed');
    expect(ready(effects)).toEqual(['after.postmortem']);
    run.pass('after.postmortem');
    expect(run.step('after.postmortem').status).toBe('completed');
    expect(run.state.status).toBe('failed');
  });

  it('start by hand once the run has ended (manual trigger)', () => {
    const run = new Run(CHAIN);
    run.send({ type: 'start' });
    expect(run.refuse({ type: 'start-step', step: 'after.publish' })).toBe(
      'after-task "publish" starts once the run has ended; the run is running',
    );
    expect(run.refuse({ type: 'start-step', step: 'after.publsh' })).toBe(
      'unknown after-task "publsh"; did you mean "publish"?',
    );
    for (const s of ['a', 'b', 'c', 'd']) run.pass(s, 'done', s === 'a' ? { x: '1' } : {});
    const [agent] = run.send({ type: 'start-step', step: 'after.publish' });
    expect(agent).toMatchObject({ type: 'start-agent', step: 'after.publish', prompt: 'Publish' });
  });
});

describe('restart from a step', () => {
  function failedAtD(): Run {
    const run = new Run(CHAIN);
    run.send({ type: 'start' });
    run.pass('a', 'done', { x: '1' });
    run.pass('b');
    run.send({ type: 'start-step', step: 'c' });
    run.send({ type: 'report', step: 'c', outcome: 'failed' });
    run.send({ type: 'complete-step', step: 'c', outcome: 'failed' });
    return run;
  }

  it('reopens an ended run: the step and everything after it run again; earlier steps keep their outputs', () => {
    const run = failedAtD();
    expect(run.state.status).toBe('failed');
    run.pass('after.postmortem');
    const effects = run.send({ type: 'restart-from', step: 'b' });
    expect(run.state).toMatchObject({ status: 'running', reason: null, endedAt: null, outputs: null });
    // b and its descendants reset; c had failed, so it runs again too; a keeps its outputs.
    expect(run.statuses()).toEqual({ a: 'completed', b: 'ready', c: 'ready', d: 'pending' });
    expect(run.step('a').outputs).toEqual({ x: '1' });
    expect(run.step('b').attempts).toHaveLength(1);
    expect(run.step('after.postmortem')).toMatchObject({
      status: 'pending',
      attempts: [{ outcome: 'done' }],
    });
    expect(ready(effects)).toEqual(['b', 'c']);
    for (const s of ['b', 'c', 'd']) run.pass(s);
    expect(run.state.status).toBe('completed');
    expect(run.step('b').attempts).toHaveLength(2);
    expect(vecToArray(run.state.history).map((h) => h.kind)).toContain('run-restarted');
  });

  it('runs again the steps an early end skipped, and the steps after a skipped one', () => {
    const ir = playbook(`
  a: { role: implementer, prompt: A, outcomes: { done: next, stop: end } }
  maybe: { needs: [a], when: "steps.a.outcome == 'done'", role: implementer, prompt: M }
  after-maybe: { needs: [maybe], role: implementer, prompt: N }
`);
    const run = new Run(ir);
    run.send({ type: 'start' });
    run.pass('a', 'stop');
    expect(run.statuses()).toEqual({ a: 'completed', maybe: 'skipped', 'after-maybe': 'skipped' });
    run.send({ type: 'restart-from', step: 'a' });
    run.pass('a', 'done');
    run.pass('maybe');
    run.pass('after-maybe');
    expect(run.state.status).toBe('completed');
    // Restarting after `maybe` (skipped) evaluates its condition again: still false here.
    const skip = new Run(ir);
    skip.send({ type: 'start' });
    skip.pass('a', 'stop');
    skip.send({ type: 'restart-from', step: 'after-maybe' });
    expect(skip.statuses()).toEqual({ a: 'completed', maybe: 'skipped', 'after-maybe': 'ready' });
    expect(skip.step('maybe').reason).toBe('its when condition is false');
  });

  it('starts a run that was canceled before it ever started (a process killed between create and start)', () => {
    const run = new Run(CHAIN);
    run.send({ type: 'cancel' });
    expect(run.state.status).toBe('canceled');
    expect(run.state.startedAt).toBeNull();
    run.send({ type: 'restart-from', step: 'a' });
    expect(run.state.startedAt).not.toBeNull();
    run.pass('a');
    expect(run.statuses()).toMatchObject({ a: 'completed', b: 'ready', c: 'ready' });
  });

  it('refuses a running run, and a step whose needs have not completed', () => {
    const run = new Run(CHAIN);
    run.send({ type: 'start' });
    expect(run.refuse({ type: 'restart-from', step: 'a' })).toBe(
      'the run is running: only an ended run can be restarted',
    );
    const failed = failedAtD();
    expect(failed.refuse({ type: 'restart-from', step: 'd' })).toBe(
      'step "d" cannot restart: its needs have not completed (c is failed)',
    );
    expect(failed.refuse({ type: 'restart-from', step: 'after.notes' })).toBe(
      'after-task "notes" is an after-task: restart the run from a step',
    );
  });
});
