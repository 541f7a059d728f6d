import { describe, expect, it } from 'vitest';
import { hoverAt } from '../../../src/service/features/hover.js';
import { BASE, analyzeAt, slice } from '../../support/cursor.js';

function hover(sample: string): { contents: string; covered: string } | undefined {
  const { analysis, offset } = analyzeAt(sample);
  const result = hoverAt(analysis, offset);
  return result && { contents: result.contents, covered: slice(analysis.text, result.range) };
}

describe('hover inside expressions', () => {
  it('shows the type of an input and where it is declared', () => {
    const result = hover(BASE.replace('Plan ${{ inputs.task }}', 'Plan ${{ inputs.ta<|>sk }}'))!;
    expect(result.covered).toBe('task');
    expect(result.contents).toContain('inputs.task: string');
    expect(result.contents).toContain('What to build');
    expect(result.contents).toContain('Declared on line 4.');
  });

  it("shows a step's output type inside a block scalar", () => {
    const result = hover(BASE.replace('steps.plan.outputs.plan }}', 'steps.plan.outputs.pl<|>an }}'))!;
    expect(result.covered).toBe('plan');
    expect(result.contents).toContain('steps.plan.outputs.plan: string');
    expect(result.contents).toContain('Output of step `plan`');
  });

  it('describes the step of steps.S, with its kind, role, needs and outputs', () => {
    const result = hover(BASE.replace('steps.plan.outputs.plan }}', 'steps.pl<|>an.outputs.plan }}'))!;
    expect(result.covered).toBe('plan');
    expect(result.contents).toContain('agent step');
    expect(result.contents).toContain('planner');
  });

  it('describes context roots and fields', () => {
    expect(hover(BASE.replace('"${{ report.summary }}"', '"${{ rep<|>ort.summary }}"'))!.contents).toContain(
      "The current step's report",
    );
    const summary = hover(BASE.replace('"${{ report.summary }}"', '"${{ report.sum<|>mary }}"'))!;
    expect(summary.covered).toBe('summary');
    expect(summary.contents).toContain('report.summary: string');
  });

  it('shows a function signature', () => {
    const result = hover(BASE.replace('Plan ${{ inputs.task }}', 'Plan ${{ le<|>n(inputs.task) }}'))!;
    expect(result.covered).toBe('len');
    expect(result.contents).toContain('len(value: string | list): integer');
  });

  it('describes the outcome a compared string names', () => {
    const sample = `${BASE}outputs:\n  result: \${{ steps.review.outcome == 'appr<|>oved' }}\n`;
    const result = hover(sample)!;
    expect(result.covered).toBe("'approved'");
    expect(result.contents).toContain('**outcome** `approved` of agent step `review` → next');
  });

  it('is exact inside a double-quoted scalar with escapes', () => {
    const sample = BASE.replace(
      'prompt: Plan ${{ inputs.task }}',
      'prompt: "\\u00e9\\n${{ inputs.t<|>ask }}"',
    );
    expect(hover(sample)!.covered).toBe('task');
  });
});

describe('hover on the YAML structure', () => {
  it('describes a step where it is needed, and a role where it is used', () => {
    const result = hover(BASE.replace('needs: [plan]', 'needs: [pl<|>an]'))!;
    expect(result.covered).toBe('plan');
    expect(result.contents).toContain('**agent step** `plan`');
    expect(result.contents).toContain('Outputs: `plan: string`, `files: list<string>`');
    const role = hover(BASE.replace('role: sec', 'role: s<|>ec'))!;
    expect(role.contents).toContain('**role** `sec` (base `reviewer`)');
    expect(role.contents).toContain('read-only');
  });

  it('describes a step on its own key, with outcomes and transitions', () => {
    const result = hover(BASE.replace('  review:', '  rev<|>iew:'))!;
    expect(result.covered).toBe('review');
    expect(result.contents).toContain('`changes` → loop to `build`');
  });

  it('describes an input on its key', () => {
    const result = hover(BASE.replace('  strict:', '  str<|>ict:'))!;
    expect(result.contents).toContain('**input** `strict: boolean`');
    expect(result.contents).toContain('default `false`');
  });

  it('gives the schema description of a key', () => {
    const result = hover(BASE.replace('    when: inputs.strict', '    wh<|>en: inputs.strict'))!;
    expect(result.covered).toBe('when');
    expect(result.contents).toContain('A bare expression; false skips the step');
    expect(hover(BASE.replace('title: Test', 'tit<|>le: Test'))!.contents).toContain(
      "The panel card's title.",
    );
  });

  it('says nothing on prose', () => {
    expect(hover(BASE.replace('Plan ${{', 'Pl<|>an ${{'))).toBeUndefined();
  });
});
