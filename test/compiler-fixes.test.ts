/**
 * Regression tests for compiler bugs found while writing the fixture suite; each names what was wrong.
 */
import { describe, expect, it } from 'vitest';
import { analyzeFile, compilePlaybook } from '@kairoku-playbook/compiler';

function mistakes(text: string): string[] {
  return analyzeFile('fix.yml', text).diagnostics.map(
    (d) => `${d.code} ${text.slice(d.range.start, d.range.end)}`,
  );
}

describe('YAML anchors and aliases', () => {
  const text = `version: 1
title: Survey twice
inputs:
  repo: { type: string }
  depth: &depth { type: integer, default: 2 }
  budget: *depth
steps:
  survey: &survey
    role: researcher
    prompt: &prompt Survey \${{ inputs.repo }} to depth \${{ inputs.depth }} within \${{ inputs.budget }}
  again: *survey
  review:
    needs: [survey, again]
    role: reviewer
    prompt: *prompt
`;

  it('an aliased step, input and prompt are read as what they name (they were ignored: no kind, no prompt)', () => {
    const { diagnostics, ir } = compilePlaybook('aliases.yml', text);
    expect(diagnostics).toEqual([]);
    const steps = new Map(ir!.steps.map((s) => [s.name, s] as const));
    expect(steps.get('again')?.kind).toBe('agent');
    expect(JSON.stringify(steps.get('again'))).toContain('Survey ');
    expect(JSON.stringify(steps.get('review'))).toContain('Survey ');
  });

  it('an aliased default is the value it names (it was PB404: default {"source":"x"} does not fit)', () => {
    expect(mistakes(text)).toEqual([]);
    const input = compilePlaybook('aliases.yml', text).ir!.inputs;
    expect(JSON.stringify(input)).toContain('"default":2');
  });

  it('a mistake in text shared by aliases is reported once, at the anchor', () => {
    expect(mistakes(text.replace('inputs.repo', 'inputs.rep'))).toEqual(['PB202 rep']);
  });
});

describe('bracket access', () => {
  const text = `version: 1
title: Plan and build
inputs:
  task: { type: string }
steps:
  plan:
    role: planner
    prompt: Plan \${{ inputs['task'] }}
    outputs:
      plan: string
  build:
    needs: plan
    role: implementer
    prompt: Build \${{ steps['plan'].outputs['plan'] }}
`;

  it("x['name'] binds like x.name (inputs and outputs read so were reported unused, PB900/PB901)", () => {
    expect(mistakes(text)).toEqual([]);
  });

  it('an unknown name in brackets is PB202/PB203/PB204 on the name inside the quotes (it was PB209 or nothing)', () => {
    expect(mistakes(text.replace("inputs['task'] }}", "inputs['task'] }} ${{ inputs['tsk'] }}"))).toEqual([
      'PB202 tsk',
    ]);
    expect(mistakes(text.replace("steps['plan'].outputs['plan']", "steps['plan'].outputs['plna']"))).toEqual([
      'PB204 plna',
    ]);
    expect(mistakes(text.replace("steps['plan'].outputs", "steps['plna'].outputs"))).toEqual(['PB203 plna']);
  });
});

describe('messages', () => {
  const valid = `version: 1
title: Fix a bug
inputs:
  task: { type: string }
steps:
  fix:
    role: implementer
    prompt: Fix \${{ inputs.task }}
`;

  it('a wrong scalar type is PB104, not the range code (retries: two was PB604 "out of range")', () => {
    expect(mistakes(valid.replace('role: implementer', 'role: implementer\n    retries: two'))).toEqual([
      'PB104 two',
    ]);
  });

  it('YAML words, not JSON Schema words: "mapping" and "list" (it said "object" and "array")', () => {
    const [d] = analyzeFile('fix.yml', valid.replace('task: { type: string }', 'task: [string]')).diagnostics;
    expect(d!.message).toBe('input "task" must be a mapping, not a list');
  });

  it('an item of an after-task\'s "on" is PB602 like "on" itself (it was PB104)', () => {
    const text = `${valid}after:\n  notes:\n    on: [completed, canceled]\n    run: echo done\n`;
    expect(mistakes(text)).toEqual(['PB602 canceled']);
  });

  it('a number too large for JavaScript is shown as written (1e400 was shown as "null")', () => {
    const [d] = analyzeFile(
      'fix.yml',
      valid.replace('role: implementer', 'role: implementer\n    retries: 1e400'),
    ).diagnostics;
    expect(d!.message).toContain('is 1e400, out of range');
  });

  it('a comparison with a choice a gate does not have says "choice" (it said "outcome")', () => {
    const text = `${valid}  ship:\n    needs: fix\n    gate: { title: Ship? }\n  publish:\n    needs: ship\n    when: steps.ship.outcome == 'aprove'\n    run: npm publish\n`;
    expect(analyzeFile('fix.yml', text).diagnostics.map((d) => d.message)).toEqual([
      'gate "ship" has no choice "aprove"; did you mean "approve"?',
    ]);
  });

  it('PB407 says where the secret would be shown', () => {
    const text = valid.replace('task: { type: string }', 'task: { type: string, secret: true }');
    expect(analyzeFile('fix.yml', text).diagnostics.map((d) => d.message)).toEqual([
      'secret input "task" would be shown in a prompt, which the agent reads; pass it to a check step through env',
    ]);
  });
});

describe('keys that do nothing were silently ignored', () => {
  const base = `version: 1
title: Build and ship
inputs:
  task: { type: string }
steps:
  build:
    role: implementer
    prompt: Build \${{ inputs.task }}
`;

  it('role on a check step, env on an agent step, outcomes on a gate: PB102', () => {
    expect(mistakes(`${base}  test:\n    needs: build\n    run: npm test\n    role: reviewer\n`)).toEqual([
      'PB102 role',
    ]);
    expect(mistakes(base.replace('role: implementer', 'role: implementer\n    env: { CI: "1" }'))).toEqual([
      'PB102 env',
    ]);
    expect(
      mistakes(
        `${base}  ship:\n    needs: build\n    gate: { title: Ship? }\n    outcomes: { approve: end }\n`,
      ),
    ).toEqual(['PB102 outcomes']);
  });

  it('"on" of a manual after-task says which ended runs offer its Start (SPEC §3.3): nothing (it was PB602)', () => {
    expect(mistakes(`${base}after:\n  notes:\n    trigger: manual\n    on: failed\n    run: echo\n`)).toEqual(
      [],
    );
  });

  it('an invalid single "on" value: PB602 (only list items were checked)', () => {
    expect(mistakes(`${base}after:\n  notes:\n    on: cancelled\n    run: echo\n`)).toEqual([
      'PB602 cancelled',
    ]);
  });
});

describe('line endings', () => {
  it('a file with CR line endings (classic Mac) is read like LF, and ranges land on the mistake', () => {
    const text =
      'version: 1\rtitle: T\rinputs:\r  task: { type: string }\rsteps:\r  fix:\r    role: implementer\r    prompt: |\r      Fix ${{ inputs.tsk }}\r';
    expect(mistakes(text)).toEqual(['PB202 tsk']);
  });
});
