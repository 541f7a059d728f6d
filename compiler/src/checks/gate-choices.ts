import type { Check } from '../check-context.js';
import { shown } from '../diagnostic.js';

/** PB600: a gate whose `choices` is present but empty (duplicate choices are found while reading the YAML). */
export const checkGateChoices: Check = (context) => {
  for (const step of context.model.steps) {
    if (step.kind !== 'gate' || step.outcomes.length > 0 || !step.outcomesDeclared) continue;
    context.report(
      'PB600',
      step.gate?.range ?? step.keyRange,
      `gate "${shown(step.name)}" has no choices; give it at least one, or leave out "choices" for approve and reject`,
    );
  }
};
