import type { Ir } from '@kairoku-playbook/compiler';
import { checkNamedValues } from './schemas.js';
import { MASK } from './state.js';

/**
 * A run's inputs: checked against the IR's input schema with defaults applied, then split into what
 * the state may hold (secrets masked) and the secret values, which stay in memory.
 */
export function prepareInputs(
  ir: Ir,
  raw: Record<string, unknown>,
): { ok: true; inputs: Record<string, unknown> } | { ok: false; errors: string[] } {
  const inputs = structuredClone(raw);
  const errors = checkNamedValues(ir.inputSchema, inputs, 'input', 'the playbook', true);
  if (!errors.length) errors.push(...blankRequired(ir, inputs));
  return errors.length ? { ok: false, errors } : { ok: true, inputs };
}

/**
 * A required string input must hold something: spaces, tabs and newlines alone are no value (the schema's
 * `minLength` counts them). The panel's start form checks the same (panel/src/form/validate.ts).
 */
function blankRequired(ir: Ir, inputs: Record<string, unknown>): string[] {
  const required = (ir.inputSchema.required ?? []) as string[];
  return required
    .filter((name) => typeof inputs[name] === 'string' && !/\S/.test(inputs[name]))
    .map((name) => `input "${name}" is required and holds only spaces`);
}

export function splitSecrets(
  ir: Ir,
  inputs: Record<string, unknown>,
): { visible: Record<string, unknown>; secrets: Record<string, unknown> } {
  const visible: Record<string, unknown> = { ...inputs };
  const secrets: Record<string, unknown> = {};
  for (const input of ir.inputs) {
    if (!input.secret || !(input.name in inputs)) continue;
    secrets[input.name] = inputs[input.name];
    visible[input.name] = MASK;
  }
  return { visible, secrets };
}

/**
 * A value typed on a command line (`--input NAME=VALUE`) as its input's type wants it: numbers,
 * booleans, lists and objects are read as JSON; strings and enums stay text. A value that does not
 * read stays text, and the schema check then says what is wrong.
 */
export function coerceInput(ir: Ir, name: string, text: string): unknown {
  const schema = (ir.inputSchema.properties as Record<string, Record<string, unknown>> | undefined)?.[name];
  const type = schema?.type ?? (schema?.anyOf as Record<string, unknown>[] | undefined)?.[0]?.type;
  if (type === undefined || type === 'string') return text;
  if (text === 'null' && schema?.anyOf) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
