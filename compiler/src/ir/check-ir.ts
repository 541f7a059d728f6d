import type { ErrorObject } from 'ajv';
import { validate as validateAgainstIrSchema } from '../generated/ir-validator.js';
import { IR_VERSION } from './ir.js';
import type { Ir } from './ir.js';

interface StandaloneValidator {
  (value: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/**
 * Checks a value against the IR's JSON Schema before anything runs it. A wrong `ir` version is named
 * as such, so an old runtime and a new compiler (or the reverse) say what is wrong instead of failing late.
 */
export function checkIr(value: unknown): { ok: true; ir: Ir } | { ok: false; errors: string[] } {
  const version = (value as { ir?: unknown } | null)?.ir;
  if (typeof value !== 'object' || value === null)
    return { ok: false, errors: ['the IR must be a JSON object'] };
  if (version !== IR_VERSION) {
    return {
      ok: false,
      errors: [
        `unsupported IR version ${JSON.stringify(version)}: this runtime reads IR version ${IR_VERSION}; recompile the playbook with this toolchain`,
      ],
    };
  }
  const validate = validateAgainstIrSchema as StandaloneValidator;
  if (validate(value)) return { ok: true, ir: value as Ir };
  const errors = (validate.errors ?? [])
    .slice(0, 20)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  return { ok: false, errors };
}
