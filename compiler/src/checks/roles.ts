import { closest } from '@kairoku-playbook/grammar';
import type { Check } from '../check-context.js';
import { replaceFix, shown, shownList } from '../diagnostic.js';
import { hasMisspeltKey } from './misspelt-keys.js';

/** PB201: an agent step (or after-task) names a role that is neither in the fixed table nor declared. */
export const checkRoles: Check = (context) => {
  const { model } = context;
  const known = [...model.roles.keys()];
  for (const step of [...model.steps, ...model.after]) {
    if (!step.role) {
      // `rol: …` is PB102 with "did you mean "role"?": the missing role is that same mistake.
      // A `role:` that is not a name is PB104 already.
      if (step.kind !== 'agent' || hasMisspeltKey(step, ['role']) || step.keys.some((k) => k.name === 'role'))
        continue;
      context.report(
        'PB103',
        step.keyRange,
        `agent step "${shown(step.name)}" is missing the required key "role"`,
      );
      continue;
    }
    if (model.roles.has(step.role.name)) continue;
    const suggestion = closest(step.role.name, known);
    context.report(
      'PB201',
      step.role.range,
      `unknown role "${shown(step.role.name)}"${suggestion ? `; did you mean "${shown(suggestion)}"?` : `; declare it under roles or use one of ${shownList(known)}`}`,
      { fix: replaceFix(step.role.range, suggestion) },
    );
  }
};
