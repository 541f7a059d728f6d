/**
 * "One mistake gives one error": generated valid expressions round-trip, and breaking them in one place
 * (cutting them short, dropping one bracket) gives at most / exactly one error.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseExpression, parseTemplate, parseTypeExpression } from '../src/index.js';
import type { TypeExpr } from '../src/index.js';
import { show } from './helpers.js';

interface Piece {
  text: string;
  /** A bracket of the expression's structure (not inside a string literal). */
  bracket?: boolean;
}

interface Printed {
  pieces: Piece[];
  /** What `show` should render for the parsed tree. */
  shown: string;
  /** Whether the node is a binary or unary expression (then wrapped in parentheses where needed). */
  operator?: boolean;
}

const ws = fc.constantFrom('', ' ', '  ', '\n');
const names = fc.constantFrom(
  'inputs',
  'steps',
  'run',
  'a',
  'x-y',
  'loop_1',
  'security-reviewer',
  'null-ish',
);
const functions = fc.constantFrom('contains', 'format', 'default', 'len', 'f');
const binaryOperators = fc.constantFrom('&&', '||', '==', '!=', '<', '<=', '>', '>=');

const stringLiteral: fc.Arbitrary<Printed> = fc
  .tuple(
    fc.string({ maxLength: 6, unit: fc.constantFrom('a', ' ', "'", '"', '\\', '}', '{', '$', 'é') }),
    fc.boolean(),
  )
  .map(([value, single]) => ({
    pieces: [{ text: single ? `'${value.replaceAll("'", "''")}'` : JSON.stringify(value) }],
    shown: JSON.stringify(value),
  }));

const otherLiteral: fc.Arbitrary<Printed> = fc
  .oneof(fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(2.5, -0.25, true, false, null))
  .map((value) => ({ pieces: [{ text: String(value) }], shown: JSON.stringify(value) }));

const identifier: fc.Arbitrary<Printed> = names.map((name) => ({ pieces: [{ text: name }], shown: name }));

function group(inner: Printed): Piece[] {
  return inner.operator
    ? [{ text: '(', bracket: true }, ...inner.pieces, { text: ')', bracket: true }]
    : inner.pieces;
}

const { expr } = fc.letrec<{ expr: Printed }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    stringLiteral,
    otherLiteral,
    identifier,
    fc.tuple(tie('expr'), names).map(([object, name]) => ({
      pieces: [...group(object), { text: `.${name}` }],
      shown: `${object.shown}.${name}`,
    })),
    fc.tuple(tie('expr'), tie('expr'), ws).map(([object, index, space]) => ({
      pieces: [
        ...group(object),
        { text: '[', bracket: true },
        { text: space },
        ...index.pieces,
        { text: ']', bracket: true },
      ],
      shown: `${object.shown}[${index.shown}]`,
    })),
    fc.tuple(tie('expr'), ws).map(([operand, space]) => ({
      pieces: [{ text: `!${space}` }, ...group(operand)],
      shown: `(!${operand.shown})`,
      operator: true,
    })),
    fc.tuple(tie('expr'), binaryOperators, tie('expr'), ws).map(([left, operator, right, space]) => ({
      pieces: [...group(left), { text: ` ${operator}${space} ` }, ...group(right)],
      shown: `(${left.shown} ${operator} ${right.shown})`,
      operator: true,
    })),
    fc.tuple(functions, fc.array(tie('expr'), { maxLength: 3 })).map(([callee, args]) => ({
      pieces: [
        { text: callee },
        { text: '(', bracket: true },
        ...args.flatMap((arg, i) => (i === 0 ? arg.pieces : [{ text: ', ' }, ...arg.pieces])),
        { text: ')', bracket: true },
      ],
      shown: `${callee}(${args.map((arg) => arg.shown).join(', ')})`,
    })),
  ),
}));

const join = (pieces: Piece[]) => pieces.map((piece) => piece.text).join('');

describe('one mistake gives one error', () => {
  it('valid expressions round-trip without errors', () => {
    fc.assert(
      fc.property(expr, (printed) => {
        const text = join(printed.pieces);
        const result = parseExpression(text);
        expect(result.errors).toEqual([]);
        const expected = printed.shown.replace(/^\((.*)\)$/s, '$1');
        expect(show(result.value).replace(/^\((.*)\)$/s, '$1')).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('an expression cut short gives at most one error, and still a tree', () => {
    fc.assert(
      fc.property(expr, fc.double({ min: 0, max: 1, noNaN: true }), (printed, where) => {
        const text = join(printed.pieces);
        const cut = text.slice(0, Math.max(1, Math.floor(where * text.length)));
        const result = parseExpression(cut);
        expect(result.errors.length, JSON.stringify(cut)).toBeLessThanOrEqual(1);
        if (cut.trim() !== '') expect(result.value).toBeDefined();
      }),
      { numRuns: 1000 },
    );
  });

  it('dropping one bracket gives exactly one error', () => {
    fc.assert(
      fc.property(expr, fc.nat(), (printed, pick) => {
        const brackets = printed.pieces.flatMap((piece, i) => (piece.bracket ? [i] : []));
        fc.pre(brackets.length > 0);
        const drop = brackets[pick % brackets.length]!;
        const text = join(printed.pieces.filter((_, i) => i !== drop));
        const result = parseExpression(text);
        expect(result.errors.length, JSON.stringify(text)).toBe(1);
        expect(result.value).toBeDefined();
      }),
      { numRuns: 1000 },
    );
  });

  it('a template with one broken expression among valid ones gives one error', () => {
    fc.assert(
      fc.property(expr, expr, fc.double({ min: 0, max: 1, noNaN: true }), (good, broken, where) => {
        const brokenText = join(broken.pieces);
        const cut = brokenText.slice(0, Math.floor(where * brokenText.length));
        const text = `Start ${'${{'} ${join(good.pieces)} }} middle ${'${{'} ${cut} }} end`;
        const result = parseTemplate(text);
        expect(result.errors.length, JSON.stringify(text)).toBeLessThanOrEqual(1);
      }),
      { numRuns: 500 },
    );
  });
});

interface PrintedType {
  pieces: Piece[];
  /** The canonical rendering `render` below gives for the parsed type. */
  shown: string;
}

const fieldNames = fc.uniqueArray(fc.constantFrom('a', 'b', 'name', 'list', 'exit-code', '_x', 'enum'), {
  minLength: 1,
  maxLength: 3,
});
const memberValues = fc.uniqueArray(fc.constantFrom('a', 'b', 'main', 'v1.2', 'two words', "it's", '42'), {
  minLength: 1,
  maxLength: 4,
});

const { type } = fc.letrec<{ type: PrintedType }>((tie) => ({
  type: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    fc
      .constantFrom('string', 'number', 'integer', 'boolean')
      .map((name) => ({ pieces: [{ text: name }], shown: name })),
    tie('type').map((element) => ({
      pieces: [
        { text: 'list' },
        { text: '<', bracket: true },
        ...element.pieces,
        { text: '>', bracket: true },
      ],
      shown: `list<${element.shown}>`,
    })),
    fc
      .tuple(tie('type'), ws)
      .filter(([inner]) => !inner.shown.endsWith('?'))
      .map(([inner, space]) => ({
        pieces: [...inner.pieces, { text: `${space}?` }],
        shown: `${inner.shown}?`,
      })),
    memberValues.map((values) => ({
      pieces: [
        { text: 'enum' },
        { text: '(', bracket: true },
        { text: values.map((v) => (/^[A-Za-z0-9_.-]+$/.test(v) ? v : JSON.stringify(v))).join(', ') },
        { text: ')', bracket: true },
      ],
      shown: `enum(${values.map((v) => JSON.stringify(v)).join(', ')})`,
    })),
    fc
      .tuple(
        fieldNames,
        fc.array(tie('type'), { minLength: 3, maxLength: 3 }),
        fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
      )
      .map(([names, types, optional]) => ({
        pieces: [
          { text: '{', bracket: true },
          ...names.flatMap((name, i) => [
            { text: `${i === 0 ? ' ' : ', '}${name}${optional[i] ? '?' : ''}: ` },
            ...types[i]!.pieces,
          ]),
          { text: ' }', bracket: true },
        ],
        shown: `{ ${names.map((name, i) => `${name}${optional[i] ? '?' : ''}: ${types[i]!.shown}`).join(', ')} }`,
      })),
  ),
}));

function render(value: TypeExpr | undefined): string {
  if (value === undefined) return '<none>';
  switch (value.kind) {
    case 'primitive':
      return value.name;
    case 'list':
      return `list<${render(value.element)}>`;
    case 'nullable':
      return `${render(value.inner)}?`;
    case 'enum':
      return `enum(${value.members.map((member) => JSON.stringify(member.value)).join(', ')})`;
    case 'object':
      return `{ ${value.fields.map((field) => `${field.name}${field.optional ? '?' : ''}: ${render(field.type)}`).join(', ')} }`;
  }
}

describe('one mistake gives one error: type expressions', () => {
  it('valid types round-trip without errors', () => {
    fc.assert(
      fc.property(type, (printed) => {
        const result = parseTypeExpression(join(printed.pieces));
        expect(result.errors).toEqual([]);
        expect(render(result.value)).toBe(printed.shown);
      }),
      { numRuns: 1000 },
    );
  });

  it('dropping one bracket gives exactly one error', () => {
    fc.assert(
      fc.property(type, fc.nat(), (printed, pick) => {
        const brackets = printed.pieces.flatMap((piece, i) => (piece.bracket ? [i] : []));
        fc.pre(brackets.length > 0);
        const drop = brackets[pick % brackets.length]!;
        const text = join(printed.pieces.filter((_, i) => i !== drop));
        expect(parseTypeExpression(text).errors.length, JSON.stringify(text)).toBe(1);
      }),
      { numRuns: 1000 },
    );
  });

  it('a type cut short gives at most one error', () => {
    fc.assert(
      fc.property(type, fc.double({ min: 0, max: 1, noNaN: true }), (printed, where) => {
        const text = join(printed.pieces);
        const cut = text.slice(0, Math.max(1, Math.floor(where * text.length)));
        expect(parseTypeExpression(cut).errors.length, JSON.stringify(cut)).toBeLessThanOrEqual(1);
      }),
      { numRuns: 1000 },
    );
  });
});
