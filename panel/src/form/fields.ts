/**
 * The start form's fields as text the page edits, and back to the inputs a run starts with. Parsing
 * problems (a word where a number goes, JSON that does not parse) are reported here; everything else is
 * the input schema's to say (validate.ts), so the page and the server refuse the same values.
 */
import type { InputField } from '@kairoku-playbook/protocol';
import { validateInputs } from './validate.js';
import type { FieldError, Schema } from './validate.js';

/** What a field holds while it is edited: a checkbox's state, or text. */
export type RawValue = string | boolean;

/** A field's value before anyone types: its default, shown as the field shows it. */
export function initialValue(field: InputField): RawValue {
  const value = field.default;
  if (field.type === 'boolean') return value === true;
  if (value === undefined || value === null) return '';
  if (field.type === 'list' && Array.isArray(value))
    return value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join('\n');
  if (typeof value === 'string') return value;
  if (field.type === 'object' || field.type === 'any' || typeof value === 'object')
    return JSON.stringify(value, null, 2);
  return String(value);
}

export function initialValues(fields: readonly InputField[]): Record<string, RawValue> {
  return Object.fromEntries(fields.map((field) => [field.name, initialValue(field)]));
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

type Parsed = { value: unknown } | { error: string };

function parseScalar(text: string, type: InputField['type'] | undefined): Parsed {
  switch (type) {
    case 'number':
    case 'integer': {
      const trimmed = text.trim();
      if (!NUMBER.test(trimmed))
        return { error: type === 'integer' ? 'must be a whole number' : 'must be a number' };
      return { value: Number(trimmed) };
    }
    case 'boolean':
      if (text.trim() === 'true') return { value: true };
      if (text.trim() === 'false') return { value: false };
      return { error: 'must be true or false' };
    case 'object':
    case 'any':
      try {
        return { value: JSON.parse(text) as unknown };
      } catch {
        return type === 'any' ? { value: text } : { error: 'must be JSON, such as {"key": "value"}' };
      }
    default:
      return { value: text };
  }
}

/** One field's text → its value (`undefined`: left empty, so absent). */
export function parseField(field: InputField, raw: RawValue): Parsed {
  if (field.type === 'boolean') return { value: raw === true };
  const text = typeof raw === 'string' ? raw : String(raw);
  if (field.type === 'list') {
    const items = text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    if (items.length === 0) return { value: field.required ? [] : undefined };
    const values: unknown[] = [];
    for (const [i, item] of items.entries()) {
      const parsed = parseScalar(item, field.element === 'enum' ? 'string' : field.element);
      if ('error' in parsed) return { error: `line ${i + 1} ${parsed.error}` };
      values.push(parsed.value);
    }
    return { value: values };
  }
  // An empty text field is absent (the server fills a default in, or says the input is required); a
  // string that is only spaces is a value.
  if (text === '') return { value: undefined };
  return parseScalar(text, field.type === 'enum' ? 'string' : field.type);
}

/** The inputs to start with, and the problems beside each field (none: the form may be sent). */
export function readForm(
  fields: readonly InputField[],
  raw: Record<string, RawValue>,
  schema: Schema | undefined,
): { inputs: Record<string, unknown>; errors: FieldError[] } {
  const inputs: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const field of fields) {
    const parsed = parseField(field, raw[field.name] ?? initialValue(field));
    if ('error' in parsed) errors.push({ field: field.name, message: parsed.error });
    else if (parsed.value !== undefined) inputs[field.name] = parsed.value;
  }
  const failed = new Set(errors.map((e) => e.field));
  const checked = Object.fromEntries(Object.entries(inputs).filter(([name]) => !failed.has(name)));
  for (const error of validateInputs(checked, schema)) if (!failed.has(error.field)) errors.push(error);
  // Required inputs the schema does not list (a card without a schema) are still required.
  for (const field of fields)
    if (field.required && inputs[field.name] === undefined && !errors.some((e) => e.field === field.name))
      errors.push({ field: field.name, message: 'is required' });
  const order = new Map(fields.map((field, i) => [field.name, i]));
  errors.sort((a, b) => (order.get(a.field) ?? -1) - (order.get(b.field) ?? -1));
  return { inputs, errors };
}

/** `/inputs/repo` (a refusal's field) → `repo`. */
export function fieldOfPointer(pointer: string | undefined): string | undefined {
  const match = /^\/inputs\/([^/]+)/.exec(pointer ?? '');
  return match ? match[1]!.replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
}
