import type { Check } from '../check-context.js';
import { replaceFix, shown, shownList } from '../diagnostic.js';

/** PB201: an agent step (or after-task) names a role that is neither in the fixed table nor declared. */
export const checkRoles: Check = (context) => {
  const known = [...context.model.roles.keys()];
  for (const role of context.semantic.referencesOf('role')) {
    if (role.target) continue;
    context.report(
      'PB201',
      role.range,
      `unknown role "${shown(role.name)}"${role.suggestion ? `; did you mean "${shown(role.suggestion)}"?` : `; declare it under roles or use one of ${shownList(known)}`}`,
      { fix: replaceFix(role.range, role.suggestion) },
    );
  }
};
