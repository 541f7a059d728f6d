import { describe, expect, it } from 'vitest';
import { Run, playbook } from '../helpers.js';

const IR = playbook(`
  plan:
    role: planner
    prompt: Plan
  approve:
    needs: [plan]
    gate:
      title: Ship it?
      choices:
        approve: next
        reject: { comment: required, then: fail }
`);

describe('typed refusals: a stable code beside the sentence', () => {
  it('gives each refusal of a gate decision its own code', () => {
    const run = new Run(IR);
    run.send({ type: 'start' });
    expect(run.refusalCode({ type: 'gate-decided', step: 'approve', choice: 'approve' })).toBe('not-waiting');
    expect(run.refusalCode({ type: 'gate-decided', step: 'plan', choice: 'approve' })).toBe('not-a-gate');
    expect(run.refusalCode({ type: 'gate-decided', step: 'nope', choice: 'approve' })).toBe('unknown-step');
    run.pass('plan');
    run.send({ type: 'request-gate', step: 'approve' });
    expect(run.refusalCode({ type: 'gate-decided', step: 'approve', choice: 'maybe' })).toBe(
      'unknown-choice',
    );
    expect(run.refusalCode({ type: 'gate-decided', step: 'approve', choice: 'reject' })).toBe(
      'comment-required',
    );
  });

  it('codes the run-level refusals: paused, ended, not ended', () => {
    const run = new Run(IR);
    expect(run.refusalCode({ type: 'start-step', step: 'plan' })).toBe('not-started');
    run.send({ type: 'start' });
    expect(run.refusalCode({ type: 'start' })).toBe('already-started');
    expect(run.refusalCode({ type: 'resume' })).toBe('run-not-paused');
    expect(run.refusalCode({ type: 'restart-from', step: 'plan' })).toBe('run-not-ended');
    expect(run.refusalCode({ type: 'report', step: 'plan', outcome: 'done' })).toBe('not-running');
    expect(run.refusalCode({ type: 'complete-step', step: 'plan', outcome: 'done' })).toBe('not-reported');
    expect(run.refusalCode({ type: 'start-step', step: 'approve' })).toBe('is-a-gate');
    expect(run.refusalCode({ type: 'nudge-step', step: 'plan', message: 'hi' })).toBe('not-running');
    run.send({ type: 'pause' });
    expect(run.refusalCode({ type: 'start-step', step: 'plan' })).toBe('run-paused');
    expect(run.refusalCode({ type: 'pause' })).toBe('run-not-running');
    run.send({ type: 'cancel' });
    expect(run.refusalCode({ type: 'start-step', step: 'plan' })).toBe('run-ended');
    expect(run.refusalCode({ type: 'cancel' })).toBe('nothing-to-cancel');
    expect(run.refusalCode({ type: 'restart-from', step: 'approve' })).toBe('needs-not-completed');
  });
});
