/**
 * The start form's values checked against the IR's JSON Schema of the inputs, in the page, before the
 * server checks them again with the same schema. A small validator of the keywords the compiler emits
 * (type, enum, const, properties, required, additionalProperties, items, minimum, maximum, exclusive
 * bounds, lengths, pattern, anyOf, oneOf) rather than ajv: ajv compiles schemas with `new Function`, which
 * the page's CSP (`default-src 'self'`, no 'unsafe-eval') forbids. Keywords it does not know it ignores:
 * the server has the last word.
 */

export type Schema = Record<string, unknown> | boolean;

/** One problem with one field: `field` is the input's name ('' for the whole form). */
export interface FieldError {
  field: string;
  message: string;
}

const typeOf = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : Number.isInteger(value)
        ? 'integer'
        : typeof value;

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  if (type === 'number') return actual === 'number' || actual === 'integer';
  return actual === type;
}

const show = (value: unknown) => (typeof value === 'string' ? `"${value}"` : JSON.stringify(value));

/** Problems of `value` under `schema`, the first one per place; `path` names where it is. */
function check(value: unknown, schema: Schema, path: string): string[] {
  if (schema === true) return [];
  if (schema === false) return [path ? `${path}: is not allowed` : 'is not allowed'];
  const s = schema;
  const where = path ? `${path}: ` : '';
  const first =
    typeProblem(value, s, where) ??
    (typeof value === 'number' ? numberProblem(value, s, where) : undefined) ??
    (typeof value === 'string' ? stringProblem(value, s, where) : undefined);
  if (first !== undefined) return [first];
  const nested = Array.isArray(value)
    ? arrayProblems(value, s, path, where)
    : typeOf(value) === 'object'
      ? objectProblems(value as Record<string, unknown>, s, path)
      : [];
  return nested.length ? nested : choiceProblems(value, s, path, where);
}

function typeProblem(value: unknown, s: Exclude<Schema, boolean>, where: string): string | undefined {
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    if (!types.some((t) => matchesType(value, t))) {
      const wanted = types.map((t) => (t === 'integer' ? 'a whole number' : t === 'number' ? 'a number' : t));
      return `${where}must be ${wanted.join(' or ')}`;
    }
  }
  if (Array.isArray(s.enum) && !s.enum.some((choice) => JSON.stringify(choice) === JSON.stringify(value)))
    return `${where}must be one of ${s.enum.map(show).join(', ')}`;
  if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(value))
    return `${where}must be ${show(s.const)}`;
  return undefined;
}

function numberProblem(value: number, s: Exclude<Schema, boolean>, where: string): string | undefined {
  if (typeof s.minimum === 'number' && value < s.minimum) return `${where}must be at least ${s.minimum}`;
  if (typeof s.maximum === 'number' && value > s.maximum) return `${where}must be at most ${s.maximum}`;
  if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum)
    return `${where}must be more than ${s.exclusiveMinimum}`;
  if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum)
    return `${where}must be less than ${s.exclusiveMaximum}`;
  return undefined;
}

function stringProblem(value: string, s: Exclude<Schema, boolean>, where: string): string | undefined {
  const length = [...value].length;
  if (typeof s.minLength === 'number' && length < s.minLength)
    return s.minLength === 1
      ? `${where}must not be empty`
      : `${where}must be at least ${s.minLength} characters`;
  if (typeof s.maxLength === 'number' && length > s.maxLength)
    return `${where}must be at most ${s.maxLength} characters`;
  if (typeof s.pattern === 'string') {
    let pattern: RegExp | undefined;
    try {
      pattern = new RegExp(s.pattern, 'u');
    } catch {
      pattern = undefined; // a pattern this browser cannot read: the server checks it
    }
    if (pattern && !pattern.test(value)) return `${where}must match ${s.pattern}`;
  }
  return undefined;
}

function arrayProblems(value: unknown[], s: Exclude<Schema, boolean>, path: string, where: string): string[] {
  if (typeof s.minItems === 'number' && value.length < s.minItems)
    return [`${where}must have at least ${s.minItems} item${s.minItems === 1 ? '' : 's'}`];
  if (typeof s.maxItems === 'number' && value.length > s.maxItems)
    return [`${where}must have at most ${s.maxItems} items`];
  if (s.items !== undefined && !Array.isArray(s.items)) {
    for (const [i, item] of value.entries()) {
      const found = check(item, s.items as Schema, `${path}[${i + 1}]`);
      if (found.length) return found;
    }
  }
  return [];
}

function objectProblems(
  object: Record<string, unknown>,
  s: Exclude<Schema, boolean>,
  path: string,
): string[] {
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const problems: string[] = [];
  for (const name of (s.required ?? []) as string[]) {
    const at = `${path ? `${path}.` : ''}${name}`;
    if (object[name] === undefined) problems.push(`${at}: is required`);
    // spaces alone are no value (the server refuses them too: machine/src/core/inputs.ts)
    else if (!path && typeof object[name] === 'string' && !/\S/.test(object[name]))
      problems.push(`${at}: is required: spaces alone are not a value`);
  }
  for (const [name, item] of Object.entries(object)) {
    if (item === undefined) continue;
    const sub = properties[name] ?? (s.additionalProperties as Schema | undefined) ?? true;
    problems.push(...check(item, sub, path ? `${path}.${name}` : name));
  }
  return problems;
}

function choiceProblems(value: unknown, s: Exclude<Schema, boolean>, path: string, where: string): string[] {
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const options = s[keyword];
    if (!Array.isArray(options)) continue;
    const passing = options.filter((option) => check(value, option as Schema, path).length === 0).length;
    if (passing === 0 || (keyword === 'oneOf' && passing > 1)) {
      const first = check(value, options[0] as Schema, path);
      return first.length ? first : [`${where}does not fit`];
    }
  }
  return [];
}

/**
 * The problems of a start form's inputs, one per field at most, beside the field they belong to. Inputs
 * that are `undefined` are absent (a field left empty that has no default).
 */
export function validateInputs(inputs: Record<string, unknown>, schema: Schema | undefined): FieldError[] {
  if (schema === undefined) return [];
  const errors = new Map<string, string>();
  for (const problem of check(inputs, schema, '')) {
    const colon = problem.indexOf(': ');
    const place = colon < 0 ? '' : problem.slice(0, colon);
    const field = place.split(/[.[]/)[0] ?? '';
    const message = colon < 0 ? problem : problem.slice(colon + 2);
    if (!errors.has(field))
      errors.set(field, field === place ? message : `${place.slice(field.length)}: ${message}`);
  }
  return [...errors].map(([field, message]) => ({ field, message }));
}
