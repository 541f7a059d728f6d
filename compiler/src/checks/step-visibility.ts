import type { Check } from '../check-context.js';
import { shown } from '../diagnostic.js';

/**
 * PB205: `steps.S` where S may not have run yet: S is not an ancestor of the step that reads it (or is that
 * step itself, outside its own transitions).
 */
export const checkStepVisibility: Check = (context) => {
  const { scopes } = context.semantic;
  for (const reference of context.semantic.referencesOf('step')) {
    if (!reference.target || reference.visible) continue;
    const step = reference.target;
    const owner = reference.template.scope.owner!;
    // (a step reached only through a misspelt need is that need's PB200, not a second mistake)
    if (scopes.ancestorThroughMisspeltNeed(step, owner)) continue;
    const message =
      step === owner
        ? `step "${shown(owner.name)}" cannot read its own results before it has run; use report.* in its outcomes`
        : `step "${shown(step.name)}" is not an ancestor of "${shown(owner.name)}", so it may not have run yet; add it to needs`;
    context.report('PB205', reference.range, message, {
      related: [context.related(step.keyRange, `"${shown(step.name)}" is declared here`)],
    });
  }
};
