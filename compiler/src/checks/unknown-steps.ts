import type { Check } from '../check-context.js';
import { replaceFix, shown } from '../diagnostic.js';

/** PB203: `steps.NAME` where no step is called NAME (an after-task's name included: expressions cannot read one). */
export const checkUnknownSteps: Check = (context) => {
  for (const reference of context.semantic.referencesOf('step')) {
    if (reference.target) continue;
    const { range, suggestion, afterTask, step } = reference;
    context.report(
      'PB203',
      range,
      afterTask
        ? `"${shown(step)}" is an after-task; expressions can only refer to steps`
        : `unknown step "${shown(step)}"${suggestion ? `; did you mean "${shown(suggestion)}"?` : ''}`,
      { fix: replaceFix(range, afterTask ? undefined : suggestion) },
    );
  }
};
