import { describe, expect, it } from 'vitest';
import { parseCondition } from '../src/index.js';
import { at, show } from './helpers.js';

describe('parseCondition', () => {
  it('parses a bare expression', () => {
    const text = 'inputs.strict || inputs.reviewers > 1';
    const result = parseCondition(text);
    expect(result.errors).toEqual([]);
    expect(show(result.value)).toBe('(inputs.strict || (inputs.reviewers > 1))');
    expect(at(text, result.value!.span)).toBe(text);
  });

  it('accepts a ${{ }} around the whole condition, with spans relative to the full text', () => {
    for (const text of [
      "${{ steps.review.outcome == 'approved' }}",
      "  ${{steps.review.outcome == 'approved'}}\n",
    ]) {
      const result = parseCondition(text);
      expect(result.errors).toEqual([]);
      expect(show(result.value)).toBe('(steps.review.outcome == "approved")');
      expect(at(text, result.value!.span)).toBe("steps.review.outcome == 'approved'");
    }
  });

  it('reports errors inside a wrapped condition at their place in the full text', () => {
    const text = '${{ a && }}';
    const result = parseCondition(text);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.code).toBe('PB400');
    expect(result.errors[0]!.span.start).toBe(text.indexOf('&&') + 2);
    expect(show(result.value)).toBe('(a && <error>)');
  });

  it('reports an unterminated ${{ once (PB406)', () => {
    const result = parseCondition('${{ a == b');
    expect(result.errors).toEqual([
      { code: 'PB406', message: 'unterminated "${{": expected "}}" to close it', span: { start: 0, end: 3 } },
    ]);
  });

  it('reports an empty condition once', () => {
    expect(parseCondition('').errors.map((error) => error.message)).toEqual(['empty expression']);
    expect(parseCondition('${{ }}').errors.map((error) => error.message)).toEqual(['empty expression']);
  });

  it('reports a ${{ }} around part of the condition once, and still parses it', () => {
    const text = '${{ a }} && ${{ b }}';
    const result = parseCondition(text);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.code).toBe('PB400');
    expect(result.errors[0]!.message).toBe(
      'a condition is a bare expression: "${{ }}" may only wrap the whole of it',
    );
    expect(at(text, result.errors[0]!.span)).toBe('${{');
    expect(show(result.value)).toBe('(a && b)');
    const value = result.value!;
    if (value.kind !== 'binary') throw new Error('binary expected');
    expect(at(text, value.right.span)).toBe('b');
    const mixed = parseCondition('a || ${{ b }}');
    expect(mixed.errors).toHaveLength(1);
    expect(show(mixed.value)).toBe('(a || b)');
  });

  it('reports bare-expression errors like parseExpression', () => {
    const result = parseCondition('(((a');
    expect(result.errors).toHaveLength(1);
    expect(show(result.value)).toBe('a');
  });
});
