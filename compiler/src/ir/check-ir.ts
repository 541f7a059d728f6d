import type { ErrorObject } from 'ajv';
import { MAX_TREE_HEIGHT } from '@kairoku-playbook/grammar';
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
  // Validation and the runtime walk the IR recursively: a hand-made IR nested deeper than any compiled
  // one could be (the parser bounds expressions and types, the YAML reader values) is refused first.
  if (!nestedAtMost(value, MAX_IR_NESTING))
    return {
      ok: false,
      errors: [
        `the IR is nested more than ${MAX_IR_NESTING} levels deep, deeper than any compiled playbook; recompile the playbook`,
      ],
    };
  const validate = validateAgainstIrSchema as StandaloneValidator;
  if (validate(value)) {
    const errors = checkIndices(value as Ir);
    return errors.length ? { ok: false, errors: errors.slice(0, 20) } : { ok: true, ir: value as Ir };
  }
  const errors = (validate.errors ?? [])
    .slice(0, 20)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  return { ok: false, errors };
}

/**
 * The deepest nesting of arrays and objects a compiled IR can have: an expression level is at most two
 * (a call and its `args`), a type's JSON Schema three (`anyOf`, its list, the member), a default value one
 * (the YAML reader's depth limit is lower than the trees'), and the IR around them a few.
 */
export const MAX_IR_NESTING = 3 * MAX_TREE_HEIGHT + 64;

/** Whether `value` nests arrays and objects at most `limit` deep, found without recursion. */
function nestedAtMost(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return false;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return true;
}

/**
 * What the schema cannot say: step indices point at steps, and a loop's reset region is ascending
 * ranges that hold its target (a hand-edited `[0, 1e9]` would otherwise make a loop walk a billion steps).
 */
function checkIndices(ir: Ir): string[] {
  const errors: string[] = [];
  const count = ir.steps.length;
  ir.steps.forEach((step, position) => {
    for (const need of step.needs)
      if (need >= position) errors.push(`/steps/${position}/needs: ${need} is not a step before this one`);
    step.outcomes.forEach((outcome, o) => {
      const transition = outcome.transition;
      if (transition.kind !== 'loop') return;
      const at = `/steps/${position}/outcomes/${o}/transition`;
      if (transition.target >= count) errors.push(`${at}/target: there is no step ${transition.target}`);
      let previous = -2;
      let holdsTarget = false;
      for (const [first, last] of transition.reset) {
        if (first <= previous + 1 || last < first || last >= count) {
          errors.push(
            `${at}/reset: [${first}, ${last}] is not an ascending range of steps apart from the one before`,
          );
          return;
        }
        if (first <= transition.target && transition.target <= last) holdsTarget = true;
        previous = last;
      }
      if (!holdsTarget)
        errors.push(`${at}/reset: the region does not hold the loop's target ${transition.target}`);
    });
  });
  return errors;
}
