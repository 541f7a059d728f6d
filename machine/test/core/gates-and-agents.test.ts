import { describe, expect, it } from 'vitest';
import { REMINDER } from '../../src/core/effects.js';
import { Run, effectTypes, playbook, ready } from '../helpers.js';

const GATED = playbook(`
  build: { role: implementer, prompt: B, outputs: { branch: string } }
  ship:
    needs: [build]
    gate:
      title: "Ship \${{ steps.build.outputs.branch }}?"
      summary: Built and tested.
      choices:
        approve: next
        reject: fail
        note: { label: Approve with a note, comment: optional, then: next }
        revise: { comment: required, then: { loop: build, max: 2, feedback: "\${{ gate.comment }}" } }
`);

function atGate(): Run {
  const run = new Run(GATED);
  run.send({ type: 'start' });
  run.pass('build', 'done', { branch: 'feat/x' });
  return run;
}

describe('gates', () => {
  it('opens a ready gate with its rendered title, summary and choices; the step waits', () => {
    const run = atGate();
    expect(run.refuse({ type: 'start-step', step: 'ship' })).toBe(
      'gate "ship" is a gate: open it with request-gate',
    );
    const [open] = run.send({ type: 'request-gate', step: 'ship' });
    expect(open).toEqual({
      type: 'open-gate',
      step: 'ship',
      attempt: 1,
      title: 'Ship feat/x?',
      summary: 'Built and tested.',
      choices: [
        { name: 'approve', label: null, comment: 'none' },
        { name: 'reject', label: null, comment: 'none' },
        { name: 'note', label: 'Approve with a note', comment: 'optional' },
        { name: 'revise', label: null, comment: 'required' },
      ],
    });
    expect(run.step('ship')).toMatchObject({
      status: 'waiting',
      gate: { title: 'Ship feat/x?', summary: 'Built and tested.' },
    });
    expect(run.refuse({ type: 'request-gate', step: 'ship' })).toBe(
      'gate "ship" is not ready: it is waiting',
    );
  });

  it('takes the manager’s summary over the playbook’s', () => {
    const run = atGate();
    const [open] = run.send({ type: 'request-gate', step: 'ship', summary: 'All green; one flaky test.' });
    expect(open).toMatchObject({ summary: 'All green; one flaky test.' });
  });

  it('applies the decided choice’s transition and wakes the manager', () => {
    const run = atGate();
    run.send({ type: 'request-gate', step: 'ship' });
    const effects = run.send({ type: 'gate-decided', step: 'ship', choice: 'approve' });
    expect(run.state.status).toBe('completed');
    expect(run.step('ship')).toMatchObject({ status: 'completed', outcome: 'approve', gate: null });
    expect(effects.find((e) => e.type === 'wake-manager')).toMatchObject({
      wakeups: [
        { kind: 'gate-decided', step: 'ship', outcome: 'approve' },
        { kind: 'run-ended', text: 'run run-1 completed' },
      ],
    });
  });

  it('refuses a choice the gate does not declare, listing its choices', () => {
    const run = atGate();
    run.send({ type: 'request-gate', step: 'ship' });
    expect(run.refuse({ type: 'gate-decided', step: 'ship', choice: 'ok' })).toBe(
      'gate "ship" has no choice "ok"; its choices are approve, reject, note, revise',
    );
  });

  it('refuses an empty comment where one is required; hands the comment on as loop feedback', () => {
    const run = atGate();
    run.send({ type: 'request-gate', step: 'ship' });
    const needs = 'choice "revise" of gate "ship" needs a comment';
    expect(run.refuse({ type: 'gate-decided', step: 'ship', choice: 'revise' })).toBe(needs);
    expect(run.refuse({ type: 'gate-decided', step: 'ship', choice: 'revise', comment: '   ' })).toBe(needs);
    run.send({ type: 'gate-decided', step: 'ship', choice: 'revise', comment: 'rename the flag' });
    expect(run.state.loops).toEqual({ 'ship.revise': 1 });
    expect(run.step('ship').attempts[0]).toMatchObject({ outcome: 'revise', comment: 'rename the flag' });
    const [agent] = run.send({ type: 'start-step', step: 'build' });
    expect(agent).toMatchObject({ feedback: 'rename the flag', loopCount: 1 });
  });

  it('takes an optional comment or none', () => {
    const run = atGate();
    run.send({ type: 'request-gate', step: 'ship' });
    run.send({ type: 'gate-decided', step: 'ship', choice: 'note' });
    expect(run.state.status).toBe('completed');
  });

  it('refuses a decision on a gate that is not open', () => {
    const run = atGate();
    expect(run.refuse({ type: 'gate-decided', step: 'ship', choice: 'approve' })).toBe(
      'gate "ship" is not open (it is ready)',
    );
    expect(run.refuse({ type: 'gate-decided', step: 'build', choice: 'approve' })).toBe(
      'step "build" is not a gate',
    );
  });
});

const AGENTS = playbook(`
  flaky: { role: implementer, prompt: F, retries: 1 }
  once: { needs: [flaky], role: implementer, prompt: O }
`);

describe('lost agents (SPEC §3.3)', () => {
  it('reminds an agent that ended its turn without a report, once', () => {
    const run = new Run(AGENTS);
    run.send({ type: 'start' });
    run.send({ type: 'start-step', step: 'flaky' });
    const effects = run.send({ type: 'agent-stopped', step: 'flaky', attempt: 1 });
    expect(effects[0]).toEqual({ type: 'remind-agent', step: 'flaky', attempt: 1, message: REMINDER });
    expect(run.step('flaky')).toMatchObject({ status: 'running', attempts: [{ reminded: true }] });
    // The reminder worked: the agent reports.
    run.send({ type: 'report', step: 'flaky', outcome: 'done' });
    run.send({ type: 'complete-step', step: 'flaky', outcome: 'done' });
    expect(run.status('once')).toBe('ready');
  });

  it('after the reminder, the step is lost: it retries within retries', () => {
    const run = new Run(AGENTS);
    run.send({ type: 'start' });
    run.send({ type: 'start-step', step: 'flaky' });
    run.send({ type: 'agent-stopped', step: 'flaky' });
    const effects = run.send({ type: 'agent-stopped', step: 'flaky' });
    expect(ready(effects)).toEqual(['flaky']);
    expect(effects.find((e) => e.type === 'wake-manager')).toMatchObject({
      wakeups: [{ kind: 'lost', step: 'flaky' }],
    });
    expect(run.step('flaky')).toMatchObject({
      status: 'ready',
      retriesUsed: 1,
      attempts: [{ ended: 'lost' }],
    });
    run.send({ type: 'start-step', step: 'flaky' });
    run.send({ type: 'agent-stopped', step: 'flaky' });
    run.send({ type: 'agent-stopped', step: 'flaky' });
    expect(run.step('flaky')).toMatchObject({
      status: 'lost',
      attempts: [{ ended: 'lost' }, { ended: 'lost' }],
    });
    expect(run.state.status).toBe('failed');
    expect(run.state.reason).toBe(
      'step "flaky" was lost after its agent was lost (its agent ended its turn again without a report); its 1 retry is used up',
    );
  });

  it('loses an agent that no longer exists at once, without a reminder', () => {
    const run = new Run(AGENTS);
    run.send({ type: 'start' });
    run.pass('flaky');
    run.send({ type: 'start-step', step: 'once' });
    const effects = run.send({
      type: 'agent-lost',
      step: 'once',
      reason: 'its agent no longer exists after a restart',
    });
    expect(effectTypes(effects)).not.toContain('remind-agent:once');
    expect(run.status('once')).toBe('lost');
    expect(run.state.status).toBe('failed');
  });

  it('ignores a stale stop or loss (another attempt, or a step that reported)', () => {
    const run = new Run(AGENTS);
    run.send({ type: 'start' });
    run.send({ type: 'start-step', step: 'flaky' });
    expect(run.try({ type: 'agent-stopped', step: 'flaky', attempt: 2 }).state).toBe(run.state);
    run.send({ type: 'report', step: 'flaky', outcome: 'done' });
    expect(run.try({ type: 'agent-stopped', step: 'flaky' }).state).toBe(run.state);
    expect(run.try({ type: 'agent-lost', step: 'flaky' }).state).toBe(run.state);
  });

  it('nudges a running agent, and refuses to nudge one that is not running', () => {
    const run = new Run(AGENTS);
    run.send({ type: 'start' });
    expect(run.refuse({ type: 'nudge-step', step: 'flaky', message: 'hurry' })).toBe(
      'step "flaky" is not running (it is ready); only a running step can be nudged',
    );
    run.send({ type: 'start-step', step: 'flaky' });
    expect(run.send({ type: 'nudge-step', step: 'flaky', message: 'hurry' })[0]).toEqual({
      type: 'nudge-agent',
      step: 'flaky',
      attempt: 1,
      message: 'hurry',
    });
  });
});

describe('timeouts', () => {
  it('stops a step past its timeout: it retries within retries, else the run fails', () => {
    const run = new Run(playbook(`\n  slow: { role: implementer, prompt: S, timeout: 10m, retries: 1 }\n`));
    run.send({ type: 'start' });
    run.send({ type: 'start-step', step: 'slow' });
    const effects = run.send({ type: 'timeout', step: 'slow', attempt: 1 });
    expect(effects[0]).toEqual({
      type: 'stop-agent',
      step: 'slow',
      attempt: 1,
      reason: 'timed out after 10m',
    });
    expect(run.step('slow')).toMatchObject({ status: 'ready', attempts: [{ ended: 'timeout' }] });
    // A timer of an attempt that already ended changes nothing.
    expect(run.try({ type: 'timeout', step: 'slow', attempt: 1 }).state).toBe(run.state);
    run.send({ type: 'start-step', step: 'slow' });
    run.send({ type: 'timeout', step: 'slow', attempt: 2 });
    expect(run.state).toMatchObject({
      status: 'failed',
      reason: 'step "slow" failed after a timeout (10m); its 1 retry is used up',
    });
  });

  it('fails the run past its wall clock', () => {
    const run = new Run(
      playbook(`\n  slow: { role: implementer, prompt: S }\n`, 'limits: { timeout: 2h }\n'),
    );
    run.send({ type: 'start' });
    expect(run.state.deadline).toBe(new Date(run.now + 2 * 3_600_000).toISOString());
    run.send({ type: 'start-step', step: 'slow' });
    const effects = run.send({ type: 'timeout' });
    expect(run.state).toMatchObject({ status: 'failed', reason: 'the run ran past its timeout of 2h' });
    expect(effectTypes(effects)).toContain('stop-agent:slow');
    expect(run.try({ type: 'timeout' }).state).toBe(run.state);
  });
});
