import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { closest } from '@kairoku-playbook/grammar';

/**
 * JSON Schema checks of run inputs and report outputs (SPEC §3.5), with messages that name the input
 * or output and say why. Validators are compiled once per schema object and cached.
 */

/** The two Ajv instances, built on first use: a command that validates nothing (a cold `check` of a
 * playbook that declares no input schema) does not pay for them. */
let instances: [Ajv, Ajv] | undefined;
function ajvOf(defaults: boolean): Ajv {
  instances ??= [
    new Ajv({ allErrors: true, strict: false }),
    new Ajv({ allErrors: true, strict: false, useDefaults: true }),
  ];
  return instances[defaults ? 1 : 0];
}
/** by schema object, then by schema text: the steps of a big playbook share a few distinct schemas */
const byObject = [new WeakMap<object, ValidateFunction>(), new WeakMap<object, ValidateFunction>()];
const byText = [new Map<string, ValidateFunction>(), new Map<string, ValidateFunction>()];

function validator(schema: Record<string, unknown>, defaults: boolean): ValidateFunction {
  const which = defaults ? 1 : 0;
  let validate = byObject[which]!.get(schema);
  if (validate) return validate;
  const text = JSON.stringify(schema);
  validate = byText[which]!.get(text);
  if (!validate) {
    validate = ajvOf(defaults).compile(schema);
    byText[which]!.set(text, validate);
  }
  byObject[which]!.set(schema, validate);
  return validate;
}

/**
 * Checks values against an object schema whose properties are named things (inputs, outputs).
 * `what` names them in messages (`input "reviewers" must be <= 3`), `declarer` their owner
 * (`the playbook declares task, strict`). With `defaults`, missing values
 * take their schema defaults (the object is changed in place).
 */
export function checkNamedValues(
  schema: Record<string, unknown>,
  values: Record<string, unknown>,
  what: string,
  declarer: string,
  defaults = false,
): string[] {
  const forbidden = forbiddenKey(values);
  if (forbidden) {
    const [name] = forbidden.path;
    if (forbidden.kind === 'key' && forbidden.path.length === 1)
      return [`"__proto__" is not a valid ${what} name; ${PROTO_ADVICE}`];
    return [`${name === undefined ? `the ${what}s` : `${what} "${name}"`}: ${describeForbidden(forbidden)}`];
  }
  const properties = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
  const errors: string[] = [];
  for (const name of Object.keys(values)) {
    if (properties.includes(name)) continue;
    const suggestion = closest(name, properties);
    const declared = properties.length ? `declares ${properties.join(', ')}` : `declares no ${what}s`;
    errors.push(
      `unknown ${what} "${name}"${suggestion ? `; did you mean "${suggestion}"?` : ''} (${declarer} ${declared})`,
    );
  }
  if (errors.length) return errors;
  const validate = validator(schema, defaults);
  if (validate(values)) return [];
  return describeErrors(validate.errors ?? [], what);
}

function describeErrors(errors: ErrorObject[], what: string): string[] {
  const messages = new Set<string>();
  // A nullable type fails both branches of its anyOf; the branch errors say more than "anyOf".
  const hasDetail = (path: string) => errors.some((e) => e.instancePath === path && e.keyword !== 'anyOf');
  for (const error of errors) {
    if (error.keyword === 'anyOf' && hasDetail(error.instancePath)) continue;
    if (error.keyword === 'type' && error.params.type === 'null') continue;
    if (error.keyword === 'required') {
      messages.add(`${what} "${String(error.params.missingProperty)}" is required`);
      continue;
    }
    const [, name, ...rest] = error.instancePath.split('/');
    const subject = name ? `${what} "${name}"${rest.length ? ` at /${rest.join('/')}` : ''}` : `the ${what}s`;
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'enum') {
      const allowed = (error.params.allowedValues as unknown[]).map((v) => String(v)).join(', ');
      message = `must be one of ${allowed}`;
    }
    messages.add(`${subject} ${message}`);
  }
  return [...messages];
}

const PROTO_ADVICE =
  'keys named __proto__ are refused (they would rewrite the prototype of an object that copies them)';

/** What `forbiddenKey` found: where (keys and indexes from the root), and what is wrong there. */
export interface ForbiddenKey {
  /** a key named `__proto__` (the last part of `path`), or an object that is not plain data */
  kind: 'key' | 'object';
  path: (string | number)[];
}

/** A sentence for what `forbiddenKey` found: `a key named "__proto__" at inputs.config.__proto__ is refused (…)`. */
export function describeForbidden(found: ForbiddenKey, root?: string): string {
  const path = jsonPathText(root === undefined ? found.path : [root, ...found.path]);
  return found.kind === 'key'
    ? `a key named "__proto__" at ${path} is refused: ${PROTO_ADVICE}`
    : `the value at ${path || 'the top'} is not plain data (an object with a prototype of its own); send JSON values`;
}

/**
 * The first key named `__proto__` in a value parsed from outside (JSON, YAML), or an object in it that is
 * not plain data (its prototype is neither Object.prototype nor null). JSON.parse and the yaml package
 * make `__proto__` an own property, harmless in itself; but code that copies the value by assignment
 * (`copy[key] = value`, Object.assign, a deep merge) would set the copy's prototype instead, and zod drops
 * the key without a word. So it is refused where input enters: run inputs, report outputs, scenarios,
 * MCP messages and HTTP bodies. Walks without recursion (a deeply nested value cannot overflow the stack).
 */
export function forbiddenKey(value: unknown): ForbiddenKey | undefined {
  // Each entry links to its parent, so a path is built only for what is found (deep values stay linear).
  interface Entry {
    item: unknown;
    key: string | number | undefined;
    parent: Entry | undefined;
  }
  const pathOf = (entry: Entry, last?: string): (string | number)[] => {
    const path: (string | number)[] = last === undefined ? [] : [last];
    for (let at: Entry | undefined = entry; at?.key !== undefined; at = at.parent) path.unshift(at.key);
    return path;
  };
  const stack: Entry[] = [{ item: value, key: undefined, parent: undefined }];
  const seen = new Set<object>();
  while (stack.length) {
    const entry = stack.pop()!;
    const item = entry.item;
    if (typeof item !== 'object' || item === null || seen.has(item)) continue;
    seen.add(item);
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push({ item: item[i], key: i, parent: entry });
      continue;
    }
    const prototype: unknown = Object.getPrototypeOf(item);
    if (prototype !== Object.prototype && prototype !== null) return { kind: 'object', path: pathOf(entry) };
    const keys = Object.keys(item);
    if (keys.includes('__proto__')) return { kind: 'key', path: pathOf(entry, '__proto__') };
    for (let i = keys.length - 1; i >= 0; i--)
      stack.push({ item: (item as Record<string, unknown>)[keys[i]!], key: keys[i]!, parent: entry });
  }
  return undefined;
}

/** A path as it reads in a message: `steps.qa[0].outputs.__proto__`. */
export function jsonPathText(path: readonly (string | number)[]): string {
  return path
    .map((part, i) =>
      typeof part === 'number'
        ? `[${part}]`
        : /^[A-Za-z_$][\w$-]*$/.test(part)
          ? `${i ? '.' : ''}${part}`
          : `[${JSON.stringify(part)}]`,
    )
    .join('');
}
