import type { Check } from '../check-context.js';
import { replaceFix, shown, shownList } from '../diagnostic.js';

/** PB204: `steps.S.outputs.NAME` (or `report.outputs.NAME`) where step S has no output NAME. */
export const checkUnknownOutputs: Check = (context) => {
  for (const reference of context.semantic.referencesOf('output')) {
    if (reference.status !== 'unknown') continue;
    const { range, suggestion, candidates } = reference;
    const has = candidates.length ? `; it has ${shownList(candidates)}` : '; it declares no outputs';
    context.report(
      'PB204',
      range,
      `step "${shown(reference.step)}" has no output "${shown(reference.output)}"${suggestion ? `; did you mean "${shown(suggestion)}"?` : has}`,
      { fix: replaceFix(range, suggestion) },
    );
  }
};
