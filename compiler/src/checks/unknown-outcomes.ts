import type { Check } from '../check-context.js';
import { replaceLiteralFix, shown, shownList } from '../diagnostic.js';

/** PB206: a string compared with a step's outcome (or a gate's choice) that the step does not declare. */
export const checkUnknownOutcomes: Check = (context) => {
  for (const reference of context.semantic.referencesOf('outcome')) {
    if (reference.enumType.members.includes(reference.outcome)) continue;
    const { enumType, suggestion, range, outcome } = reference;
    const origin = enumType.origin!;
    context.report(
      'PB206',
      range,
      `${origin} has no ${origin.startsWith('gate') ? 'choice' : 'outcome'} "${shown(outcome)}"${suggestion ? `; did you mean "${shown(suggestion)}"?` : `; it has ${shownList(enumType.members)}`}`,
      { fix: replaceLiteralFix(range, suggestion) },
    );
  }
};
