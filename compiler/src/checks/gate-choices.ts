import type { Check } from '../check-context.js';
import { createDiagnostic, shown } from '../diagnostic.js';
import type { Diagnostic } from '../diagnostic.js';
import type { NameRef } from '../model/model.js';

/**
 * PB600: a gate whose `choices` is present but empty. (A choice given twice is found while reading the
 * YAML: `duplicateChoices`.)
 */
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

/** PB600: the later of two choices of the same name in a gate (the YAML reader found them). */
export function duplicateChoices(file: string, duplicates: readonly NameRef[]): Diagnostic[] {
  return duplicates.map(({ name, range }) =>
    createDiagnostic(file, 'PB600', range, `duplicate choice "${shown(name)}" in this gate`),
  );
}
