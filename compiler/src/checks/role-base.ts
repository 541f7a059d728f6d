import type { Check } from '../check-context.js';
import { replaceFix, shown } from '../diagnostic.js';
import { FIXED_ROLES } from '../model/model.js';

/**
 * PB500: a role's base must be in the fixed table, and a fixed role keeps its own. A custom role without
 * `base` is a missing key (PB103, missing-keys.ts).
 */
export const checkRoleBase: Check = (context) => {
  for (const base of context.semantic.referencesOf('role-base')) {
    const role = base.from;
    if (base.target) {
      const isFixed = (FIXED_ROLES as readonly string[]).includes(role.name);
      if (isFixed && base.target !== role.name) {
        context.report(
          'PB500',
          base.range,
          `the fixed role "${shown(role.name)}" cannot change its base to "${shown(base.name)}"; declare a custom role instead`,
        );
      }
      continue;
    }
    context.report(
      'PB500',
      base.range,
      `role base "${shown(base.name)}" is not in the fixed table (${FIXED_ROLES.join(', ')})${base.suggestion ? `; did you mean "${shown(base.suggestion)}"?` : ''}`,
      { fix: replaceFix(base.range, base.suggestion) },
    );
  }
};
