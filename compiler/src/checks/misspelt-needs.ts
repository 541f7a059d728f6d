import { closest } from '@kairoku-playbook/grammar';
import type { CheckContext } from '../check-context.js';
import type { StepDecl } from '../model/model.js';

/**
 * Whether `ancestor` would be an ancestor of `step` if each misspelt need (PB200 with a did-you-mean)
 * named the step it suggests: then a "not an ancestor" (PB205, PB301) is that same mistake, and is not
 * reported again.
 */
/** Per check context, what each misspelt need of a step suggests (asked again for every reference). */
const suggestions = new WeakMap<CheckContext, Map<string, StepDecl | undefined>>();

function meantStep(context: CheckContext, need: string, owner: string): StepDecl | undefined {
  let known = suggestions.get(context);
  if (!known) suggestions.set(context, (known = new Map()));
  const key = `${owner}\u0000${need}`;
  if (!known.has(key)) {
    const suggestion = closest(need, context.stepNames, owner);
    known.set(key, suggestion === undefined ? undefined : context.model.stepByName.get(suggestion));
  }
  return known.get(key);
}

export function ancestorThroughMisspeltNeed(
  context: CheckContext,
  ancestor: StepDecl,
  step: StepDecl,
): boolean {
  const { model } = context;
  const seen = new Set<StepDecl>([step]);
  const stack = [step];
  let misspelt = false;
  while (stack.length) {
    const current = stack.pop()!;
    for (const need of current.needs) {
      let target = model.stepByName.get(need.name);
      if (!target) {
        target = meantStep(context, need.name, current.name);
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
