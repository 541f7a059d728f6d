import { createDiagnostic } from '../diagnostic.js';
import type { Diagnostic } from '../diagnostic.js';
import { schemaMessage } from '../schema/validate-surface.js';
import type { SchemaProblem } from '../schema/validate-surface.js';

/**
 * PB105: a name (of a step, an input, a role, an output, an outcome, a choice, an after-task, the
 * playbook's id) that does not start with a lowercase letter or uses other characters than a-z, 0-9, `_`,
 * `-` (the surface schema finds it).
 */
export function nameFromSchema(problem: SchemaProblem): Diagnostic {
  if (problem.kind === 'value' && problem.keyword === 'pattern')
    return createDiagnostic(
      problem.file,
      'PB105',
      problem.range,
      `invalid ${problem.where.replace(/^"(.*)"$/, '$1')} ${problem.written}: names start with a lowercase letter and use only a-z, 0-9, "_" and "-"`,
    );
  const { message, fix } = schemaMessage(problem);
  return createDiagnostic(problem.file, 'PB105', problem.range, message, { fix });
}
