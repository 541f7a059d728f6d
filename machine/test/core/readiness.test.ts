import { describe, expect, it } from 'vitest';
import { Run, compileFile, effectTypes, playbook, ready } from '../helpers.js';

const DIAMOND = playbook(`
  a: { role: implementer, prompt: A }
  b: { needs: [a], role: implementer, prompt: B }
  c: { needs: [a], role: implementer, prompt: C }
  d: { needs: [b, c], role: implementer, prompt: D }
`);

describe('readiness (SPEC §3.3)', () => {
  it('starts the steps that need nothing, and only those', () => {
    const run = new Run(DIAMOND);
    expect(run.state.startedAt).toBeNull();
    const effects = run.send({ type: 'start' });
    expect(ready(effects)).toEqual(['a']);
    expect(run.statuses()).toEqual({ a: 'ready', b: 'pending', c: 'pending', d: 'pending' });
    expect(effects.at(-1)).toEqual({ type: 'persist' });
    expect(run.refuse({ type: 'start' })).toBe('the run has already started');
  });

  it('makes a step ready when every need is settled, not before', () => {
    const run = new Run(DIAMOND);
    run.send({ type: 'start' });
    expect(ready(run.pass('a'))).toEqual(['b', 'c']);
    expect(ready(run.pass('b'))).toEqual([]);
    expect(run.status('d')).toBe('pending');
    expect(run.step('d').unsettledNeeds).toBe(1);
    expect(ready(run.pass('c'))).toEqual(['d']);
    run.pass('d');
    expect(run.state.status).toBe('completed');
    expect(run.state.settled).toBe(4);
  });

  it('refuses to start a step that is not ready, and says what it waits for', () => {
    const run = new Run(DIAMOND);
    expect(run.refuse({ type: 'start-step', step: 'a' })).toBe('the run has not started');
    run.send({ type: 'start' });
    expect(run.refuse({ type: 'start-step', step: 'd' })).toBe(
      'step "d" is not ready: it is pending, waiting for b, c',
    );
    expect(run.refuse({ type: 'start-step', step: 'dd' })).toBe('unknown step "dd"; did you mean "d"?');
    run.send({ type: 'start-step', step: 'a' });
    expect(run.refuse({ type: 'start-step', step: 'a' })).toBe('step "a" is not ready: it is running');
  });

  it('hands the agent its role, rendered prompt, derived inputs and the brief', () => {
    const ir = playbook(
      `
  plan:
    role: planner
    prompt: "Plan \${{ inputs.task }} for \${{ run.playbook }}"
    outputs: { files: list<string> }
  build:
    needs: [plan]
    role: implementer
    prompt: "Touch \${{ join(steps.plan.outputs.files, ', ') }}"
`,
      'inputs:\n  task: { type: string }\n',
    );
    const run = new Run(ir, { task: 'a flag' });
    run.send({ type: 'start' });
    const [agent] = run.send({ type: 'start-step', step: 'plan', brief: 'keep it short' });
    expect(agent).toMatchObject({
      type: 'start-agent',
      step: 'plan',
      attempt: 1,
      prompt: 'Plan a flag for t',
      brief: 'keep it short',
      feedback: '',
      loopCount: 0,
      readOnly: true,
      inputs: [{ from: 'inputs.task', value: 'a flag' }],
      role: { name: 'planner', base: 'planner' },
    });
    expect(run.step('plan').attempts[0]).toMatchObject({ attempt: 1, brief: 'keep it short' });
    run.send({ type: 'report', step: 'plan', outcome: 'done', outputs: { files: ['a.ts', 'b.ts'] } });
    run.send({ type: 'complete-step', step: 'plan', outcome: 'done' });
    const [build] = run.send({ type: 'start-step', step: 'build' });
    expect(build).toMatchObject({
      prompt: 'Touch a.ts, b.ts',
      inputs: [{ from: 'steps.plan.outputs.files', value: ['a.ts', 'b.ts'] }],
    });
  });

  it('records the agent handle a backend reports, for the lost-agent rule after a restart', () => {
    const run = new Run(DIAMOND);
    run.send({ type: 'start' });
    run.send({ type: 'start-step', step: 'a' });
    run.send({ type: 'step-started', step: 'a', attempt: 1, agent: 'agent-7' });
    expect(run.step('a').attempts[0]!.agent).toBe('agent-7');
    // A stale acknowledgement changes nothing.
    const stale = run.try({ type: 'step-started', step: 'a', attempt: 3, agent: 'x' });
    expect(stale.state).toBe(run.state);
    expect(stale.effects).toEqual([]);
  });
});

describe('when and skipping (SPEC §3.3)', () => {
  const ir = playbook(
    `
  probe:
    role: researcher
    prompt: Probe.
    outputs: { risky: boolean }
  review:
    needs: [probe]
    when: steps.probe.outputs.risky || inputs.strict
    role: reviewer
    prompt: Review.
  ship:
    needs: [review]
    gate: { title: Ship? }
`,
    'inputs:\n  strict: { type: boolean, default: false }\n',
  );

  it('evaluates when on becoming ready: false skips the step, and skipping does not spread', () => {
    const run = new Run(ir);
    run.send({ type: 'start' });
    const effects = run.pass('probe', 'done', { risky: false });
    expect(run.status('review')).toBe('skipped');
    expect(run.step('review').reason).toBe('its when condition is false');
    expect(run.step('review').attempts).toEqual([]);
    // The gate after the skipped review still becomes ready.
    expect(ready(effects)).toEqual(['ship']);
    expect(run.status('ship')).toBe('ready');
    run.decide('ship', 'approve');
    expect(run.state.status).toBe('completed');
  });

  it('runs the step when its condition is true', () => {
    const run = new Run(ir);
    run.send({ type: 'start' });
    expect(ready(run.pass('probe', 'done', { risky: true }))).toEqual(['review']);
    const strict = new Run(ir, { strict: true });
    strict.send({ type: 'start' });
    expect(ready(strict.pass('probe', 'done', { risky: false }))).toEqual(['review']);
  });

  it('skips the optional review of the pr sample with its default inputs, and the gate still opens', () => {
    const run = new Run(compileFile('playbooks/pr.yml'), { task: 'x' });
    run.send({ type: 'start' });
    run.pass('plan', 'done', { plan: 'p', files: [] });
    run.pass('implement', 'done', { branch: 'feat/x' });
    const effects = run.pass('qa', 'pass');
    expect(run.status('review')).toBe('skipped');
    expect(effectTypes(effects)).toContain('step-ready:ship');
    const [gate] = run.send({ type: 'request-gate', step: 'ship' });
    expect(gate).toMatchObject({ title: 'Ship feat/x?', summary: 'Review verdict: not reviewed' });
  });
});
