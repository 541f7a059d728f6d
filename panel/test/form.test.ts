import { describe, expect, it } from 'vitest';
import { validateInputs } from '@kairoku-playbook/panel/form';
import type { InputField } from '@kairoku-playbook/protocol';
import { fieldOfPointer, initialValues, readForm } from '../src/form/fields.js';

/** playbooks/pr.yml's input schema, as the compiler emits it, and a list. */
const schema = {
  type: 'object',
  properties: {
    task: { type: 'string', description: 'What to build' },
    strict: { type: 'boolean', default: false },
    reviewers: { type: 'integer', minimum: 1, maximum: 3, default: 1 },
    target: { type: 'string', enum: ['main', 'develop'], default: 'main' },
    api_key: { type: 'string', writeOnly: true },
    labels: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' } },
    ratio: { type: 'number' },
  },
  required: ['task'],
  additionalProperties: false,
};
const fields: InputField[] = [
  { name: 'task', type: 'string', multiline: true, required: true, secret: false },
  { name: 'strict', type: 'boolean', required: false, secret: false, default: false },
  { name: 'reviewers', type: 'integer', required: false, secret: false, default: 1 },
  {
    name: 'target',
    type: 'enum',
    choices: ['main', 'develop'],
    required: false,
    secret: false,
    default: 'main',
  },
  { name: 'api_key', type: 'string', required: false, secret: true },
  { name: 'labels', type: 'list', element: 'string', required: false, secret: false, default: ['ui', 'api'] },
  { name: 'ratio', type: 'number', required: false, secret: false },
];

describe('the start form', () => {
  it('fills the defaults in', () => {
    expect(initialValues(fields)).toEqual({
      task: '',
      strict: false,
      reviewers: '1',
      target: 'main',
      api_key: '',
      labels: 'ui\napi',
      ratio: '',
    });
  });

  it('reads good values into typed inputs, leaving empty optional fields out', () => {
    const raw = { ...initialValues(fields), task: 'Add a flag', reviewers: '3', strict: true, ratio: '0.5' };
    expect(readForm(fields, raw, schema)).toEqual({
      inputs: {
        task: 'Add a flag',
        strict: true,
        reviewers: 3,
        target: 'main',
        labels: ['ui', 'api'],
        ratio: 0.5,
      },
      errors: [],
    });
  });

  it('says what is wrong beside each field, in the order of the form', () => {
    const raw = { ...initialValues(fields), reviewers: '7', labels: 'ok\nNot OK', ratio: 'lots' };
    expect(readForm(fields, raw, schema).errors).toEqual([
      { field: 'task', message: 'is required' },
      { field: 'reviewers', message: 'must be at most 3' },
      { field: 'labels', message: '[2]: must match ^[a-z]+$' },
      { field: 'ratio', message: 'must be a number' },
    ]);
    // A required string of spaces alone is no value (the server refuses it too).
    expect(readForm(fields, { ...raw, task: '  \n ' }, schema).errors[0]).toEqual({
      field: 'task',
      message: 'is required: spaces alone are not a value',
    });
    expect(readForm(fields, { ...raw, task: 'x', reviewers: '1.5' }, schema).errors[0]).toEqual({
      field: 'reviewers',
      message: 'must be a whole number',
    });
  });

  it('maps a refusal’s JSON pointer to its field', () => {
    expect(fieldOfPointer('/inputs/repo')).toBe('repo');
    expect(fieldOfPointer('/inputs/a~1b/0')).toBe('a/b');
    expect(fieldOfPointer('/playbook')).toBeUndefined();
  });
});

describe('validateInputs', () => {
  it('checks types, enums, bounds, lengths, unknown inputs and anyOf', () => {
    const s = {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 3 },
        choice: { enum: ['a', 'b'] },
        either: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
        low: { type: 'number', exclusiveMinimum: 0 },
      },
      additionalProperties: false,
    };
    expect(validateInputs({ name: '', choice: 'c', either: 'x', low: 0, extra: 1 }, s)).toEqual([
      { field: 'name', message: 'must not be empty' },
      { field: 'choice', message: 'must be one of "a", "b"' },
      { field: 'either', message: 'must be a whole number' },
      { field: 'low', message: 'must be more than 0' },
      { field: 'extra', message: 'is not allowed' },
    ]);
    expect(validateInputs({ name: 'abc', choice: 'a', either: null, low: 1 }, s)).toEqual([]);
    expect(validateInputs({ name: 'abcd' }, s)).toEqual([
      { field: 'name', message: 'must be at most 3 characters' },
    ]);
  });

  it('says oneOf does not fit when more than one option matches, and the first option when none does', () => {
    const s = { type: 'object', properties: { n: { oneOf: [{ type: 'integer' }, { type: 'number' }] } } };
    expect(validateInputs({ n: 1 }, s)).toEqual([{ field: 'n', message: 'does not fit' }]);
    expect(validateInputs({ n: 1.5 }, s)).toEqual([]);
    expect(validateInputs({ n: 'x' }, s)).toEqual([{ field: 'n', message: 'must be a whole number' }]);
  });

  it('accepts anything without a schema, and ignores keywords it does not know', () => {
    expect(validateInputs({ a: 1 }, undefined)).toEqual([]);
    expect(validateInputs({ a: 1 }, { type: 'object', properties: { a: { format: 'email' } } })).toEqual([]);
  });
});
