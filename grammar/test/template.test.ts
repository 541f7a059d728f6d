import { describe, expect, it } from 'vitest';
import { isSingleExpression, parseTemplate } from '../src/index.js';
import type { Template, TemplatePart } from '../src/index.js';
import { at, show } from './helpers.js';

function ok(text: string): Template {
  const result = parseTemplate(text);
  expect(result.errors).toEqual([]);
  return result.value!;
}

/** Parts as readable strings: text parts quoted, expression parts as `{tree}`. */
function parts(template: Template): string[] {
  return template.parts.map((part) =>
    part.kind === 'text' ? JSON.stringify(part.value) : `{${show(part.expr)}}`,
  );
}

function expressionParts(template: Template): Extract<TemplatePart, { kind: 'expression' }>[] {
  return template.parts.filter((part) => part.kind === 'expression');
}

describe('parseTemplate', () => {
  it('returns plain text as one text part', () => {
    expect(ok('Just text').parts).toEqual([{ kind: 'text', value: 'Just text', span: { start: 0, end: 9 } }]);
    expect(ok('').parts).toEqual([]);
    expect(ok('a $ b $$ c {{ d }} $x').parts).toHaveLength(1);
  });

  it('splits text and expressions with exact spans', () => {
    const text = 'Plan this change: ${{ inputs.task }}\nTarget: ${{inputs.target}}.';
    const template = ok(text);
    expect(parts(template)).toEqual([
      '"Plan this change: "',
      '{inputs.task}',
      '"\\nTarget: "',
      '{inputs.target}',
      '"."',
    ]);
    for (const part of template.parts) {
      if (part.kind === 'text') expect(at(text, part.span)).toBe(part.value);
    }
    const [first, second] = expressionParts(template);
    expect(at(text, first!.span)).toBe('${{ inputs.task }}');
    expect(at(text, first!.innerSpan)).toBe(' inputs.task ');
    expect(at(text, first!.expr!.span)).toBe('inputs.task');
    expect(at(text, second!.span)).toBe('${{inputs.target}}');
    expect(at(text, second!.innerSpan)).toBe('inputs.target');
  });

  it('gives spans relative to the whole template inside the expression', () => {
    const text = "Review ${{ format('{0}/{1}', steps.a.outputs.x, run.id) }} now";
    const [part] = expressionParts(ok(text));
    const expr = part!.expr!;
    if (expr.kind !== 'call') throw new Error('call expected');
    expect(at(text, expr.calleeSpan)).toBe('format');
    expect(expr.args.map((arg) => at(text, arg.span))).toEqual(["'{0}/{1}'", 'steps.a.outputs.x', 'run.id']);
  });

  it('handles adjacent expressions', () => {
    const text = '${{ a }}${{ b }}';
    expect(parts(ok(text))).toEqual(['{a}', '{b}']);
    expect(parts(ok('x${{a}}${{b}}y'))).toEqual(['"x"', '{a}', '{b}', '"y"']);
  });

  it('writes $${{ as a literal ${{, merged with the text around it', () => {
    const text = 'Write $${{ inputs.x }} to get ${{ inputs.x }}';
    const template = ok(text);
    expect(parts(template)).toEqual(['"Write ${{ inputs.x }} to get "', '{inputs.x}']);
    expect(template.parts[0]!.span).toEqual({ start: 0, end: text.indexOf('${{ inputs.x }}', 10) });
    expect(at(text, template.parts[0]!.span)).toBe('Write $${{ inputs.x }} to get ');
    const only = ok('$${{');
    expect(only.parts).toEqual([{ kind: 'text', value: '${{', span: { start: 0, end: 4 } }]);
    expect(parts(ok('$${{$${{'))).toEqual(['"${{${{"']);
    expect(parts(ok('$$${{ a }}'))).toEqual(['"$${{ a }}"']);
  });

  it('does not close an expression at a "}}" inside a string literal', () => {
    const text = '${{ format(\'}}{0}\', x) }} and ${{ "}}" }}';
    const template = ok(text);
    expect(parts(template)).toEqual(['{format("}}{0}", x)}', '" and "', '{"}}"}']);
    expect(at(text, template.parts[0]!.span)).toBe("${{ format('}}{0}', x) }}");
    expect(parts(ok("${{ 'it''s }}' }}"))).toEqual(['{"it\'s }}"}']);
  });

  it('lets "}" and "}}" stand in text', () => {
    expect(parts(ok('{ } }} ${{ a }} }}'))).toEqual(['"{ } }} "', '{a}', '" }}"']);
  });

  it('reports an unterminated ${{ as exactly one PB406 on the three characters ${{', () => {
    for (const text of ['x ${{ a', '${{', 'a ${{ b }} c ${{ d', '${{ a ${{ b', "${{ 'a' }", '${{ a } }']) {
      const result = parseTemplate(text);
      expect(result.errors).toHaveLength(1);
      const error = result.errors[0]!;
      expect(error.code).toBe('PB406');
      expect(error.message).toBe('unterminated "${{": expected "}}" to close it');
      expect(at(text, error.span)).toBe('${{');
      expect(result.value).toBeDefined();
    }
  });

  it('keeps what came before an unterminated ${{ and marks the rest as an unparsed expression', () => {
    const text = 'a ${{ b }} c ${{ d';
    const result = parseTemplate(text);
    expect(parts(result.value!)).toEqual(['"a "', '{b}', '" c "', '{<none>}']);
    const last = result.value!.parts[3]!;
    expect(last).toEqual({
      kind: 'expression',
      expr: undefined,
      span: { start: 13, end: text.length },
      innerSpan: { start: 16, end: text.length },
    });
  });

  it('reports an unterminated string inside an expression once (PB400), not as PB406', () => {
    const text = "${{ 'abc }} tail";
    const result = parseTemplate(text);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.code).toBe('PB400');
    expect(at(text, result.errors[0]!.span)).toBe("'abc ");
    expect(parts(result.value!)).toEqual(['{"abc "}', '" tail"']);
    const quoteOnly = parseTemplate("${{ '}}");
    expect(quoteOnly.errors.map((error) => error.code)).toEqual(['PB400']);
  });

  it('passes expression errors through with template-relative spans', () => {
    const text = 'Hi ${{ a == }} and ${{ (b }} and ${{ }}';
    const result = parseTemplate(text);
    expect(result.errors.map((error) => error.code)).toEqual(['PB400', 'PB400', 'PB400']);
    expect(result.errors[0]!.message).toBe('expected a value after "==" but found the end of the expression');
    expect(result.errors[0]!.span.start).toBe(text.indexOf('==') + 2);
    expect(result.errors[1]!.message).toMatch(/^expected "\)" to close "\("/);
    expect(result.errors[2]!.message).toBe('empty expression');
    expect(at(text, result.errors[2]!.span)).toBe(' ');
    expect(parts(result.value!)).toEqual([
      '"Hi "',
      '{(a == <error>)}',
      '" and "',
      '{b}',
      '" and "',
      '{<none>}',
    ]);
  });

  it('handles multi-line block text', () => {
    const text = 'Implement this plan:\n${{ steps.plan.outputs.plan }}\n';
    expect(parts(ok(text))).toEqual(['"Implement this plan:\\n"', '{steps.plan.outputs.plan}', '"\\n"']);
  });
});

describe('isSingleExpression', () => {
  it('is true only for exactly one expression and no text', () => {
    expect(isSingleExpression(ok('${{ steps.implement.outputs.branch }}'))).toBe(true);
    expect(isSingleExpression(ok('${{a}}'))).toBe(true);
    expect(isSingleExpression(ok(' ${{ a }}'))).toBe(false);
    expect(isSingleExpression(ok('${{ a }} '))).toBe(false);
    expect(isSingleExpression(ok('${{ a }}${{ b }}'))).toBe(false);
    expect(isSingleExpression(ok('x'))).toBe(false);
    expect(isSingleExpression(ok(''))).toBe(false);
    expect(isSingleExpression(ok('$${{ a }}'))).toBe(false);
  });
});
