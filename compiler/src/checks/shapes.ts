import { isScalar, isSeq } from 'yaml';
import type { Node } from 'yaml';
import type { Check } from '../check-context.js';
import { createDiagnostic, shown } from '../diagnostic.js';
import type { Diagnostic, OffsetRange } from '../diagnostic.js';
import { describeValue, schemaMessage } from '../schema/validate-surface.js';
import type { SchemaProblem } from '../schema/validate-surface.js';
import { nonNull } from '../types/type.js';

/**
 * PB104, a value of the wrong shape or scalar type for its key: here, an input constraint that does not fit
 * the input (`pattern` and `multiline` apply to string inputs, and a pattern must be a valid regular
 * expression; `min`/`max` to numbers, min not above max). Found elsewhere: what the surface schema finds
 * (`shapeFromSchema`) and keys that are not names (`keysNotNames`, found while reading the YAML).
 */
export const checkShapes: Check = (context) => {
  for (const input of context.model.inputs) {
    const base = input.type ? nonNull(input.type).kind : undefined;
    if (input.pattern) {
      try {
        new RegExp(input.pattern.value, 'u');
      } catch (error) {
        const reason =
          error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : 'invalid';
        context.report(
          'PB104',
          context.rangeIn(input.pattern, 0, input.pattern.value.length),
          `pattern of input "${shown(input.name)}" is not a valid regular expression: ${shown(reason, 200)}`,
        );
      }
      if (base && base !== 'string') {
        context.report(
          'PB104',
          context.rangeIn(input.pattern, 0, input.pattern.value.length),
          `"pattern" applies to string inputs; input "${shown(input.name)}" is ${base}`,
        );
      }
    }
    const misplaced = (key: string, applies: boolean, to: string) => {
      const range = input.fieldKeys.get(key);
      if (range && base && !applies) {
        context.report(
          'PB104',
          range,
          `"${shown(key)}" applies to ${to} inputs; input "${shown(input.name)}" is ${base}`,
        );
      }
    };
    misplaced('min', base === 'number' || base === 'integer', 'number and integer');
    misplaced('max', base === 'number' || base === 'integer', 'number and integer');
    misplaced('multiline', base === 'string', 'string');
    if (input.min !== undefined && input.max !== undefined && input.min > input.max) {
      context.report(
        'PB104',
        input.keyRange,
        `input "${shown(input.name)}" has min ${input.min} above its max ${input.max}`,
      );
    }
  }
};

/** A value that reads as a type (`task: string` for `task: { type: string }`). */
const TYPE_LIKE = /^(string|number|integer|boolean|list<.*>|enum\(.*\)|\{.*\})\??$/;

/** PB104 from the surface schema: a value of the wrong type or shape. */
export function shapeFromSchema(problem: SchemaProblem): Diagnostic {
  if (
    problem.kind === 'value' &&
    problem.keyword === 'type' &&
    /^\/inputs\/[^/]+$/.test(problem.pointer) &&
    problem.node &&
    isScalar(problem.node)
  ) {
    const value = problem.node.value;
    return createDiagnostic(
      problem.file,
      'PB104',
      problem.range,
      `${problem.where} must be a mapping such as { type: ${typeof value === 'string' && TYPE_LIKE.test(value) ? value : 'string'} }, not ${describeValue(problem.node)}`,
    );
  }
  if (problem.kind === 'value' && problem.keyword === 'type' && problem.pointer === '')
    return createDiagnostic(problem.file, 'PB104', problem.range, topLevelMessage(problem.node));
  const { message, fix } = schemaMessage(problem);
  return createDiagnostic(problem.file, 'PB104', problem.range, message, { fix });
}

/**
 * A file whose top level is not a mapping. A list is most likely an Ansible playbook (a list of plays),
 * which discovery leaves alone in a bare playbooks/ folder (SPEC §2) but a file named to `check` is
 * checked: the message says what it is and what to do.
 */
function topLevelMessage(node: Node | undefined): string {
  const base = `a playbook is a mapping of keys (version, title, steps, …), not ${describeValue(node)}`;
  return isSeq(node)
    ? `${base}; if this is an Ansible playbook (a list of plays), it is not one of ours: leave it out of the check (discovery leaves it alone in a playbooks/ folder)`
    : base;
}

/** PB104: keys that are a list, a mapping or an alias (the YAML reader left them out of the value). */
export function keysNotNames(
  file: string,
  keys: readonly { range: OffsetRange; what: string }[],
): Diagnostic[] {
  return keys.map(({ range, what }) =>
    createDiagnostic(
      file,
      'PB104',
      range,
      `a key must be a plain name, not ${what}; write the name itself before the ":"`,
    ),
  );
}
