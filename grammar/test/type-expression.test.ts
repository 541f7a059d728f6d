import { describe, expect, it } from 'vitest';
import { MAX_EXPRESSION_LENGTH, MAX_TREE_HEIGHT, parseTypeExpression } from '../src/index.js';
import type { TypeExpr } from '../src/index.js';
import { at, heightOf } from './helpers.js';

/** A canonical rendering of a type expression. */
function render(type: TypeExpr | undefined): string {
  if (type === undefined) return '<none>';
  switch (type.kind) {
    case 'primitive':
      return type.name;
    case 'list':
      return `list<${render(type.element)}>`;
    case 'enum':
      return `enum(${type.members.map((member) => JSON.stringify(member.value)).join(', ')})`;
    case 'object':
      return `{ ${type.fields.map((field) => `${field.name}${field.optional ? '?' : ''}: ${render(field.type)}`).join(', ')} }`;
    case 'nullable':
      return `${render(type.inner)}?`;
  }
}

function ok(text: string): TypeExpr {
  const result = parseTypeExpression(text);
  expect(result.errors).toEqual([]);
  expect(result.value).toBeDefined();
  return result.value!;
}

function bad(text: string) {
  const result = parseTypeExpression(text);
  expect(result.errors).toHaveLength(1);
  const error = result.errors[0]!;
  expect(error.code).toBe('PB403');
  return { ...result, error, found: at(text, error.span) };
}

describe('parseTypeExpression: valid types', () => {
  it('parses the primitives', () => {
    for (const name of ['string', 'number', 'integer', 'boolean'] as const) {
      expect(ok(name)).toEqual({ kind: 'primitive', name, span: { start: 0, end: name.length } });
    }
    expect(ok('  string \n')).toEqual({ kind: 'primitive', name: 'string', span: { start: 2, end: 8 } });
  });

  it('parses lists, nullables and nesting', () => {
    expect(render(ok('list<string>'))).toBe('list<string>');
    expect(render(ok('list< list<integer> >'))).toBe('list<list<integer>>');
    expect(render(ok('list<list<integer>>'))).toBe('list<list<integer>>');
    expect(render(ok('string?'))).toBe('string?');
    expect(render(ok('list<string?>?'))).toBe('list<string?>?');
    const text = 'list<{ a: string, b?: list<integer> }>?';
    const type = ok(text);
    expect(render(type)).toBe('list<{ a: string, b?: list<integer> }>?');
    expect(at(text, type.span)).toBe(text);
    if (type.kind !== 'nullable' || type.inner.kind !== 'list' || type.inner.element.kind !== 'object') {
      throw new Error('shape');
    }
    expect(at(text, type.inner.span)).toBe('list<{ a: string, b?: list<integer> }>');
    const object = type.inner.element;
    expect(at(text, object.span)).toBe('{ a: string, b?: list<integer> }');
    expect(object.fields.map((field) => at(text, field.nameSpan))).toEqual(['a', 'b']);
    expect(object.fields.map((field) => at(text, field.type.span))).toEqual(['string', 'list<integer>']);
  });

  it('parses enums with bare and quoted members', () => {
    const text = "enum(a, b, \"two words\", 'it''s', v1.2-rc_3, 42)";
    const type = ok(text);
    expect(render(type)).toBe('enum("a", "b", "two words", "it\'s", "v1.2-rc_3", "42")');
    if (type.kind !== 'enum') throw new Error('enum expected');
    expect(type.members.map((member) => at(text, member.span))).toEqual([
      'a',
      'b',
      '"two words"',
      "'it''s'",
      'v1.2-rc_3',
      '42',
    ]);
    expect(at(text, type.span)).toBe(text);
    expect(render(ok('enum(main, develop)?'))).toBe('enum("main", "develop")?');
    expect(render(ok('enum(list, enum, string)'))).toBe('enum("list", "enum", "string")');
  });

  it('parses objects, including optional fields, keyword-named fields and a trailing comma', () => {
    expect(render(ok('{ name: string, other?: number }'))).toBe('{ name: string, other?: number }');
    expect(render(ok('{a:string,b?:integer,}'))).toBe('{ a: string, b?: integer }');
    expect(render(ok('{ list: list<string>, enum: enum(x) }'))).toBe(
      '{ list: list<string>, enum: enum("x") }',
    );
    expect(render(ok('{ exit-code: integer, _x: boolean }'))).toBe('{ exit-code: integer, _x: boolean }');
    expect(render(ok('{}'))).toBe('{  }');
    expect(render(ok('enum(a, b,)'))).toBe('enum("a", "b")');
  });
});

describe('parseTypeExpression: errors (one each)', () => {
  it('suggests the type meant', () => {
    const { error, found, value } = bad('strng');
    expect(error.message).toBe('unknown type "strng"; did you mean "string"?');
    expect(found).toBe('strng');
    expect(value).toBeUndefined();
    expect(bad('integr').error.message).toBe('unknown type "integr"; did you mean "integer"?');
    expect(bad('int').error.message).toBe('unknown type "int"; did you mean "integer"?');
    expect(bad('bool').error.message).toBe('unknown type "bool"; did you mean "boolean"?');
    expect(bad('float?').error.message).toBe('unknown type "float"; did you mean "number"?');
    expect(bad('List<string>').error.message).toBe('unknown type "List"; did you mean "list"?');
    expect(bad('lst<string>').found).toBe('lst');
    expect(bad('xyzzy').error.message).toBe(
      'unknown type "xyzzy"; expected string, number, integer, boolean, list<T>, enum(…) or { … }',
    );
    expect(bad('object').error.message).toMatch(/write an object type as \{ name: type/);
    expect(bad('list<strng>').found).toBe('strng');
    expect(bad('{ a: string, b: strng }').found).toBe('strng');
  });

  it('reports an unclosed list, enum or object', () => {
    const list = bad('list<string');
    expect(list.error.message).toBe('expected ">" to close "list<" but found the end of the type');
    expect(render(list.value)).toBe('list<string>');
    expect(bad('list<list<string>').error.message).toBe(
      'expected ">" to close "list<" but found the end of the type',
    );
    expect(bad('list<string string>').found).toBe('string');
    const enumType = bad('enum(a, b');
    expect(enumType.error.message).toBe('expected ")" to close "enum(" but found the end of the type');
    expect(render(enumType.value)).toBe('enum("a", "b")');
    expect(bad('enum(a, two words)').error.message).toBe(
      'expected ")" to close "enum(" but found "words" (separate members with "," and quote a member that contains spaces)',
    );
    const object = bad('{ a: string');
    expect(object.error.message).toBe('expected "}" to close "{" but found the end of the type');
    expect(render(object.value)).toBe('{ a: string }');
  });

  it('reports list and enum without their brackets', () => {
    expect(bad('list').error.message).toBe('expected "<" after "list", as in list<string>');
    expect(bad('list(string)').found).toBe('list');
    expect(bad('enum').error.message).toBe('expected "(" after "enum", as in enum(a, b)');
    expect(bad('enum<a, b>').found).toBe('enum');
  });

  it('reports missing pieces', () => {
    expect(bad('list<>').error.message).toBe('expected a type but found ">"');
    expect(bad('{ a: }').error.message).toBe('expected a type but found "}"');
    expect(bad('{ a string }').error.message).toBe(
      'expected ":" after the field name "a" but found "string"',
    );
    expect(render(bad('{ a string }').value)).toBe('{ a: string }');
    expect(bad('{ : string }').error.message).toBe('expected a field name but found ":"');
    expect(bad('enum(a,,b)').error.message).toBe('expected an enum member but found ","');
    expect(bad('"string"').error.message).toBe('expected a type but found the string "string"');
    expect(bad('?').error.message).toBe('expected a type but found "?"');
  });

  it('reports an empty type or an empty enum', () => {
    expect(bad('').error).toEqual({
      code: 'PB403',
      message: 'empty type expression',
      span: { start: 0, end: 0 },
    });
    expect(bad('  ').error.span).toEqual({ start: 0, end: 2 });
    const empty = bad('enum()');
    expect(empty.error.message).toBe('an enum needs at least one member');
    expect(empty.found).toBe(')');
  });

  it('reports duplicates at the second occurrence', () => {
    const members = bad('enum(a, b, a)');
    expect(members.error.message).toBe('duplicate enum member "a"');
    expect(members.error.span).toEqual({ start: 11, end: 12 });
    expect(render(members.value)).toBe('enum("a", "b")');
    expect(bad('enum(a, "a")').error.message).toBe('duplicate enum member "a"');
    const fields = bad('{ a: string, b: number, a?: integer }');
    expect(fields.error.message).toBe('duplicate field "a"');
    expect(fields.error.span).toEqual({ start: 24, end: 25 });
    expect(render(fields.value)).toBe('{ a: string, b: number }');
  });

  it('reports invalid field names', () => {
    expect(bad('{ 1a: string }').error.message).toBe(
      'invalid field name "1a": use letters, digits, "_" and "-"',
    );
    expect(bad('{ a.b: string }').found).toBe('a.b');
  });

  it('reports trailing input, double ?, stray and unterminated text', () => {
    expect(bad('string string').error.message).toBe('unexpected "string" after the type');
    expect(bad('string>').found).toBe('>');
    expect(bad('string??').error.message).toBe('a type can be made nullable only once');
    expect(bad('string @').error.message).toBe('unexpected character "@"');
    expect(bad('list<@>').found).toBe('@');
    expect(bad("enum('a)").error.message).toMatch(/^unterminated string literal/);
    expect(bad("'x").found).toBe("'x");
    expect(bad('enum("a\\q")').error.message).toBe('invalid escape "\\q" in a double-quoted string');
  });

  it('survives pathological nesting without throwing', () => {
    expect(parseTypeExpression('list<'.repeat(20000)).errors).toHaveLength(1);
    expect(parseTypeExpression('{a:'.repeat(20000)).errors).toHaveLength(1);
  });
});

describe('parseTypeExpression: the height limit', () => {
  const max = MAX_TREE_HEIGHT;
  const shapes: Record<string, { make: (levels: number) => string; marker: string }> = {
    'nested lists': { make: (n) => `${'list<'.repeat(n - 1)}string${'>'.repeat(n - 1)}`, marker: 'list' },
    'unclosed lists': { make: (n) => `${'list<'.repeat(n - 1)}string`, marker: 'list' },
    'nested objects': { make: (n) => `${'{ a: '.repeat(n - 1)}string${' }'.repeat(n - 1)}`, marker: '{' },
    'lists of objects': {
      make: (n) => `${'list<{ a: '.repeat((n - 1) / 2)}string${' }>'.repeat((n - 1) / 2)}`,
      marker: '{',
    },
  };
  for (const [what, { make, marker }] of Object.entries(shapes)) {
    it(`${what}: ${max} levels parse; more is one PB403 on the ${JSON.stringify(marker)} past the limit`, () => {
      const fits = parseTypeExpression(make(what === 'lists of objects' ? max - 1 : max));
      expect(fits.value).toBeDefined();
      expect(heightOf(fits.value)).toBeLessThanOrEqual(max);
      for (const levels of [max + 1, max + 3, 5_001, 14_001]) {
        const text = make(levels);
        const result = parseTypeExpression(text);
        expect(result.errors, `${levels} levels`).toHaveLength(1);
        expect(result.errors[0]!.code).toBe('PB403');
        expect(result.errors[0]!.message).toContain(`nested more than ${max} levels deep`);
        expect(at(text, result.errors[0]!.span)).toBe(marker);
        expect(result.value).toBeUndefined();
      }
    });
  }

  it('a "?" past the limit is reported on the outermost level', () => {
    const text = `${'list<'.repeat(max - 1)}string?${'>'.repeat(max - 1)}`;
    const result = parseTypeExpression(text);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.span).toEqual({ start: 0, end: 4 });
  });
});

describe('repeated type strings', () => {
  it('parse once: the same text gives the same (read-only) result', () => {
    const first = parseTypeExpression('list<{ a: string }>');
    expect(parseTypeExpression('list<{ a: string }>')).toBe(first);
    expect(parseTypeExpression('strng').errors).toHaveLength(1);
    expect(parseTypeExpression('strng')).toBe(parseTypeExpression('strng'));
  });
});

describe('parseTypeExpression: the length limit', () => {
  it(`a type expression longer than ${MAX_EXPRESSION_LENGTH} characters is one PB403 past the limit`, () => {
    const text = `enum(${Array.from({ length: 20_000 }, (_, i) => `m${i}`).join(', ')})`;
    expect(parseTypeExpression(text).errors).toEqual([
      {
        code: 'PB403',
        message: `type expression longer than ${MAX_EXPRESSION_LENGTH} characters (${text.length})`,
        span: { start: MAX_EXPRESSION_LENGTH, end: MAX_EXPRESSION_LENGTH + 1 },
      },
    ]);
  });
});
