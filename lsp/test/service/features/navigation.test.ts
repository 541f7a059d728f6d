import { describe, expect, it } from 'vitest';
import { definitionAt } from '../../../src/service/features/definition.js';
import { highlightsAt } from '../../../src/service/features/document-highlights.js';
import { referencesAt } from '../../../src/service/features/references.js';
import { BASE, analyzeAt, slice } from '../../support/cursor.js';

function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `${before.length}:${before[before.length - 1]!.length + 1}`;
}

describe('go to definition', () => {
  it('goes from needs, loop targets and expressions to the step key', () => {
    for (const sample of [
      BASE.replace('needs: [plan]', 'needs: [pl<|>an]'),
      BASE.replace('steps.plan.outputs.plan }}', 'steps.p<|>lan.outputs.plan }}'),
      BASE.replace('loop: build', 'loop: bu<|>ild'),
    ]) {
      const { analysis, offset } = analyzeAt(sample);
      const definition = definitionAt(analysis, offset)!;
      const target = sample.includes('p<|>lan') || sample.includes('pl<|>an') ? 'plan' : 'build';
      expect(slice(analysis.text, definition.target)).toBe(target);
      expect(analysis.text.slice(definition.target.end, definition.target.end + 1)).toBe(':');
    }
  });

  it('goes to inputs, outputs, roles and declared outcomes', () => {
    const cases: [string, string, string][] = [
      ['Plan ${{ inputs.task }}', 'Plan ${{ inputs.t<|>ask }}', '4:3'],
      ['steps.plan.outputs.plan }}', 'steps.plan.outputs.pl<|>an }}', '14:7'],
      ['role: sec', 'role: s<|>ec', '7:3'],
    ];
    for (const [find, replace, at] of cases) {
      const { analysis, offset } = analyzeAt(BASE.replace(find, replace));
      const definition = definitionAt(analysis, offset)!;
      expect(lineCol(analysis.text, definition.target.start)).toBe(at);
    }
    const sample = `${BASE}outputs:\n  result: \${{ steps.review.outcome == 'chan<|>ges' }}\n`;
    const { analysis, offset } = analyzeAt(sample);
    expect(lineCol(analysis.text, definitionAt(analysis, offset)!.target.start)).toBe('33:7');
  });

  it('has no definition for implicit names', () => {
    const sample = `${BASE}outputs:\n  result: \${{ steps.plan.outcome == 'do<|>ne' }}\n`;
    const { analysis, offset } = analyzeAt(sample);
    expect(definitionAt(analysis, offset)).toBeUndefined();
    const fixed = analyzeAt(BASE.replace('role: planner', 'role: plan<|>ner'));
    expect(definitionAt(fixed.analysis, fixed.offset)).toBeUndefined();
  });
});

describe('find references and highlights', () => {
  it('finds every reference of a step across needs, expressions and loop targets', () => {
    const { analysis, offset } = analyzeAt(BASE.replace('  build:', '  bu<|>ild:'));
    const ranges = referencesAt(analysis, offset, true);
    expect(ranges.map((r) => lineCol(analysis.text, r.start))).toEqual(['16:3', '24:13', '30:30', '33:24']);
    expect(ranges.every((r) => slice(analysis.text, r) === 'build')).toBe(true);
    expect(referencesAt(analysis, offset, false)).toHaveLength(3);
  });

  it('finds the references of an input and of an outcome', () => {
    const input = analyzeAt(BASE.replace('  task:', '  ta<|>sk:'));
    expect(
      referencesAt(input.analysis, input.offset, false).map((r) => slice(input.analysis.text, r)),
    ).toEqual(['task']);
    const sample = `${BASE}outputs:
  a: \${{ steps.review.outcome == 'approved' }}
  b: \${{ steps.review.outcome != "approved" && steps.review.outcome == 'changes' }}
`;
    const outcome = analyzeAt(sample.replace('      approved: next', '      appro<|>ved: next'));
    const refs = referencesAt(outcome.analysis, outcome.offset, false);
    expect(refs.map((r) => slice(outcome.analysis.text, r))).toEqual(['approved', 'approved']);
  });

  it('highlights the declaration as written and the references as read', () => {
    const { analysis, offset } = analyzeAt(BASE.replace('  qa:', '  q<|>a:'));
    expect(
      highlightsAt(analysis, offset).map((h) => [lineCol(analysis.text, h.range.start), h.kind]),
    ).toEqual([
      ['23:3', 'write'],
      ['27:13', 'read'],
    ]);
  });
});
