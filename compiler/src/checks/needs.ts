import type { Check } from '../check-context.js';
import { replaceFix, shown } from '../diagnostic.js';
import { isValidName } from '../model/model.js';

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
    const several = severalSteps(need.name);
    if (several && !isAfter) {
      // `needs: plan, review` is one YAML string: the author meant a list.
      const asValue = /:\s*$/.test(
        context.semantic.text.slice(Math.max(0, need.range.start - 40), need.range.start),
      );
      const list = `[${several.join(', ')}]`;
      context.report(
        'PB200',
        need.range,
        `unknown step "${shown(need.name)}" in needs: a YAML list names several steps; write ${asValue ? `needs: ${shown(list)}` : 'each step as an item of its own'}`,
        {
          fix: asValue
            ? { title: `Write the list ${shown(list)}`, edits: [{ range: need.range, newText: list }] }
            : undefined,
        },
      );
      continue;
    }
    const message = isAfter
      ? `unknown step "${shown(need.name)}" in needs: "${shown(need.name)}" is an after-task, and steps cannot need after-tasks`
      : `unknown step "${shown(need.name)}" in needs${need.suggestion ? `; did you mean "${shown(need.suggestion)}"?` : ''}`;
    context.report('PB200', need.range, message, { fix: replaceFix(need.range, need.suggestion) });
  }
};

/** The names of `plan, review` (a string with commas, each part a name), or undefined. */
function severalSteps(text: string): string[] | undefined {
  const parts = text.split(',').map((part) => part.trim());
  return parts.length > 1 && parts.every(isValidName) ? parts : undefined;
}
