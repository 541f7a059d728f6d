import { describe, expect, it } from 'vitest';
import { Run, effectTypes, playbook, ready } from '../helpers.js';

/** two parallel branches after `a`, so a transition can meet a running step */
const PARALLEL = playbook(`
  a: { role: implementer, prompt: A, outputs: { x: string } }
  fast:
    needs: [a]
    role: implementer
    prompt: F
    retries: 1
    outcomes: { done: next, bad: fail, stop: end, again: retry }
  slow: { needs: [a], role: implementer, prompt: S }
  last: { needs: [fast, slow], role: implementer, prompt: L }
`);

function started(): Run {
  const run = new Run(PARALLEL);
  run.send({ type: 'start' });
  run.pass('a', 'done', { x: 'one' });
  run.send({ type: 'start-step', step: 'slow' });
  run.send({ type: 'start-step', step: 'fast' });
  run.send({ type: 'report', step: 'fast', outcome: 'done' });
  return run;
}

describe('transitions (SPEC §3.2)', () => {
  it('next: the step completes with its outputs; steps that need it may become ready', () => {
    const run = new Run(PARALLEL);
    run.send({ type: 'start' });
    const effects = run.pass('a', 'done', { x: 'one' }, 'did a');
    expect(run.step('a')).toMatchObject({
      status: 'completed',
      outcome: 'done',
      outputs: { x: 'one' },
      summary: 'did a',
    });
    expect(ready(effects)).toEqual(['fast', 'slow']);
  });

  it('fail: the step fails, the run fails, running steps are stopped; steps not started stay pending', () => {
    const run = started();
    const effects = run.send({ type: 'complete-step', step: 'fast', outcome: 'bad' });
    expect(run.state.status).toBe('failed');
    expect(run.state.reason).toBe('step "fast" failed with outcome "bad"');
    expect(run.statuses()).toEqual({ a: 'completed', fast: 'failed', slow: 'canceled', last: 'pending' });
    expect(effects).toContainEqual({
      type: 'stop-agent',
      step: 'slow',
      attempt: 1,
      reason: 'the run failed',
    });
    expect(run.step('slow').attempts[0]).toMatchObject({ ended: 'canceled' });
    expect(effects.find((e) => e.type === 'wake-manager')).toMatchObject({
      wakeups: [{ kind: 'run-ended', text: 'run run-1 failed: step "fast" failed with outcome "bad"' }],
    });
    expect(run.refuse({ type: 'start-step', step: 'last' })).toBe('the run has ended (failed)');
  });

  it('end: the run completes now; running steps stop and steps not started are skipped', () => {
    const run = started();
    const effects = run.send({ type: 'complete-step', step: 'fast', outcome: 'stop' });
    expect(run.state.status).toBe('completed');
    expect(run.statuses()).toEqual({ a: 'completed', fast: 'completed', slow: 'canceled', last: 'skipped' });
    expect(effectTypes(effects)).toContain('stop-agent:slow');
  });

  it('retry: a new attempt within retries; past them the step fails', () => {
    const run = started();
    const effects = run.send({ type: 'complete-step', step: 'fast', outcome: 'again' });
    expect(ready(effects)).toEqual(['fast']);
    expect(run.step('fast')).toMatchObject({ status: 'ready', retriesUsed: 1 });
    run.send({ type: 'start-step', step: 'fast' });
    run.send({ type: 'report', step: 'fast', outcome: 'again' });
    run.send({ type: 'complete-step', step: 'fast', outcome: 'again' });
    expect(run.status('fast')).toBe('failed');
    expect(run.outcomes('fast')).toEqual(['again', 'again']);
    expect(run.state.status).toBe('failed');
    expect(run.state.reason).toBe('step "fast" failed after outcome "again"; its 1 retry is used up');
  });

  it('lets the manager apply another declared outcome than the one reported', () => {
    const run = started();
    run.send({ type: 'complete-step', step: 'fast', outcome: 'again' });
    expect(run.step('fast').attempts[0]).toMatchObject({ outcome: 'again', reportedOutcome: 'done' });
  });
});

const LOOPS = playbook(`
  plan: { role: planner, prompt: Plan, outputs: { plan: string } }
  build:
    needs: [plan]
    role: implementer
    prompt: "Build (round \${{ loop.count }}): \${{ loop.feedback }}"
    outputs: { branch: string }
  docs: { needs: [plan], role: implementer, prompt: Docs }
  test:
    needs: [build]
    run: npm test
    outcomes:
      pass: next
      fail: { loop: build, max: 2, feedback: "Failing on \${{ steps.build.outputs.branch }}: \${{ report.summary }}" }
  lint:
    needs: [build]
    run: npm run lint
  ship:
    needs: [test, lint, docs]
    gate:
      title: Ship?
      choices:
        approve: next
        replan: { loop: plan, max: 1, exhausted: end }
`);

describe('loops (SPEC §3.2)', () => {
  function toTest(): Run {
    const run = new Run(LOOPS);
    run.send({ type: 'start' });
    run.pass('plan', 'done', { plan: 'p' });
    run.pass('build', 'done', { branch: 'feat/a' });
    run.send({ type: 'start-step', step: 'lint' }); // running while the loop fires
    run.send({ type: 'start-step', step: 'test' });
    run.send({
      type: 'report',
      step: 'test',
      outcome: 'fail',
      summary: '2 failing',
      outputs: { passed: 3, failed: 2 },
    });
    return run;
  }

  it('resets the target and its region, stops running steps there, keeps their attempts, and hands feedback on', () => {
    const run = toTest();
    const effects = run.send({ type: 'complete-step', step: 'test', outcome: 'fail' });
    expect(run.state.loops).toEqual({ 'test.fail': 1 });
    // The region: build and every step that needs it; plan and docs are outside it.
    expect(run.statuses()).toMatchObject({
      plan: 'completed',
      build: 'ready',
      test: 'pending',
      lint: 'pending',
      ship: 'pending',
    });
    expect(effects).toContainEqual({
      type: 'stop-agent',
      step: 'lint',
      attempt: 1,
      reason: 'loop test.fail',
    });
    expect(run.step('lint').attempts).toMatchObject([{ attempt: 1, ended: 'stopped' }]);
    expect(run.step('test').attempts).toMatchObject([{ attempt: 1, outcome: 'fail', summary: '2 failing' }]);
    expect(run.step('build')).toMatchObject({
      outputs: null,
      loop: { count: 1, feedback: 'Failing on feat/a: 2 failing', counter: 'test.fail' },
    });
    expect(ready(effects)).toEqual(['build']);
    const [agent] = run.send({ type: 'start-step', step: 'build' });
    expect(agent).toMatchObject({
      attempt: 2,
      feedback: 'Failing on feat/a: 2 failing',
      loopCount: 1,
      prompt: 'Build (round 1): Failing on feat/a: 2 failing',
    });
    expect(run.step('build').attempts[1]).toMatchObject({
      feedback: 'Failing on feat/a: 2 failing',
      loopCount: 1,
    });
  });

  it('applies exhausted (default fail) past max', () => {
    const run = toTest();
    run.send({ type: 'complete-step', step: 'test', outcome: 'fail' });
    for (let round = 2; round <= 3; round++) {
      run.pass('build', 'done', { branch: 'feat/a' });
      run.pass('test', 'fail');
    }
    expect(run.state.loops['test.fail']).toBe(2);
    expect(run.status('test')).toBe('failed');
    expect(run.state.status).toBe('failed');
    expect(run.state.reason).toBe('step "test" failed: loop test.fail is exhausted after 2 loops');
    expect(run.outcomes('test')).toEqual(['fail', 'fail', 'fail']);
  });

  it('applies exhausted: end past max: the run completes now', () => {
    const run = toTest();
    run.send({ type: 'complete-step', step: 'test', outcome: 'pass' });
    run.send({ type: 'report', step: 'lint', outcome: 'pass' }); // lint was already running
    run.send({ type: 'complete-step', step: 'lint', outcome: 'pass' });
    run.pass('docs');
    run.decide('ship', 'replan');
    expect(run.state.loops).toEqual({ 'ship.replan': 1 });
    expect(run.status('plan')).toBe('ready');
    expect(run.statuses()).toMatchObject({ build: 'pending', docs: 'pending', ship: 'pending' });
    for (const step of ['plan', 'build', 'test', 'lint', 'docs']) run.pass(step);
    run.decide('ship', 'replan');
    expect(run.state.status).toBe('completed');
    expect(run.outcomes('ship')).toEqual(['replan', 'replan']);
  });

  it('sets back to 0 the counters of loops whose target is a strict descendant of the firing loop’s target', () => {
    const run = toTest();
    run.send({ type: 'complete-step', step: 'test', outcome: 'fail' });
    run.pass('build');
    run.pass('test', 'pass');
    run.pass('lint', 'pass');
    run.pass('docs');
    expect(run.state.loops).toEqual({ 'test.fail': 1 });
    run.decide('ship', 'replan');
    // test.fail targets build, a strict descendant of plan: it starts over.
    expect(run.state.loops).toEqual({ 'test.fail': 0, 'ship.replan': 1 });
    run.pass('plan');
    run.pass('build');
    run.pass('test', 'fail');
    run.pass('build');
    run.pass('test', 'fail');
    expect(run.state.loops['test.fail']).toBe(2);
    expect(run.state.status).toBe('running');
  });

  it('does not reset the counters of loops aimed at the same target', () => {
    const ir = playbook(`
  work: { role: implementer, prompt: W }
  check:
    needs: [work]
    run: npm test
    outcomes: { pass: next, fail: { loop: work, max: 3 } }
  review:
    needs: [check]
    role: reviewer
    prompt: R
    outcomes: { ok: next, redo: { loop: work, max: 3 } }
`);
    const run = new Run(ir);
    run.send({ type: 'start' });
    run.pass('work');
    run.pass('check', 'fail');
    run.pass('work');
    run.pass('check', 'pass');
    run.pass('review', 'redo');
    expect(run.state.loops).toEqual({ 'check.fail': 1, 'review.redo': 1 });
  });

  it('loops a gate back to itself; loop.count reads in its title', () => {
    const ir = playbook(`
  announce:
    gate:
      title: "Held \${{ loop.count }} times: \${{ loop.feedback }}"
      choices:
        now: next
        later: { loop: announce, max: 2, exhausted: end, feedback: "\${{ gate.comment }}" }
`);
    const run = new Run(ir);
    run.send({ type: 'start' });
    const [gate] = run.send({ type: 'request-gate', step: 'announce' });
    expect(gate).toMatchObject({ title: 'Held 0 times: ' });
    run.send({ type: 'gate-decided', step: 'announce', choice: 'later', comment: 'after the launch' });
    expect(run.status('announce')).toBe('ready');
    const [again] = run.send({ type: 'request-gate', step: 'announce' });
    expect(again).toMatchObject({ attempt: 2, title: 'Held 1 times: after the launch' });
  });
});
