import type { Check } from '../check-context.js';
import { createDiagnostic, shown } from '../diagnostic.js';
import type { Diagnostic } from '../diagnostic.js';
import { schemaMessage } from '../schema/validate-surface.js';
import type { SchemaProblem } from '../schema/validate-surface.js';
import { hasMisspeltKey } from './misspelt-keys.js';

/**
 * PB103: a required key is missing: an agent step's `role` here; the keys the surface schema requires
 * (`missingKeyFromSchema`); everything, in an empty file (`emptyPlaybook`).
 */
export const checkMissingKeys: Check = (context) => {
  for (const step of [...context.model.steps, ...context.model.after]) {
    if (step.role || step.kind !== 'agent') continue;
    // `rol: …` is PB102 with "did you mean "role"?": the missing role is that same mistake.
    // A `role:` that is not a name is PB104 already.
    if (hasMisspeltKey(step, ['role']) || step.keys.some((k) => k.name === 'role')) continue;
    context.report(
      'PB103',
      step.keyRange,
      `agent step "${shown(step.name)}" is missing the required key "role"`,
    );
  }
};

/** PB103 from the surface schema: a key it requires is missing. */
export function missingKeyFromSchema(problem: SchemaProblem): Diagnostic {
  const { message, fix } = schemaMessage(problem);
  return createDiagnostic(problem.file, 'PB103', problem.range, message, { fix });
}

/** PB103 for a file with nothing in it: a playbook needs at least version, title and steps. */
export function emptyPlaybook(file: string): Diagnostic {
  return createDiagnostic(
    file,
    'PB103',
    { start: 0, end: 0 },
    'empty playbook: it needs at least version, title and steps',
  );
}
