import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCondition, parseExpression, parseTemplate, parseTypeExpression } from '../src/index.js';
import type { GrammarError, Span, TypeExpr } from '../src/index.js';
import { spansOf } from './helpers.js';

/** Fragments that steer generated strings into the interesting corners of the grammars. */
const FRAGMENTS = [
  '${{',
  '}}',
  '$${{',
  '$',
  '{',
  '}',
  "'",
  '"',
  "''",
  '\\',
  '\\"',
  '\\u00',
  '(',
  ')',
  '[',
  ']',
  '.',
  ',',
  '!',
  '==',
  '!=',
  '&&',
  '||',
  '<',
  '<=',
  '>',
  '>=',
  '=',
  '&',
  '-',
  '1',
  '2.5',
  '-3',
  'true',
  'null',
  'a',
  'inputs',
  'steps',
  'x-y',
  'f',
  'format',
  'list',
  'list<',
  'enum',
  'enum(',
  'string',
  'integer',
  ':',
  '?',
  '@',
  ' ',
  '\n',
  '\t',
  'é',
  '🚀',
];

const fragmentString = fc
  .array(fc.constantFrom(...FRAGMENTS), { maxLength: 30 })
  .map((parts) => parts.join(''));
const anyString = fc.oneof(
  fragmentString,
  fragmentString,
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

function within(span: Span, low: number, high: number): boolean {
  return (
    Number.isInteger(span.start) &&
    Number.isInteger(span.end) &&
    low <= span.start &&
    span.start <= span.end &&
    span.end <= high
  );
}

function checkErrors(errors: GrammarError[], length: number): void {
  for (const error of errors) {
    expect(within(error.span, 0, length), `${error.message} ${JSON.stringify(error.span)}`).toBe(true);
    expect(error.message.length).toBeGreaterThan(0);
  }
}

function typeSpans(type: TypeExpr): Span[] {
  switch (type.kind) {
    case 'primitive':
      return [type.span];
    case 'list':
      return [type.span, ...typeSpans(type.element)];
    case 'nullable':
      return [type.span, ...typeSpans(type.inner)];
    case 'enum':
      return [type.span, ...type.members.map((member) => member.span)];
    case 'object':
      return [type.span, ...type.fields.flatMap((field) => [field.nameSpan, ...typeSpans(field.type)])];
  }
}

const runs = { numRuns: 1500 };

describe('properties: the parsers never throw and keep every span in bounds', () => {
  it('parseExpression', () => {
    fc.assert(
      fc.property(anyString, (text) => {
        const result = parseExpression(text);
        checkErrors(result.errors, text.length);
        if (result.value)
          for (const span of spansOf(result.value)) expect(within(span, 0, text.length)).toBe(true);
        if (result.errors.length === 0) expect(result.value).toBeDefined();
        if (result.value === undefined) expect(result.errors.length).toBeGreaterThan(0);
        for (const error of result.errors) expect(error.code).toBe('PB400');
      }),
      runs,
    );
  });

  it('parseExpression with an offset shifts every span by it', () => {
    fc.assert(
      fc.property(anyString, fc.nat(1000), (text, offset) => {
        const plain = parseExpression(text);
        const shifted = parseExpression(text, offset);
        const shift = (span: Span) => ({ start: span.start + offset, end: span.end + offset });
        expect(shifted.errors.map((error) => error.span)).toEqual(
          plain.errors.map((error) => shift(error.span)),
        );
        expect(shifted.errors.map((error) => error.message)).toEqual(
          plain.errors.map((error) => error.message),
        );
        if (plain.value && shifted.value) {
          expect(spansOf(shifted.value)).toEqual(spansOf(plain.value).map(shift));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('parseTemplate', () => {
    fc.assert(
      fc.property(anyString, (text) => {
        const result = parseTemplate(text);
        checkErrors(result.errors, text.length);
        expect(result.errors.filter((error) => error.code === 'PB406').length).toBeLessThanOrEqual(1);
        const parts = result.value!.parts;
        // The parts tile the string: contiguous, in order, from 0 to its end.
        let cursor = 0;
        for (const part of parts) {
          expect(part.span.start).toBe(cursor);
          expect(part.span.end).toBeGreaterThan(part.span.start);
          cursor = part.span.end;
          if (part.kind === 'text') {
            expect(part.value.length).toBeGreaterThan(0);
          } else {
            expect(within(part.innerSpan, part.span.start, part.span.end)).toBe(true);
            if (part.expr) {
              for (const span of spansOf(part.expr))
                expect(within(span, part.innerSpan.start, part.innerSpan.end)).toBe(true);
            }
          }
        }
        expect(cursor).toBe(text.length);
        // Adjacent text parts are merged.
        for (let i = 1; i < parts.length; i++) {
          expect(parts[i - 1]!.kind === 'text' && parts[i]!.kind === 'text').toBe(false);
        }
      }),
      runs,
    );
  });

  it('parseTemplate: text without "$" is one text part holding it', () => {
    fc.assert(
      fc.property(anyString, (raw) => {
        const text = raw.replaceAll('$', '');
        const result = parseTemplate(text);
        expect(result.errors).toEqual([]);
        expect(result.value!.parts).toEqual(
          text === '' ? [] : [{ kind: 'text', value: text, span: { start: 0, end: text.length } }],
        );
      }),
      { numRuns: 300 },
    );
  });

  it('parseCondition', () => {
    fc.assert(
      fc.property(anyString, (text) => {
        const result = parseCondition(text);
        checkErrors(result.errors, text.length);
        if (result.value)
          for (const span of spansOf(result.value)) expect(within(span, 0, text.length)).toBe(true);
      }),
      runs,
    );
  });

  it('parseTypeExpression', () => {
    fc.assert(
      fc.property(anyString, (text) => {
        const result = parseTypeExpression(text);
        checkErrors(result.errors, text.length);
        for (const error of result.errors) expect(error.code).toBe('PB403');
        if (result.value)
          for (const span of typeSpans(result.value)) expect(within(span, 0, text.length)).toBe(true);
        if (result.errors.length === 0) expect(result.value).toBeDefined();
      }),
      runs,
    );
  });

  it('error messages name something: no "undefined" or "NaN" leaks', () => {
    fc.assert(
      fc.property(anyString, (text) => {
        const all = [
          ...parseExpression(text).errors,
          ...parseTemplate(text).errors,
          ...parseCondition(text).errors,
          ...parseTypeExpression(text).errors,
        ];
        for (const error of all) {
          for (const leak of ['undefined', 'NaN', '[object']) {
            if (!text.includes(leak)) expect(error.message).not.toContain(leak);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
