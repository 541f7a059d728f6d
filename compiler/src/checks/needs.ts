import { closest } from '@kairoku-playbook/grammar';
import type { Check } from '../check-context.js';
import { replaceFix, shown } from '../diagnostic.js';

/** PB200 unknown step in `needs`, PB208 a step that needs itself. */
export const checkNeeds: Check = (context) => {
  const { model } = context;
  for (const step of model.steps) {
    for (const need of step.needs) {
      if (need.name === step.name) {
        context.report(
          'PB208',
          need.range,
          `step "${shown(step.name)}" needs itself; remove "${shown(need.name)}" from its needs`,
        );
        continue;
      }
      if (model.stepByName.has(need.name)) continue;
      const isAfter = context.isAfterTask(need.name);
      const suggestion = closest(need.name, context.stepNames, step.name);
      const message = isAfter
        ? `unknown step "${shown(need.name)}" in needs: "${shown(need.name)}" is an after-task, and steps cannot need after-tasks`
        : `unknown step "${shown(need.name)}" in needs${suggestion ? `; did you mean "${shown(suggestion)}"?` : ''}`;
      context.report('PB200', need.range, message, { fix: replaceFix(need.range, suggestion) });
    }
  }
};
