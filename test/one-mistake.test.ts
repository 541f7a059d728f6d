/**
 * SPEC §4: "One bad spot gives one diagnostic, not a cascade." Each test makes one mistake in an
 * otherwise valid playbook and expects exactly the diagnostics that mistake deserves, on the exact
 * characters of the mistake.
 */
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '@kairoku-playbook/compiler';

/** Each diagnostic as `CODE covered-text`, in source order. */
function mistakes(text: string): string[] {
  return analyzeFile('mistake.yml', text).diagnostics.map(
    (d) => `${d.code} ${text.slice(d.range.start, d.range.end)}`,
  );
}

const valid = `version: 1
title: Plan and build
inputs:
  task: { type: string }
  strict: { type: boolean, default: false }
steps:
  plan:
    role: planner
    prompt: Plan \${{ inputs.task }}
    outputs:
      plan: string
  build:
    needs: plan
    when: inputs.strict
    role: implementer
    prompt: Build \${{ steps.plan.outputs.plan }}
`;

describe('the valid playbook the mistakes are made in', () => {
  it('has no diagnostics', () => {
    expect(mistakes(valid)).toEqual([]);
  });
});

describe('one mistake, one diagnostic', () => {
  it('any number of missing ")" gives exactly one PB400', () => {
    for (let n = 1; n <= 8; n++) {
      const open = '('.repeat(n);
      const inPrompt = valid.replace('Plan ${{ inputs.task }}', `Plan \${{ ${open}inputs.task }}`);
      expect(
        mistakes(inPrompt).map((m) => m.split(' ')[0]),
        `${n} in a prompt`,
      ).toEqual(['PB400']);
      const inWhen = valid.replace('when: inputs.strict', `when: ${open}inputs.strict`);
      expect(
        mistakes(inWhen).map((m) => m.split(' ')[0]),
        `${n} in a condition`,
      ).toEqual(['PB400']);
      // default(default(…, 'x'), 'x') with the last ")" left out
      let nested = 'inputs.task';
      for (let k = 0; k < n; k++) nested = `default(${nested}, 'x')`;
      const calls = valid.replace('Plan ${{ inputs.task }}', `Plan \${{ ${nested.slice(0, -1)} }}`);
      expect(
        mistakes(calls).map((m) => m.split(' ')[0]),
        `${n} nested calls`,
      ).toEqual(['PB400']);
    }
  });

  it('a step that needs itself is PB208, not also a PB300 cycle', () => {
    expect(mistakes(valid.replace('needs: plan', 'needs: [plan, build]'))).toEqual(['PB208 build']);
  });

  it('an unknown step in an expression is PB203, not also PB204 for its output', () => {
    const text = valid.replace('outputs.plan }}', 'outputs.plan }} and ${{ steps.nope.outputs.plan }}');
    expect(mistakes(text)).toEqual(['PB203 nope']);
  });

  it('an unknown input used in three places gives three PB202, one on each, and nothing else', () => {
    const text = valid
      .replace('Plan ${{ inputs.task }}', 'Plan ${{ inputs.task }} for ${{ inputs.team }}')
      .replace('when: inputs.strict', 'when: inputs.strict && inputs.team == "core"')
      .replace('title: Plan and build', 'title: Plan and build for ${{ inputs.team }}');
    expect(mistakes(text)).toEqual(['PB202 team', 'PB202 team', 'PB202 team']);
  });

  it('a misspelt input is PB202, not also PB900 for the input it meant', () => {
    expect(mistakes(valid.replace('inputs.task', 'inputs.tsk'))).toEqual(['PB202 tsk']);
  });

  it('a misspelt output or step is PB204 or PB203, not also PB901 for the output it meant', () => {
    expect(mistakes(valid.replace('outputs.plan }}', 'outputs.plans }}'))).toEqual(['PB204 plans']);
    expect(mistakes(valid.replace('steps.plan.', 'steps.plna.'))).toEqual(['PB203 plna']);
  });

  it('an input with an invalid type, used in expressions, gives only the PB403', () => {
    const text = valid
      .replace('task: { type: string }', 'task: { type: strnig }')
      .replace('when: inputs.strict', 'when: inputs.strict && len(inputs.task) > 3');
    expect(mistakes(text)).toEqual(['PB403 strnig']);
  });

  it('an unknown key with a wrong-typed value gives only PB102', () => {
    expect(
      mistakes(
        valid.replace('    role: implementer\n', '    role: implementer\n    priority: [1, { a: b }]\n'),
      ),
    ).toEqual(['PB102 priority']);
  });

  it('a misspelt kind key is PB102, not also PB107 "no kind" or PB900 for the input it uses', () => {
    expect(mistakes(valid.replace('prompt: Plan', 'promt: Plan'))).toEqual(['PB102 promt']);
  });

  it('a misspelt role key is PB102, not also PB103 "missing role"', () => {
    expect(mistakes(valid.replace('role: planner', 'rol: planner'))).toEqual(['PB102 rol']);
  });

  it('a misspelt required key is PB102, not also PB103 "missing"', () => {
    expect(mistakes(valid.replace('title:', 'titel:'))).toEqual(['PB102 titel']);
    expect(mistakes(valid.replace('task: { type:', 'task: { typ:'))).toEqual(['PB102 typ']);
  });

  it('an invalid input name is PB105, not also PB900 "never used"', () => {
    expect(mistakes(valid.replace('  strict: {', '  Strict: {').replace('inputs.strict', 'true'))).toEqual([
      'PB105 Strict',
    ]);
  });

  it('a step with two kinds is PB107, not also PB206 or PB204 where other steps read it', () => {
    const text = valid
      .replace(
        '    prompt: Plan ${{ inputs.task }}\n',
        '    prompt: Plan ${{ inputs.task }}\n    run: npm test\n',
      )
      .replace('when: inputs.strict', "when: inputs.strict && steps.plan.outcome == 'done'")
      .replace('outputs.plan }}', 'outputs.plan }} (${{ steps.plan.outputs.passed }} passed)');
    expect(mistakes(text)).toEqual(['PB107 run']);
  });

  it('a step that is not a mapping is PB104, not also PB107 "no kind"', () => {
    expect(mistakes(`${valid}  test: npm test\n`)).toEqual(['PB104 npm test']);
  });

  it('outputs on a check step are PB102, not also PB901 "never referenced"', () => {
    expect(mistakes(`${valid}  test:\n    run: npm test\n    outputs: { coverage: number }\n`)).toEqual([
      'PB102 outputs',
    ]);
  });

  it('an unterminated ${{ is PB406, not also PB900 for the input inside it', () => {
    expect(mistakes(valid.replace('Plan ${{ inputs.task }}', 'Plan ${{ inputs.task'))).toEqual(['PB406 ${{']);
  });

  it('an expression syntax error does not make the outputs it reads look unused (PB901)', () => {
    expect(
      mistakes(
        valid.replace('Build ${{ steps.plan.outputs.plan }}', 'Build ${{ steps.plan.outputs.plan + }}'),
      ),
    ).toHaveLength(1);
  });

  it('a YAML alias to an anchor that does not exist is one PB100', () => {
    expect(mistakes(valid.replace('role: planner', 'role: *planner'))).toEqual(['PB100 *planner']);
  });

  it('a YAML merge key is one PB102, not also "missing role"', () => {
    const text = valid
      .replace('  plan:\n', '  plan: &plan\n')
      .replace(
        '  build:\n    needs: plan\n    when: inputs.strict\n    role: implementer\n',
        '  build:\n    <<: *plan\n    needs: plan\n    when: inputs.strict\n',
      );
    expect(mistakes(text)).toEqual(['PB102 <<']);
  });

  it('a custom role without base is one PB103 on the role (it was PB500); a misspelt or mistyped base is not also PB103', () => {
    const withRole = (role: string) =>
      valid
        .replace('steps:\n', `roles:\n  auditor:\n${role}steps:\n`)
        .replace('role: planner', 'role: auditor');
    expect(mistakes(withRole('    base: planner\n'))).toEqual([]);
    expect(mistakes(withRole('    instructions: Audit.\n'))).toEqual(['PB103 auditor']);
    expect(mistakes(withRole('    bas: planner\n'))).toEqual(['PB102 bas']);
    expect(mistakes(withRole('    base: 3\n'))).toEqual(['PB104 3']);
  });

  it('a when that reads its own output, or a step that is not its ancestor, is PB205, not also PB401 "may be null"', () => {
    const own = valid
      .replace('Build ${{', 'Build and ${{')
      .replace(
        'when: inputs.strict',
        'when: inputs.strict && steps.build.outputs.ok\n    outputs: { ok: boolean }',
      );
    expect(mistakes(own)).toEqual(['PB205 build']);
    const later =
      `${valid}  test:\n    needs: plan\n    when: steps.build.outputs.ok\n    run: npm test\n`.replace(
        'when: inputs.strict',
        'when: inputs.strict\n    outputs: { ok: boolean }',
      );
    expect(mistakes(later)).toEqual(['PB205 build']);
  });

  it('a name repeated in needs is one PB902', () => {
    expect(mistakes(valid.replace('needs: plan', 'needs: [plan, plan]'))).toEqual(['PB902 plan']);
  });
});

describe('a YAML syntax error', () => {
  // What happens: each syntax error is one PB100 on the characters to fix. It damages the entry that
  // holds it (a step, an input, a role, an after-task, a playbook output, else a top-level key) up to
  // the next line where the parser is back on track; nothing else is reported inside the damage. The
  // rest of the file is checked as usual, except the checks that look at the whole file (unknown names,
  // unused inputs and outputs, ancestors, unused suppressions): they wait until the YAML is fixed,
  // since the damaged part may declare or use what they would report.

  it('is one PB100, and later parts are still checked', () => {
    const text = valid
      .replace('Plan ${{ inputs.task }}', 'Plan this: ${{ inputs.task }}')
      .replace('    when: inputs.strict\n', '    when: inputs.strict\n    retries: 20\n');
    expect(mistakes(text)).toEqual(['PB100 :', 'PB604 20']);
  });

  it('is one PB100 even when the parser reports several errors for it', () => {
    const text = valid.replace('    role: planner\n', '    role: planner\n      prompt: x\n');
    expect(mistakes(text)).toEqual(['PB100 prompt']);
  });

  it('damages the rest of the file when the parser does not get back on track (tabs)', () => {
    const text = valid
      .replace('    role: planner\n', '\trole: planner\n')
      .replace('    when: inputs.strict\n', '    when: inputs.strict\n    retries: 20\n');
    expect(mistakes(text)).toEqual(['PB100 \t']);
  });

  it('makes the whole-file checks wait: no "unknown step" for a need while the YAML is broken', () => {
    const text = valid
      .replace('needs: plan', 'needs: plna')
      .replace('Plan ${{ inputs.task }}', 'Plan this: ${{ inputs.task }}');
    expect(mistakes(text)).toEqual(['PB100 :']);
    expect(mistakes(valid.replace('needs: plan', 'needs: plna'))).toEqual(['PB200 plna']);
  });

  it('a misspelt need is PB200, not also PB205 for reading the step it meant', () => {
    expect(mistakes(valid.replace('needs: plan', 'needs: plna'))).toEqual(['PB200 plna']);
  });

  it('points at the quote that is never closed, not at the end of the file', () => {
    expect(
      mistakes(valid.replace('prompt: Plan ${{ inputs.task }}', 'prompt: "Plan ${{ inputs.task }}')),
    ).toEqual(['PB100 "']);
  });

  it('points at the bracket that is never closed', () => {
    expect(mistakes(valid.replace('needs: plan', 'needs: [plan'))).toEqual(['PB100 [']);
  });
});
