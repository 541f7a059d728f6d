import { closest } from '@kairoku-playbook/grammar';
import type { CheckContext } from '../check-context.js';
import type { StepDecl } from '../model/model.js';

/**
 * Whether `ancestor` would be an ancestor of `step` if each misspelt need (PB200 with a did-you-mean)
 * named the step it suggests: then a "not an ancestor" (PB205, PB301) is that same mistake, and is not
 * reported again.
 */
export function ancestorThroughMisspeltNeed(
  context: CheckContext,
  ancestor: StepDecl,
  step: StepDecl,
): boolean {
  const { model } = context;
  const names = model.steps.map((s) => s.name);
  const seen = new Set<StepDecl>([step]);
  const stack = [step];
  let misspelt = false;
  while (stack.length) {
    const current = stack.pop()!;
    for (const need of current.needs) {
      let target = model.stepByName.get(need.name);
      if (!target) {
        const suggestion = closest(
          need.name,
          names.filter((n) => n !== current.name),
        );
        target = suggestion === undefined ? undefined : model.stepByName.get(suggestion);
        if (target) misspelt = true;
      }
      if (!target || seen.has(target)) continue;
      if (target === ancestor) return misspelt;
      seen.add(target);
      stack.push(target);
    }
  }
  return false;
}
