import { describe, expect, it } from 'vitest';
import { createRun } from '../../src/core/create-run.js';
import { coerceInput, prepareInputs } from '../../src/core/inputs.js';
import { vecToArray } from '../../src/core/pvec.js';
import { MASK } from '../../src/core/state.js';
import { Run, compileFile, playbook } from '../helpers.js';

const IR = playbook(`
  plan:
    role: planner
    prompt: Plan
    outputs: { plan: string, files: list<string>, risk: "enum(low, high)" }
  review:
    needs: [plan]
    role: reviewer
    prompt: Review
    outcomes: { approved: next, changes_requested: fail, blocked: fail }
`);

describe('refusals: errors with clear messages, never exceptions', () => {
  it('refuses to complete a step that has not reported', () => {
    const run = new Run(IR);
    run.send({ type: 'start' });
    expect(run.refuse({ type: 'complete-step', step: 'plan', outcome: 'done' })).toBe(
      'step "plan" has not reported (it is ready); a step completes after its report',
    );
    run.send({ type: 'start-step', step: 'plan' });
    expect(run.refuse({ type: 'complete-step', step: 'plan', outcome: 'done' })).toBe(
      'step "plan" has not reported (it is running); a step completes after its report',
    );
  });

  it('refuses an outcome the step does not declare, listing the allowed ones', () => {
    const run = new Run(IR);
    run.send({ type: 'start' });
    run.pass('plan', 'done', { plan: 'p', files: [], risk: 'low' });
    run.send({ type: 'start-step', step: 'review' });
    expect(run.refuse({ type: 'report', step: 'review', outcome: 'ok' })).toBe(
      'step "review" has no outcome "ok"; its outcomes are approved, changes_requested, blocked',
    );
    run.send({ type: 'report', step: 'review', outcome: 'approved' });
    expect(run.refuse({ type: 'complete-step', step: 'review', outcome: 'done' })).toBe(
      'step "review" has no outcome "done"; its outcomes are approved, changes_requested, blocked',
    );
    expect(run.refuse({ type: 'report', step: 'review', outcome: 'approved' })).toBe(
      'step "review" has already reported attempt 1; it waits for complete-step',
    );
  });

  it('refuses report outputs that do not fit the step’s output schema', () => {
    const run = new Run(IR);
    run.send({ type: 'start' });
    run.send({ type: 'start-step', step: 'plan' });
    const report = (outputs: Record<string, unknown>) =>
      run.refuse({ type: 'report', step: 'plan', outcome: 'done', outputs });
    expect(report({ plan: 'p', files: 'a.ts' })).toBe(
      'the report of step "plan" does not fit its outputs: output "files" must be array',
    );
    expect(report({ plan: 'p', risk: 'medium' })).toBe(
      'the report of step "plan" does not fit its outputs: output "risk" must be one of low, high',
    );
    expect(report({ plan: 'p', file: [] })).toBe(
      'the report of step "plan" does not fit its outputs: unknown output "file"; did you mean "files"? (step "plan" declares plan, files, risk)',
    );
    expect(report({ plan: 1, files: [2] })).toBe(
      'the report of step "plan" does not fit its outputs: output "plan" must be string; output "files" at /0 must be string',
    );
  });

  it('refuses a report for another attempt than the current one, and from a step that is not running', () => {
    const run = new Run(IR);
    run.send({ type: 'start' });
    expect(run.refuse({ type: 'report', step: 'plan', outcome: 'done' })).toBe(
      'step "plan" is not running (it is ready)',
    );
    run.send({ type: 'start-step', step: 'plan' });
    expect(run.refuse({ type: 'report', step: 'plan', attempt: 2, outcome: 'done' })).toBe(
      'step "plan": the report is for attempt 2, but the current attempt is 1',
    );
  });

  it('refuses an unknown event type instead of throwing', () => {
    const run = new Run(IR);
    expect(run.refuse({ type: 'explode' } as never)).toBe('unknown event "explode"');
  });
});

describe('inputs', () => {
  const pr = compileFile('playbooks/pr.yml');

  it('applies defaults and names the input and why when one does not fit', () => {
    expect(prepareInputs(pr, { task: 't' })).toEqual({
      ok: true,
      inputs: { task: 't', strict: false, reviewers: 1, target: 'main' },
    });
    expect(prepareInputs(pr, {})).toEqual({ ok: false, errors: ['input "task" is required'] });
    // A required string of spaces alone is no value (issue 24); an optional one may be blank.
    expect(prepareInputs(pr, { task: ' \n\t ' })).toEqual({
      ok: false,
      errors: ['input "task" is required and holds only spaces'],
    });
    expect(prepareInputs(pr, { task: ' t ' })).toMatchObject({ ok: true });
    expect(prepareInputs(pr, { task: 't', reviewers: 5 })).toEqual({
      ok: false,
      errors: ['input "reviewers" must be <= 3'],
    });
    expect(prepareInputs(pr, { task: 't', target: 'dev' })).toEqual({
      ok: false,
      errors: ['input "target" must be one of main, develop'],
    });
    expect(prepareInputs(pr, { task: 't', strct: true })).toEqual({
      ok: false,
      errors: [
        'unknown input "strct"; did you mean "strict"? (the playbook declares task, strict, reviewers, target, api_key)',
      ],
    });
  });

  it('reads command-line text as the input’s type wants it', () => {
    expect(coerceInput(pr, 'reviewers', '2')).toBe(2);
    expect(coerceInput(pr, 'strict', 'true')).toBe(true);
    expect(coerceInput(pr, 'task', '42')).toBe('42');
    expect(coerceInput(pr, 'reviewers', 'two')).toBe('two');
  });
});

describe('secrets', () => {
  const pr = compileFile('playbooks/pr.yml');
  const SECRET = 'sk-live-0123456789';

  it('are masked in the run state and reach only the check step’s env', () => {
    const run = new Run(pr, { task: 'x', api_key: SECRET });
    expect(run.state.inputs.api_key).toBe(MASK);
    expect(run.state.secretInputs).toEqual(['api_key']);
    run.send({ type: 'start' });
    run.pass('plan', 'done', { plan: 'p', files: [] });
    run.pass('implement', 'done', { branch: 'b' });
    const [check] = run.send({ type: 'start-step', step: 'qa' });
    expect(check).toEqual({
      type: 'start-check',
      step: 'qa',
      attempt: 1,
      commands: ['npm run lint', 'npm test'],
      env: { API_KEY: SECRET },
      cwd: null,
      timeoutMs: 3_600_000,
    });
    // A check that echoes the secret into its summary: scrubbed before it enters the state.
    run.send({ type: 'report', step: 'qa', outcome: 'fail', summary: `auth failed with ${SECRET}` });
    expect(run.step('qa').attempts[0]!.summary).toBe(`auth failed with ${MASK}`);
    run.send({ type: 'complete-step', step: 'qa', outcome: 'fail' });
    expect(run.step('implement').loop!.feedback).toBe(`Tests failed: auth failed with ${MASK}`);
    expect(JSON.stringify({ ...run.state, history: vecToArray(run.state.history) })).not.toContain(SECRET);
  });

  it('are masked by createRun even when given to it directly', () => {
    const state = createRun(pr, { id: 'r', inputs: { task: 'x', api_key: SECRET }, now: 0 });
    expect(JSON.stringify(state)).not.toContain(SECRET);
  });
});
