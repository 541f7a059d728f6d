import { closest } from '@kairoku-playbook/grammar';
import type { Check } from '../check-context.js';
import { replaceFix, shown } from '../diagnostic.js';
import { FIXED_ROLES } from '../model/model.js';

/** PB500: a role's base must be in the fixed table; a custom role must name one. */
export const checkRoleBase: Check = (context) => {
  for (const role of context.model.roles.values()) {
    if (!role.keyRange) continue;
    const isFixed = (FIXED_ROLES as readonly string[]).includes(role.name);
    if (!role.base) {
      if (!isFixed) {
        context.report(
          'PB500',
          role.keyRange,
          `custom role "${shown(role.name)}" needs a base from the fixed table: ${FIXED_ROLES.join(', ')}`,
        );
      }
      continue;
    }
    if ((FIXED_ROLES as readonly string[]).includes(role.base.name)) {
      if (isFixed && role.base.name !== role.name) {
        context.report(
          'PB500',
          role.base.range,
          `the fixed role "${shown(role.name)}" cannot change its base to "${shown(role.base.name)}"; declare a custom role instead`,
        );
      }
      continue;
    }
    const suggestion = closest(role.base.name, FIXED_ROLES);
    context.report(
      'PB500',
      role.base.range,
      `role base "${shown(role.base.name)}" is not in the fixed table (${FIXED_ROLES.join(', ')})${suggestion ? `; did you mean "${shown(suggestion)}"?` : ''}`,
      { fix: replaceFix(role.base.range, suggestion) },
    );
  }
};
