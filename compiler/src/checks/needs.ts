import type { Check } from '../check-context.js';
import { replaceFix, shown } from '../diagnostic.js';

/** PB200 unknown step in `needs`, PB208 a step that needs itself. */
export const checkNeeds: Check = (context) => {
  const { scopes } = context.semantic;
  for (const need of context.semantic.referencesOf('need')) {
    // (`needs` on an after-task is PB602)
    if (need.from.isAfter) continue;
    const step = need.from;
    if (need.self) {
      context.report(
        'PB208',
        need.range,
        `step "${shown(step.name)}" needs itself; remove "${shown(need.name)}" from its needs`,
      );
      continue;
    }
    if (need.target) continue;
    const isAfter = scopes.afterTask(need.name) !== undefined;
    const message = isAfter
      ? `unknown step "${shown(need.name)}" in needs: "${shown(need.name)}" is an after-task, and steps cannot need after-tasks`
      : `unknown step "${shown(need.name)}" in needs${need.suggestion ? `; did you mean "${shown(need.suggestion)}"?` : ''}`;
    context.report('PB200', need.range, message, { fix: replaceFix(need.range, need.suggestion) });
  }
};
