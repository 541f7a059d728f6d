import type { IrTemplate } from '@kairoku-playbook/compiler';
import { describe, expect, it } from 'vitest';
import { Lookup, render, renderText } from '../../src/expr/evaluate.js';
import type { Scope } from '../../src/expr/evaluate.js';
import { playbook } from '../helpers.js';

/**
 * Compiles `text` as a step prompt and returns its IR template, so the tests use the real compiler. The step
 * loops back to itself, so that its templates have loop.* (SPEC §3.6).
 */
function template(text: string, outputs = 'files: list<string>'): IrTemplate {
  const ir = playbook(
    `
  plan:
    role: planner
    prompt: P
    outputs: { ${outputs}, note: string? }
  probe:
    needs: [plan]
    role: implementer
    prompt: ${JSON.stringify(text)}
    outcomes: { done: next, again: { loop: probe } }
`,
    'inputs:\n  task: { type: string }\n  n: { type: integer, default: 2 }\n  tags: { type: "list<string>", default: [a, b] }\n',
  );
  return ir.steps[1]!.prompt!;
}

const scope: Scope = {
  inputs: { task: 'add a flag', n: 2, tags: ['a', 'b'] },
  steps: new Lookup((name) =>
    name === 'plan'
      ? {
          outputs: { files: ['x.ts', 'y.ts'], note: null },
          outcome: 'done',
          status: 'completed',
          summary: 'ok',
          attempt: 1,
        }
      : null,
  ),
  run: { id: 'pr-1', playbook: 'pr', branch: 'feat/x', status: 'running' },
  loop: { count: 1, feedback: 'again' },
};

const cases: [string, unknown][] = [
  ['${{ inputs.task }}', 'add a flag'],
  ['${{ inputs.n }}', 2],
  ['${{ inputs.tags }}', ['a', 'b']],
  ['n=${{ inputs.n }}', 'n=2'],
  ["${{ inputs.n > 1 && inputs.task == 'add a flag' }}", true],
  ['${{ !(inputs.n >= 3) || false }}', true],
  ['${{ inputs.n != 2 }}', false],
  ['${{ inputs.n < 2 }}', false],
  ['${{ inputs.n <= 2 }}', true],
  ['${{ inputs.tags[1] }}', 'b'],
  ['${{ inputs.tags[5] }}', null],
  ['${{ steps.plan.outputs.files }}', ['x.ts', 'y.ts']],
  [
    '${{ steps.plan.outcome }}/${{ steps.plan.status }}/${{ steps.plan.summary }}/${{ steps.plan.attempt }}',
    'done/completed/ok/1',
  ],
  ['[${{ steps.plan.outputs.note }}]', '[]'],
  ["${{ default(steps.plan.outputs.note, 'none') }}", 'none'],
  ['${{ run.id }} ${{ run.playbook }} ${{ run.branch }}', 'pr-1 pr feat/x'],
  ['${{ loop.count }}: ${{ loop.feedback }}', '1: again'],
  ["${{ contains(inputs.task, 'flag') }}", true],
  ["${{ contains(inputs.tags, 'c') }}", false],
  ["${{ startsWith(inputs.task, 'add') }} ${{ endsWith(inputs.task, 'x') }}", 'true false'],
  ["${{ join(inputs.tags) }} ${{ join(steps.plan.outputs.files, ' + ') }}", 'a,b x.ts + y.ts'],
  ['${{ len(inputs.task) }} ${{ len(inputs.tags) }}', '10 2'],
  ['${{ toJSON(inputs.tags) }}', '["a","b"]'],
  ["${{ format('{0} of {1} {{ok}}', inputs.n, inputs.task) }}", '2 of add a flag {ok}'],
  ['files: ${{ inputs.tags }}', 'files: ["a","b"]'],
  ['$${{ literal }}', '${{ literal }}'],
  // list literals (docs/reference.md, "List literals")
  ['${{ [] }}', []],
  ["${{ ['a', inputs.task] == null }}", false],
  ["${{ join(default(steps.plan.outputs.files, []), ', ') }}", 'x.ts, y.ts'],
  ["${{ contains(['a', 'b'], inputs.tags[0]) }} ${{ len([1, 2, 3]) }}", 'true 3'],
  ['${{ toJSON([[inputs.task], []]) }}', '[["add a flag"],[]]'],
  ["${{ ['x', 'y'][1] }}", 'y'],
];

describe('expressions and templates (SPEC §3.6)', () => {
  for (const [text, expected] of cases) {
    it(`${text} → ${JSON.stringify(expected)}`, () => {
      expect(render(template(text), scope)).toEqual(expected);
    });
  }

  it('renders any template as text when text is wanted', () => {
    expect(renderText(template('${{ inputs.n }}'), scope)).toBe('2');
    expect(renderText(template('${{ steps.plan.outputs.note }}'), scope)).toBe('');
  });

  it('reads report.* and gate.* where they exist, and nothing from a missing context', () => {
    const ir = playbook(`
  t:
    run: npm test
    outcomes:
      pass: next
      fail: { loop: t, feedback: "\${{ report.outcome }}: \${{ report.summary }} (\${{ report.outputs.failed }} failed)" }
`);
    const feedback = (ir.steps[0]!.outcomes[1]!.transition as { feedback: IrTemplate }).feedback;
    expect(render(feedback, { report: { outcome: 'fail', summary: 'red', outputs: { failed: 2 } } })).toBe(
      'fail: red (2 failed)',
    );
    expect(render(feedback, {})).toBe(':  ( failed)');
  });
});
