import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseYaml, readScenario } from '../../src/backends/scenario.js';
import { generatedOutputs, simString, summarize, vecToArray } from '@kairoku-playbook/machine';
import { runSim } from '../../src/testing/sim-run.js';
import { runPlaybookTest } from '../../src/testing/playbook-test.js';
import { compileFile, playbook, repo } from '../helpers.js';

const pr = compileFile('playbooks/pr.yml');

/** The scenario of SPEC §8, verbatim. */
const SPEC_SCENARIO = `
inputs: { task: add a --json flag }
steps:                     # reports per successive attempt; past the list, the last one repeats
  qa:
    - { outcome: fail, summary: 2 tests failing }
    - { outcome: pass }
  review:
    - { outcome: changes_requested, summary: rename the flag }
    - { outcome: approved, outputs: { verdict: approve } }
  implement:
    - { outcome: done, outputs: { branch: feat/json } }
gates:                     # decisions per successive opening
  ship:
    - { choice: approve }
`;

function scenarioOf(text: string, ir = pr) {
  const parsed = parseYaml(text);
  if ('error' in parsed) throw new Error(parsed.error);
  const { scenario, errors } = readScenario(parsed.value, ir);
  expect(errors).toEqual([]);
  return scenario;
}

function simulate(text: string, inputs: Record<string, unknown> = {}, ir = pr) {
  const result = runSim({
    ir,
    scenario: scenarioOf(text, ir),
    inputs,
    id: 'pr-3a9c1f',
    clock: () => Date.UTC(2025, 0, 1),
  });
  if (!result.ok) throw new Error(result.inputErrors.join('; '));
  expect(result.refusals).toEqual([]);
  return result.state;
}

describe('the sim backend on the pr sample', () => {
  it('gives the final state of SPEC §8 for its scenario (the optional review is skipped by default)', () => {
    const summary = summarize(simulate(SPEC_SCENARIO));
    expect(summary).toMatchObject({
      id: 'pr-3a9c1f',
      playbook: 'pr',
      status: 'completed',
      steps: { qa: { status: 'completed', attempts: [{ outcome: 'fail' }, { outcome: 'pass' }] } },
      loops: { 'qa.fail': 1 },
      outputs: { branch: 'feat/json' },
    });
    expect(summary.steps.review).toEqual({ status: 'skipped', attempts: [] });
    expect(summary.loops).toEqual({ 'qa.fail': 1 });
  });

  it('runs both loops and the gate when the review runs: qa fails once, review asks once, ship approves', () => {
    const state = simulate(SPEC_SCENARIO, { strict: true });
    expect(summarize(state)).toEqual({
      id: 'pr-3a9c1f',
      playbook: 'pr',
      status: 'completed',
      steps: {
        plan: { status: 'completed', attempts: [{ outcome: 'done' }] },
        implement: {
          status: 'completed',
          attempts: [{ outcome: 'done' }, { outcome: 'done' }, { outcome: 'done' }],
        },
        qa: {
          status: 'completed',
          attempts: [{ outcome: 'fail' }, { outcome: 'pass' }, { outcome: 'pass' }],
        },
        review: {
          status: 'completed',
          attempts: [{ outcome: 'changes_requested' }, { outcome: 'approved' }],
        },
        ship: { status: 'completed', attempts: [{ outcome: 'approve' }] },
      },
      after: { summarize: { status: 'completed', attempts: [{ outcome: 'done' }] } },
      loops: { 'qa.fail': 1, 'review.changes_requested': 1 },
      outputs: { branch: 'feat/json' },
    });
    // The feedback of each loop reached implement's next attempt.
    const implement = vecToArray(state.steps)[1]!;
    expect(implement.attempts.map((a) => a.feedback ?? '')).toEqual([
      '',
      'Tests failed: 2 tests failing',
      'rename the flag',
    ]);
    expect(state.branch).toBe('playbooks/pr-3a9c1f');
  });

  it('generates reports for steps the scenario does not name: first outcome, outputs from their types', () => {
    const state = simulate('inputs: { task: x }');
    expect(summarize(state).status).toBe('completed');
    // Strings read as simulated (`sim/STEP-hash`, a hash of the output's path): never as a template
    // left unrendered, and the same on every run.
    expect(vecToArray(state.steps)[0]!.outputs).toEqual({
      plan: 'sim/plan-50b138',
      files: ['sim/plan-f2d4db'],
    });
    expect(state.outputs).toEqual({ branch: 'sim/implement-c71e23' });
    expect(simString('implement.branch')).toBe('sim/implement-c71e23');
    expect(simString('implement.items[0].name')).toMatch(/^sim\/implement-[0-9a-f]{6}$/);
    expect(generatedOutputs(pr.steps[2]!, 'pass')).toEqual({
      passed: 1,
      failed: 0,
      skipped: 0,
      todo: 0,
      exit_code: 0,
    });
    expect(generatedOutputs(pr.steps[2]!, 'fail')).toEqual({
      passed: 0,
      failed: 1,
      skipped: 0,
      todo: 0,
      exit_code: 1,
    });
    expect(generatedOutputs(pr.steps[3]!, 'approved')).toEqual({ verdict: 'approve' });
  });

  it('fails the run when a gate is rejected, and runs the failed after-task', () => {
    const summary = summarize(simulate('inputs: { task: x }\ngates: { ship: { choice: reject } }'));
    expect(summary).toMatchObject({ status: 'failed', reason: 'gate "ship" failed with outcome "reject"' });
    expect(summary.after).toEqual({ summarize: { status: 'completed', attempts: [{ outcome: 'done' }] } });
  });

  it('scripts a silent agent: reminded once, then lost, then failed (no retries)', () => {
    const state = simulate('inputs: { task: x }\nsteps: { plan: { silent: true } }');
    expect(summarize(state)).toMatchObject({
      status: 'failed',
      steps: { plan: { status: 'lost', attempts: [{ outcome: null, ended: 'lost' }] } },
    });
    expect(vecToArray(state.history).map((h) => h.kind)).toContain('reminder');
  });

  it('names what is wrong in a scenario: unknown steps, gates, outcomes, choices and keys', () => {
    const parsed = parseYaml(`
inputs: { task: x }
step: {}
steps:
  qq: [{ outcome: pass }]
  qa: [{ outcome: ok, sumary: x }]
  ship: [{ choice: approve }]
gates:
  ship: [{ choice: yes }]
  qa: [{ choice: approve }]
`);
    expect('value' in parsed).toBe(true);
    const { errors } = readScenario((parsed as { value: unknown }).value, pr);
    // (the shape first, by the rules behind check's PB800, then the names, by those behind PB803–PB806)
    expect(errors).toEqual([
      'unknown key "step"; did you mean "steps"? (expected $schema, inputs, steps, after, gates)',
      'steps.qa[0]: unknown key "sumary"; did you mean "summary"? (expected outcome, summary, outputs, silent)',
      // (not also `steps.ship[0]: unknown key "choice"`: it only follows from the gate scripted under steps)
      'steps.qq: unknown step "qq"; did you mean "qa"?',
      'steps.qa[0]: step "qa" has no outcome "ok"; its outcomes are pass, fail',
      'steps.ship: "ship" is a gate; script its decisions under gates',
      'gates.ship[0]: gate "ship" has no choice "yes"; its choices are approve, reject, revise',
      'gates.qa: step "qa" is not a gate; script its reports under steps',
    ]);
    expect(parseYaml('a: [')).toEqual({
      error: 'line 1, column 4: this "[" is never closed; end the list with "]"',
    });
    expect(parseYaml('a: 1\na: 2')).toEqual({
      error: 'line 2, column 1: duplicate key "a"; the first one is used',
    });
    expect(parseYaml('~')).toEqual({ value: null }); // nothing scripted, as an empty file
  });

  it('reports a scripted decision the core refuses (a required comment left out)', () => {
    const result = runSim({
      ir: pr,
      scenario: scenarioOf('inputs: { task: x }\ngates: { ship: { choice: revise } }'),
      id: 'r',
      clock: () => 0,
    });
    expect(result.ok && result.state.status).toBe('running');
    expect(result.ok && result.refusals).toEqual([
      {
        event: { type: 'gate-decided', step: 'ship', choice: 'revise' },
        error: 'choice "revise" of gate "ship" needs a comment',
        code: 'comment-required',
      },
    ]);
  });
});

describe('the sample playbooks', () => {
  const files = readdirSync(`${repo}playbooks`).filter((f) => /^[^.]+\.ya?ml$/.test(f));
  for (const file of files) {
    it(`${file} runs to its end on generated agents`, () => {
      const ir = compileFile(`playbooks/${file}`);
      const inputs: Record<string, unknown> = {};
      for (const input of ir.inputs) {
        if (!input.required) continue;
        const schema = (ir.inputSchema.properties as Record<string, Record<string, unknown>>)[input.name]!;
        inputs[input.name] = Array.isArray(schema.enum)
          ? schema.enum[0]
          : schema.type === 'string'
            ? 'x'
            : schema.type === 'boolean'
              ? true
              : schema.type === 'array'
                ? []
                : 1;
      }
      const result = runSim({ ir, scenario: scenarioOf('{}', ir), inputs, id: 'sample', clock: () => 0 });
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.refusals).toEqual([]);
      expect(['completed', 'failed']).toContain(result.state.status);
    });
  }
});

describe('playbook tests', () => {
  it('passes playbooks/pr.test.yml', () => {
    const test = parseYaml(readFileSync(`${repo}playbooks/pr.test.yml`, 'utf8'));
    const result = runPlaybookTest(pr, (test as { value: unknown }).value);
    expect(result.errors).toEqual([]);
    expect(result.differences).toEqual([]);
    expect(result.passed).toBe(true);
    expect(result.name).toMatch(/^qa fails once/);
  });

  it('lists every difference between what is expected and what the run did', () => {
    const test = parseYaml(`
inputs: { task: x }
steps: { qa: [{ outcome: fail }, { outcome: pass }] }
expect:
  status: failed
  steps:
    qa: { attempts: [fail, fail] }
    implement: { attempts: 3, status: skipped }
  loops: { qa.fail: 2 }
  outputs: { branch: main }
`);
    const result = runPlaybookTest(pr, (test as { value: unknown }).value);
    expect(result.passed).toBe(false);
    expect(result.differences).toEqual([
      'status: expected failed, got completed',
      'steps.qa.attempts: expected [fail, fail], got [fail, pass]',
      'steps.implement.status: expected skipped, got completed',
      'steps.implement.attempts: expected 3, got 2 [done, done]',
      'loops.qa.fail: expected 2, got 1',
      'outputs.branch: expected "main", got "sim/implement-c71e23"',
    ]);
  });

  it('says what is wrong with the test file itself', () => {
    const result = runPlaybookTest(pr, {
      inputs: { task: 'x' },
      expect: { steps: { qq: { attempts: 1 } }, statu: 'x' },
    });
    expect(result.errors).toEqual([
      'expect: unknown key "statu"; did you mean "status"? (expected status, steps, after, loops, outputs)',
      'expect.steps.qq: unknown step "qq"; did you mean "qa"?',
    ]);
    // (the outcomes of expected attempts and loop counters too, as check's PB803 and PB805 name them)
    const names = runPlaybookTest(pr, {
      inputs: { task: 'x' },
      expect: {
        steps: { qa: { attempts: ['fail', 'pas'] }, ship: { attempts: ['aprove'] } },
        loops: { 'qa.fial': 1, 'qq.fail': 1, 'ship.revise': 1 },
      },
    });
    expect(names.errors).toEqual([
      'expect.steps.qa.attempts[1]: step "qa" has no outcome "pas"; did you mean "pass"?',
      'expect.steps.ship.attempts[0]: gate "ship" has no choice "aprove"; did you mean "approve"?',
      'expect.loops.qa.fial: step "qa" has no outcome "fial"; did you mean "fail"?',
      'expect.loops.qq.fail: unknown step "qq"; did you mean "qa"?',
    ]);
    const inputs = runPlaybookTest(pr, { inputs: { reviewers: 9 }, expect: {} });
    expect(inputs.errors).toEqual(['input "task" is required', 'input "reviewers" must be <= 3']);
  });

  it('runs a playbook built in the test', () => {
    const ir = playbook(
      `\n  only: { role: implementer, prompt: P, outputs: { n: integer } }\n`,
      'outputs:\n  n: ${{ steps.only.outputs.n }}\n',
    );
    const result = runPlaybookTest(ir, {
      steps: { only: { outputs: { n: 7 } } },
      expect: { status: 'completed', outputs: { n: 7 } },
    });
    expect(result.passed).toBe(true);
  });
});
