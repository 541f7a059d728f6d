import { describe, expect, it } from 'vitest';
import { prepareRenameAt, renameAt } from '../../../src/service/features/rename.js';
import { BASE, analyze, analyzeAt, applyEdits, slice } from '../../support/cursor.js';

function codes(text: string): string[] {
  return analyze(text).diagnostics.map((d) => `${d.code} ${d.message}`);
}

/** Renames at the cursor; checks every edit replaced exactly the old name; returns the new text. */
function rename(sample: string, newName: string): string {
  const { analysis, offset } = analyzeAt(sample);
  const result = renameAt(analysis, offset, newName);
  if ('error' in result) throw new Error(result.error);
  const prepared = prepareRenameAt(analysis, offset);
  if (!prepared || 'error' in prepared) throw new Error('prepareRename refused');
  for (const edit of result.edits) expect(slice(analysis.text, edit.range)).toBe(prepared.placeholder);
  return applyEdits(analysis.text, result.edits);
}

function refusal(sample: string, newName: string): string {
  const { analysis, offset } = analyzeAt(sample);
  const result = renameAt(analysis, offset, newName);
  return 'error' in result ? result.error : 'renamed';
}

const RICH = `version: 1
title: Rich
inputs:
  topic: { type: string }
steps:
  "plan":
    role: planner
    prompt: |
      Plan \${{ inputs.topic }}
    outputs:
      notes: string
  build:
    needs:
      - plan
    role: implementer
    prompt: >
      Build from
      \${{ steps.plan.outputs.notes }}
      and \${{ steps['plan'].outputs['notes'] }}
    outcomes:
      done: next
      redo: { loop: plan, max: 2 }
  check:
    needs: plan
    run: "echo \\u00e9 \${{ steps.plan.outputs.notes }}"
  ship:
    needs: [build, check]
    gate:
      title: Ship \${{ inputs.topic }}?
      summary: "\${{ steps.build.outcome == 'redo' }}"
      choices:
        approve: next
        revise: { then: { loop: build, feedback: "\${{ gate.choice == 'revise' }}" } }
outputs:
  result: \${{ steps.plan.outputs.notes }}
`;

describe('rename', () => {
  it('renames a step everywhere: quoted key, block and scalar needs, expressions in every scalar style, loop targets', () => {
    const before = codes(RICH);
    const renamed = rename(
      RICH.replace('  build:\n    needs:\n      - plan', '  build:\n    needs:\n      - pl<|>an'),
      'design',
    );
    expect(renamed).not.toMatch(/\bplan\b(?!ner)/);
    expect(renamed).toContain('  "design":');
    expect(renamed).toContain("steps['design'].outputs['notes']");
    expect(renamed).toContain('redo: { loop: design, max: 2 }');
    expect(renamed).toContain('needs: design');
    expect(codes(renamed)).toEqual(before);
  });

  it('renames an input and an output, and leaves everything else alone', () => {
    const input = rename(RICH.replace('  topic:', '  top<|>ic:'), 'subject');
    expect(input.match(/subject/g)).toHaveLength(3);
    expect(input.replaceAll('subject', 'topic')).toBe(RICH);
    const output = rename(RICH.replace('      notes: string', '      no<|>tes: string'), 'digest');
    expect(output.match(/digest/g)).toHaveLength(5);
    expect(output.replaceAll('digest', 'notes')).toBe(RICH);
    expect(codes(output)).toEqual(codes(RICH));
  });

  it("renames an output read as report.outputs in its own step's transitions", () => {
    const text = `version: 1
title: R
steps:
  review:
    role: reviewer
    prompt: Review.
    outputs:
      verdict: string
    outcomes:
      done: next
      again: { loop: review, feedback: "\${{ report.outputs.verdict }} \${{ report.outputs['verdict'] }}" }
outputs:
  v: \${{ steps.review.outputs.verdict }}
`;
    const renamed = rename(text.replace('      verdict: string', '      ver<|>dict: string'), 'finding');
    expect(renamed).toBe(text.replaceAll('verdict', 'finding'));
    expect(codes(renamed)).toEqual(codes(text));
  });

  it('renames an outcome with the strings compared to it, and a gate choice with gate.choice', () => {
    const outcome = rename(RICH.replace('      redo: {', '      re<|>do: {'), 'again');
    expect(outcome).toContain("steps.build.outcome == 'again'");
    expect(outcome).toContain('      again: {');
    expect(codes(outcome)).toEqual(codes(RICH));
    const choice = rename(RICH.replace("gate.choice == 'revise'", "gate.choice == 'rev<|>ise'"), 'rework');
    expect(choice).toContain('        rework: { then:');
    expect(choice).toContain("gate.choice == 'rework'");
  });

  it('renames a custom role', () => {
    const renamed = rename(BASE.replace('role: sec', 'role: s<|>ec'), 'security');
    expect(renamed).toContain('  security:\n    base: reviewer');
    expect(renamed).toContain('role: security');
    expect(codes(renamed)).toEqual(codes(BASE));
  });

  it('refuses invalid and taken names', () => {
    const at = BASE.replace('  build:', '  bu<|>ild:');
    expect(refusal(at, 'Build')).toMatch(/not a valid step name/);
    expect(refusal(at, '2x')).toMatch(/not a valid step name/);
    expect(refusal(at, 'a b')).toMatch(/not a valid step name/);
    expect(refusal(at, 'plan')).toBe('cannot rename to "plan": a step "plan" already exists');
    expect(refusal(BASE.replace('  task:', '  ta<|>sk:'), 'strict')).toMatch(
      /an input "strict" already exists/,
    );
    expect(refusal(BASE.replace('role: sec', 'role: s<|>ec'), 'reviewer')).toMatch(/fixed table/);
  });

  it('refuses names with a fixed meaning', () => {
    expect(refusal(BASE.replace('role: planner', 'role: plan<|>ner'), 'thinker')).toMatch(/fixed table/);
    const implicit = `${BASE}outputs:\n  r: \${{ steps.plan.outcome == 'do<|>ne' }}\n`;
    expect(refusal(implicit, 'finished')).toMatch(/default outcome/);
    const check = BASE.replace(
      '    run: npm test\n',
      '    run: npm test\n    outcomes:\n      pa<|>ss: next\n',
    );
    expect(refusal(check, 'ok')).toMatch(/check step's outcomes/);
    const prepared = analyzeAt(BASE.replace('role: planner', 'role: plan<|>ner'));
    expect(prepareRenameAt(prepared.analysis, prepared.offset)).toEqual({
      error: expect.stringMatching(/fixed table/),
    });
  });

  it('prepares a rename on the name only, and nowhere else', () => {
    const { analysis, offset } = analyzeAt(RICH.replace('  "plan":', '  "pl<|>an":'));
    const prepared = prepareRenameAt(analysis, offset);
    expect(prepared && 'range' in prepared && slice(analysis.text, prepared.range)).toBe('plan');
    const prose = analyzeAt(BASE.replace('Plan ${{', 'Pl<|>an ${{'));
    expect(prepareRenameAt(prose.analysis, prose.offset)).toBeUndefined();
    expect(renameAt(prose.analysis, prose.offset, 'x')).toEqual({ error: 'nothing to rename here' });
  });

  it('gives no edits when the name stays the same', () => {
    const { analysis, offset } = analyzeAt(BASE.replace('  qa:', '  q<|>a:'));
    expect(renameAt(analysis, offset, 'qa')).toEqual({ edits: [] });
  });
});
