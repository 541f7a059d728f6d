import { describe, expect, it } from 'vitest';
import { MAX_EXPRESSION_LENGTH, MAX_TREE_HEIGHT, parseExpression } from '../src/index.js';
import type { Expr } from '../src/index.js';
import { at, heightOf, show } from './helpers.js';

function ok(text: string): Expr {
  const result = parseExpression(text);
  expect(result.errors).toEqual([]);
  expect(result.value).toBeDefined();
  return result.value!;
}

function tree(text: string): string {
  return show(ok(text));
}

describe('parseExpression: literals', () => {
  it('parses single-quoted strings with doubled quotes', () => {
    expect(ok("'text'")).toEqual({ kind: 'literal', value: 'text', span: { start: 0, end: 6 } });
    expect(ok("'it''s'")).toMatchObject({ kind: 'literal', value: "it's" });
    expect(ok("''")).toMatchObject({ kind: 'literal', value: '' });
    expect(ok('\'a "b" \\n\'')).toMatchObject({ kind: 'literal', value: 'a "b" \\n' });
  });

  it('parses double-quoted strings with JSON escapes', () => {
    expect(ok('"text"')).toEqual({ kind: 'literal', value: 'text', span: { start: 0, end: 6 } });
    expect(ok('"a\\"b\\\\c\\/d\\n\\t\\r\\b\\f"')).toMatchObject({ value: 'a"b\\c/d\n\t\r\b\f' });
    expect(ok('"\\u00e9\\u0041"')).toMatchObject({ value: 'éA' });
    expect(ok('"it\'s"')).toMatchObject({ value: "it's" });
    expect(ok('""')).toMatchObject({ value: '' });
  });

  it('parses numbers', () => {
    expect(ok('42')).toEqual({ kind: 'literal', value: 42, span: { start: 0, end: 2 } });
    expect(ok('3.25')).toMatchObject({ value: 3.25 });
    expect(ok('-7')).toMatchObject({ value: -7 });
    expect(ok('-0.5')).toMatchObject({ value: -0.5 });
    expect(ok('1e3')).toMatchObject({ value: 1000 });
    expect(ok('2.5E-1')).toMatchObject({ value: 0.25 });
  });

  it('parses true, false and null', () => {
    expect(ok('true')).toEqual({ kind: 'literal', value: true, span: { start: 0, end: 4 } });
    expect(ok('false')).toMatchObject({ kind: 'literal', value: false });
    expect(ok('null')).toMatchObject({ kind: 'literal', value: null });
  });

  it('treats names that merely start with a keyword as identifiers', () => {
    expect(ok('trueish')).toMatchObject({ kind: 'identifier', name: 'trueish' });
    expect(ok('null-check')).toMatchObject({ kind: 'identifier', name: 'null-check' });
    expect(ok('false_')).toMatchObject({ kind: 'identifier', name: 'false_' });
  });
});

describe('parseExpression: names, members, indexes, calls', () => {
  it('allows hyphens inside identifiers (there is no minus operator)', () => {
    expect(ok('security-reviewer')).toEqual({
      kind: 'identifier',
      name: 'security-reviewer',
      span: { start: 0, end: 17 },
    });
    expect(ok('a-b')).toMatchObject({ kind: 'identifier', name: 'a-b' });
    expect(ok('_x9')).toMatchObject({ kind: 'identifier', name: '_x9' });
  });

  it('parses member chains with exact spans', () => {
    const text = 'steps.security-reviewer.outputs.verdict';
    const expr = ok(text);
    expect(show(expr)).toBe(text);
    if (expr.kind !== 'member') throw new Error('member expected');
    expect(at(text, expr.span)).toBe(text);
    expect(at(text, expr.propertySpan)).toBe('verdict');
    expect(at(text, expr.object.span)).toBe('steps.security-reviewer.outputs');
  });

  it('accepts keywords as property names', () => {
    expect(tree('steps.a.outputs.null')).toBe('steps.a.outputs.null');
    expect(tree('x.true.false')).toBe('x.true.false');
  });

  it('parses index access', () => {
    const text = "steps.plan.outputs.files[0]['name']";
    const expr = ok(text);
    expect(show(expr)).toBe('steps.plan.outputs.files[0]["name"]');
    expect(at(text, expr.span)).toBe(text);
    if (expr.kind !== 'index') throw new Error('index expected');
    expect(at(text, expr.index.span)).toBe("'name'");
  });

  it('parses calls with any number of arguments', () => {
    expect(tree('len(x)')).toBe('len(x)');
    expect(tree('f()')).toBe('f()');
    expect(tree("format('{0} and {1}', a, b)")).toBe('format("{0} and {1}", a, b)');
    expect(tree('default(steps.a.outputs.x, f(g(1)))')).toBe('default(steps.a.outputs.x, f(g(1)))');
    const text = "  contains( inputs.labels , 'x' )  ";
    const expr = ok(text);
    if (expr.kind !== 'call') throw new Error('call expected');
    expect(at(text, expr.span)).toBe("contains( inputs.labels , 'x' )");
    expect(at(text, expr.calleeSpan)).toBe('contains');
    expect(expr.args.map((arg) => at(text, arg.span))).toEqual(['inputs.labels', "'x'"]);
  });

  it('allows postfix access on a call result and on parentheses', () => {
    expect(tree('f(a).b[1]')).toBe('f(a).b[1]');
    expect(tree('(a || b).c')).toBe('(a || b).c');
  });

  it('tolerates whitespace and newlines anywhere between tokens', () => {
    expect(tree(' inputs . task ')).toBe('inputs.task');
    expect(tree('a\n&&\tb')).toBe('(a && b)');
  });
});

describe('parseExpression: list literals', () => {
  it('parses the empty list, items, nested lists, and a list indexed or passed', () => {
    expect(ok('[]')).toEqual({ kind: 'list', items: [], span: { start: 0, end: 2 } });
    expect(ok('[ ]')).toEqual({ kind: 'list', items: [], span: { start: 0, end: 3 } });
    expect(tree("[1, 'a', inputs.x]")).toBe('[1, "a", inputs.x]');
    expect(tree('[[1], []]')).toBe('[[1], []]');
    expect(tree('[a, b][0]')).toBe('[a, b][0]');
    expect(tree('default(inputs.tags, [])')).toBe('default(inputs.tags, [])');
    expect(tree('!contains([a], b) && [] == x')).toBe('((!contains([a], b)) && ([] == x))');
  });

  it('reports one error for a list not closed, a missing item, or a missing comma', () => {
    const cases: [string, string][] = [
      ['[1, 2', 'expected "]" to close "[" but found the end of the expression'],
      ['[1,', 'expected a value after "," but found the end of the expression'],
      ['[1,]', 'unexpected "]"; expected a value after ","'],
      ['[1 2]', 'expected "]" to close "[" but found the number 2'],
      ['[,]', 'expected "]" to close "[" but found ","'],
    ];
    for (const [text, message] of cases) {
      const result = parseExpression(text);
      expect(
        result.errors.map((e) => e.message),
        text,
      ).toEqual([message]);
      expect(result.value?.kind, text).toBe('list');
    }
  });
});

describe('parseExpression: operators and precedence', () => {
  it('binds ! tighter than comparison, comparison than equality, equality than &&, && than ||', () => {
    expect(tree('a || b && c')).toBe('(a || (b && c))');
    expect(tree('a && b || c')).toBe('((a && b) || c)');
    expect(tree('a == b && c != d')).toBe('((a == b) && (c != d))');
    expect(tree('a < b == c >= d')).toBe('((a < b) == (c >= d))');
    expect(tree('!a == b')).toBe('((!a) == b)');
    expect(tree('!a.b < 3')).toBe('((!a.b) < 3)');
    expect(tree('a || b && c == d < e')).toBe('(a || (b && (c == (d < e))))');
  });

  it('is left-associative', () => {
    expect(tree('a || b || c')).toBe('((a || b) || c)');
    expect(tree('a && b && c')).toBe('((a && b) && c)');
    expect(tree('a == b != c')).toBe('((a == b) != c)');
    expect(tree('a < b <= c > d >= e')).toBe('((((a < b) <= c) > d) >= e)');
  });

  it('stacks unary !', () => {
    expect(tree('!!a')).toBe('(!(!a))');
    expect(tree('! ! a')).toBe('(!(!a))');
    expect(tree('!(a && b)')).toBe('(!(a && b))');
  });

  it('parses every operator', () => {
    for (const op of ['&&', '||', '==', '!=', '<', '<=', '>', '>=']) {
      const text = `x ${op} 1`;
      const expr = ok(text);
      expect(expr).toMatchObject({ kind: 'binary', operator: op });
      if (expr.kind !== 'binary') continue;
      expect(at(text, expr.operatorSpan)).toBe(op);
    }
    expect(tree('a!=b')).toBe('(a != b)');
    expect(tree('a<=b')).toBe('(a <= b)');
  });

  it('lets parentheses override precedence and widens spans over them', () => {
    const text = '(a || b) && c';
    const expr = ok(text);
    expect(show(expr)).toBe('((a || b) && c)');
    expect(at(text, expr.span)).toBe(text);
    if (expr.kind !== 'binary') throw new Error('binary expected');
    expect(at(text, expr.left.span)).toBe('a || b');
    expect(at(text, expr.operatorSpan)).toBe('&&');
    const text2 = '!((a))';
    const expr2 = ok(text2);
    expect(at(text2, expr2.span)).toBe('!((a))');
    expect(tree('((((a))))')).toBe('a');
  });

  it('gives binary and unary nodes spans from their first to their last character', () => {
    const text = "  steps.a.outcome == 'done' || !inputs.strict  ";
    const expr = ok(text);
    expect(at(text, expr.span)).toBe("steps.a.outcome == 'done' || !inputs.strict");
    if (expr.kind !== 'binary' || expr.right.kind !== 'unary' || expr.left.kind !== 'binary') {
      throw new Error('shape');
    }
    expect(at(text, expr.right.span)).toBe('!inputs.strict');
    expect(at(text, expr.left.span)).toBe("steps.a.outcome == 'done'");
    expect(at(text, expr.left.right.span)).toBe("'done'");
  });
});

describe('parseExpression: offset', () => {
  it('adds the offset to every span', () => {
    const whole = 'Hello ${{ f(inputs.a, 2) == !b }}';
    const start = whole.indexOf('${{') + 3;
    const end = whole.indexOf('}}');
    const result = parseExpression(whole.slice(start, end), start);
    expect(result.errors).toEqual([]);
    const expr = result.value!;
    expect(at(whole, expr.span)).toBe('f(inputs.a, 2) == !b');
    if (expr.kind !== 'binary' || expr.left.kind !== 'call') throw new Error('shape');
    expect(at(whole, expr.left.calleeSpan)).toBe('f');
    expect(expr.left.args.map((arg) => at(whole, arg.span))).toEqual(['inputs.a', '2']);
    expect(at(whole, expr.operatorSpan)).toBe('==');
  });

  it('adds the offset to error spans', () => {
    const whole = 'xx ${{ a == @ }}';
    const result = parseExpression(' a == @ ', 6);
    expect(result.errors).toHaveLength(1);
    expect(at(whole, result.errors[0]!.span)).toBe('@');
    const empty = parseExpression('  ', 10);
    expect(empty.errors[0]!.span).toEqual({ start: 10, end: 12 });
  });
});

describe('parseExpression: errors and recovery', () => {
  function bad(text: string) {
    const result = parseExpression(text);
    expect(result.errors).toHaveLength(1);
    const error = result.errors[0]!;
    expect(error.code).toBe('PB400');
    return { ...result, error, found: at(text, error.span) };
  }

  it('reports an empty expression once', () => {
    for (const text of ['', '   ', '\n\t']) {
      const { error, value } = bad(text);
      expect(error.message).toBe('empty expression');
      expect(error.span).toEqual({ start: 0, end: text.length });
      expect(value).toBeUndefined();
    }
  });

  it('reports any number of missing ")" once', () => {
    for (const [text, tree] of [
      ['(a', 'a'],
      ['(((a', 'a'],
      ['((a == b', '(a == b)'],
      ['((((((((((a == b', '(a == b)'],
    ] as const) {
      const { error, value } = bad(text);
      expect(error.message).toBe('expected ")" to close "(" but found the end of the expression');
      expect(error.span).toEqual({ start: text.length, end: text.length });
      expect(show(value)).toBe(tree);
    }
  });

  it('reports a missing value after an operator once, with an error node in the tree', () => {
    const { error, value } = bad('a ==');
    expect(error.message).toBe('expected a value after "==" but found the end of the expression');
    expect(error.span).toEqual({ start: 4, end: 4 });
    expect(show(value)).toBe('(a == <error>)');
    expect(show(bad('a && || b').value)).toBe('((a && <error>) || b)');
    expect(bad('a && || b').error.message).toBe('unexpected "||"; expected a value after "&&"');
    expect(bad('a && || b').found).toBe('||');
  });

  it('reports an operator where a value should be', () => {
    const { error, found, value } = bad('== b');
    expect(error.message).toBe('unexpected "=="; expected a value');
    expect(found).toBe('==');
    expect(show(value)).toBe('(<error> == b)');
  });

  it('reports an unfinished call once', () => {
    const { error, value } = bad('f(a,');
    expect(error.message).toBe('expected a value after "," but found the end of the expression');
    expect(show(value)).toBe('f(a, <error>)');
    const unclosed = bad('f(a');
    expect(unclosed.error.message).toBe('expected ")" to close "f(" but found the end of the expression');
    expect(show(unclosed.value)).toBe('f(a)');
    expect(bad('f(a b)').error.message).toBe('expected ")" to close "f(" but found "b"');
    expect(bad('f(,a)').error.message).toBe('expected ")" to close "f(" but found ","');
    expect(show(bad('f(,a)').value)).toBe('f()');
    expect(show(bad('f( && x').value)).toBe('(f() && x)');
    expect(bad("f(a 'x', b)").error.message).toBe(
      'expected "," or ")" after an argument but found the string \'x\'',
    );
    expect(show(bad("f(a 'x', b)").value)).toBe('f(a, b)');
    expect(show(bad('f(a,)').value)).toBe('f(a, <error>)');
  });

  it('reports an unfinished index or member once', () => {
    expect(bad('a[0').error.message).toBe('expected "]" to close "[" but found the end of the expression');
    expect(show(bad('a[0').value)).toBe('a[0]');
    expect(show(bad('a[').value)).toBe('a[<error>]');
    const member = bad('inputs.');
    expect(member.error.message).toBe(
      'expected a property name after "." but found the end of the expression',
    );
    expect(member.value).toMatchObject({ kind: 'error', span: { start: 0, end: 7 } });
    expect(bad('a.1').error.message).toBe('expected a property name after "." but found the number 1');
    expect(show(bad('a..b').value)).toBe('<error>.b');
  });

  it('reports an unterminated string once, spanning to the end', () => {
    for (const text of ["'abc", "f('abc", "a == 'it''s", '"abc', '"abc\\"', "('abc )"]) {
      const { error, found } = bad(text);
      expect(error.message).toMatch(/^unterminated string literal/);
      expect(found).toBe(text.slice(text.search(/['"]/)));
    }
    expect(bad("a == 'x").value).toMatchObject({ kind: 'binary', right: { kind: 'literal', value: 'x' } });
    expect(bad("a 'x").error.message).toMatch(/^unterminated/);
  });

  it('reports an invalid escape with its exact span', () => {
    const { error, found, value } = bad('"a\\qb"');
    expect(error.message).toBe('invalid escape "\\q" in a double-quoted string');
    expect(found).toBe('\\q');
    expect(value).toMatchObject({ value: 'aqb' });
    expect(bad('"\\u12"').found).toBe('\\u');
  });

  it('reports stray characters once, with exact spans', () => {
    expect(bad('a }').found).toBe('}');
    expect(bad('a }').error.message).toBe('unexpected character "}"');
    expect(show(bad('a }').value)).toBe('a');
    expect(bad('a @ b').found).toBe('@');
    expect(bad('@a').found).toBe('@');
    expect(bad('a == @').found).toBe('@');
    expect(show(bad('a == @').value)).toBe('(a == <error>)');
    expect(bad('(@)').found).toBe('@');
    expect(bad('f(a @').found).toBe('@');
    expect(bad('a @#% b').found).toBe('@#%');
    expect(bad('@').value).toMatchObject({ kind: 'error' });
  });

  it('suggests the operator meant', () => {
    expect(bad('a = b').error.message).toBe('unexpected "="; did you mean "=="?');
    expect(bad('a & b').error.message).toBe('unexpected "&"; did you mean "&&"?');
    expect(bad('a | b').error.message).toBe('unexpected "|"; did you mean "||"?');
    expect(bad('a + 1').error.message).toBe('unexpected "+"; there are no arithmetic operators');
  });

  it('reports leftover input once', () => {
    expect(bad('a b').error.message).toBe(
      'unexpected "b"; expected an operator or the end of the expression',
    );
    expect(bad('a b c d').found).toBe('b');
    expect(bad('a)').error.message).toBe('unexpected ")" without a matching "("');
    expect(bad('a]').error.message).toBe('unexpected "]" without a matching "["');
    expect(bad('a.b(c)').error.message).toBe('unexpected "("; only a function name can be called');
    expect(bad("a 'x'").error.message).toBe(
      "unexpected string 'x'; expected an operator or the end of the expression",
    );
    expect(bad(')').error.message).toBe('unexpected ")"; expected a value');
  });

  it('keeps the rest of the tree after an error', () => {
    const text = 'f(a, ) && inputs.x == 1';
    const result = parseExpression(text);
    expect(result.errors).toHaveLength(1);
    expect(show(result.value)).toBe('(f(a, <error>) && (inputs.x == 1))');
  });

  it('reports separate mistakes separately, in source order', () => {
    const result = parseExpression('a @ b == # c');
    expect(result.errors.map((error) => error.span.start)).toEqual([2, 9]);
  });

  it('survives pathological nesting without throwing', () => {
    const deep = '('.repeat(20000) + 'a';
    const result = parseExpression(deep);
    expect(result.errors).toHaveLength(1);
    const bangs = parseExpression('!'.repeat(20000) + 'a');
    expect(bangs.errors.length).toBeLessThanOrEqual(1);
  });
});

describe('parseExpression: the height limit', () => {
  const max = MAX_TREE_HEIGHT;
  /** Each shape at a given number of levels, and the text the error must point at past the limit. */
  const shapes: Record<string, { make: (levels: number) => string; marker: string }> = {
    'a chain of ".a"': { make: (n) => `a${'.a'.repeat(n - 1)}`, marker: '.' },
    'a chain of ["a"]': { make: (n) => `a${'["a"]'.repeat(n - 1)}`, marker: '[' },
    'a chain of ||': { make: (n) => Array<string>(n).fill('a').join(' || '), marker: '||' },
    'a chain of &&': { make: (n) => Array<string>(n).fill('a').join(' && '), marker: '&&' },
    'a chain of ==': { make: (n) => Array<string>(n).fill('a').join(' == '), marker: '==' },
    'a run of !': { make: (n) => `${'!'.repeat(n - 1)}a`, marker: '!' },
    'nested parentheses': { make: (n) => `${'('.repeat(n - 1)}a${')'.repeat(n - 1)}`, marker: '(' },
    'unclosed parentheses': { make: (n) => `${'('.repeat(n - 1)}a`, marker: '(' },
    'nested calls': { make: (n) => `${'len('.repeat(n - 1)}a${')'.repeat(n - 1)}`, marker: '(' },
    'nested indexes': { make: (n) => `a${'[a'.repeat(n - 2)}[1${']'.repeat(n - 1)}`, marker: '[' },
  };

  for (const [what, { make, marker }] of Object.entries(shapes)) {
    it(`${what}: ${max} levels parse; one more is one PB400 on the ${JSON.stringify(marker)} past the limit`, () => {
      const fits = parseExpression(make(max));
      // (an unclosed parenthesis is its own error; the tree is what matters there)
      if (what !== 'unclosed parentheses') expect(fits.errors).toEqual([]);
      expect(heightOf(fits.value)).toBeLessThanOrEqual(max);

      for (const levels of [max + 1, max + 2, 5_000, 20_000]) {
        const text = make(levels);
        const result = parseExpression(text, 7);
        expect(result.errors, `${levels} levels`).toHaveLength(1);
        const error = result.errors[0]!;
        expect(error.code).toBe('PB400');
        expect(error.message).toContain(`nested more than ${max} levels deep`);
        expect(text.slice(error.span.start - 7, error.span.end - 7)).toBe(marker);
        // nothing past the limit reaches a later stage: the whole expression is one error node
        expect(result.value).toEqual({ kind: 'error', span: { start: 7, end: 7 + text.length } });
      }
    });
  }

  it('the error is on the first place past the limit', () => {
    const text = `a${'.a'.repeat(max)}`; // max + 1 levels: the last "." goes past
    const error = parseExpression(text).errors[0]!;
    expect(error.span).toEqual({ start: text.length - 2, end: text.length - 1 });
  });

  it('an earlier syntax error is the one reported', () => {
    const result = parseExpression(`a == == ${'('.repeat(10_000)}`);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.message).toMatch(/expected a value/);
  });

  it('a wide expression is not a deep one', () => {
    const args = Array.from({ length: 2_000 }, (_, i) => `'${i}'`).join(', ');
    expect(parseExpression(`format('{0}', ${args})`).errors).toEqual([]);
  });
});

describe('parseExpression: the length limit', () => {
  it(`an expression of ${MAX_EXPRESSION_LENGTH} characters is parsed; a longer one is one PB400 past the limit`, () => {
    const fits = `'${'x'.repeat(MAX_EXPRESSION_LENGTH - 2)}'`;
    expect(parseExpression(fits).errors).toEqual([]);
    const text = `inputs.task${'.a'.repeat(MAX_EXPRESSION_LENGTH)}`;
    const result = parseExpression(text, 5);
    expect(result.errors).toEqual([
      {
        code: 'PB400',
        message: `expression longer than ${MAX_EXPRESSION_LENGTH} characters (${text.length}); split it, or move long text out of it`,
        span: { start: 5 + MAX_EXPRESSION_LENGTH, end: 6 + MAX_EXPRESSION_LENGTH },
      },
    ]);
    expect(result.value).toEqual({ kind: 'error', span: { start: 5, end: 5 + text.length } });
  });
});
