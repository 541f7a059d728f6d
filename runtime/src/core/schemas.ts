import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { closest } from '@kairoku-playbook/grammar';

/**
 * JSON Schema checks of run inputs and report outputs (SPEC §3.5), with messages that name the input
 * or output and say why. Validators are compiled once per schema object and cached.
 */

const ajv = new Ajv({ allErrors: true, strict: false });
const ajvWithDefaults = new Ajv({ allErrors: true, strict: false, useDefaults: true });
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
    validate = (defaults ? ajvWithDefaults : ajv).compile(schema);
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
