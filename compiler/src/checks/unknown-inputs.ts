import type { Check } from '../check-context.js';
import { replaceFix, shown } from '../diagnostic.js';

/** PB202: `inputs.NAME` where the playbook declares no input NAME. */
export const checkUnknownInputs: Check = (context) => {
  for (const reference of context.semantic.referencesOf('input')) {
    if (reference.target) continue;
    const { suggestion, range } = reference;
    context.report(
      'PB202',
      range,
      `unknown input "${shown(reference.name)}"${suggestion ? `; did you mean "${shown(suggestion)}"?` : ''}`,
      { fix: replaceFix(range, suggestion) },
    );
  }
};
