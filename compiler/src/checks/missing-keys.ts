import type { Check } from '../check-context.js';
import { createDiagnostic, shown } from '../diagnostic.js';
import type { Diagnostic } from '../diagnostic.js';
import { schemaMessage } from '../schema/validate-surface.js';
import type { SchemaProblem } from '../schema/validate-surface.js';
import { FIXED_ROLES } from '../model/model.js';
import { hasMisspeltKey, hasMisspeltRoleKey } from './misspelt-keys.js';

/**
 * PB103: a required key is missing: an agent step's `role` and a custom role's `base` (SPEC §3.4: "required
 * otherwise") here; the keys the surface schema requires (`missingKeyFromSchema`); everything, in an empty
 * file (`emptyPlaybook`).
 */
export const checkMissingKeys: Check = (context) => {
  for (const role of context.model.roles.values()) {
    // A fixed-table role's base defaults to itself; a role that is not a mapping is PB104 already.
    if (!role.keyRange || !role.isMapping || (FIXED_ROLES as readonly string[]).includes(role.name)) continue;
    // `base: 3` is PB104, `bas: reviewer` PB102 with "did you mean "base"?": the same mistake.
    if (role.keys.some((k) => k.name === 'base') || hasMisspeltRoleKey(role, ['base'])) continue;
    context.report(
      'PB103',
      role.keyRange,
      `custom role "${shown(role.name)}" is missing the required key "base": one of the fixed table, ${FIXED_ROLES.join(', ')}`,
    );
  }
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
