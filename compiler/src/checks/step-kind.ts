import type { Check } from '../check-context.js';
import { hasMisspeltKey } from './misspelt-keys.js';
import { shown } from '../diagnostic.js';

/** PB107: a step is exactly one of an agent step (`prompt`), a check step (`run`) or a gate (`gate`). */
export const checkStepKind: Check = (context) => {
  for (const step of [...context.model.steps, ...context.model.after]) {
    // A step that is not a mapping was reported by the schema check (PB104): one mistake, one diagnostic.
    if (step.kind || !step.isMapping) continue;
    const what = step.isAfter ? `after-task "${shown(step.name)}"` : `step "${shown(step.name)}"`;
    const [first, second] = step.kindKeys;
    if (!first) {
      // `promt: …` is PB102 with "did you mean "prompt"?": the missing kind is that same mistake.
      if (hasMisspeltKey(step, step.isAfter ? ['prompt', 'run'] : ['prompt', 'run', 'gate'])) continue;
      // `gate:` on an after-task is PB102 (after-tasks are agent or check steps): that same mistake.
      if (step.isAfter && step.keys.some((k) => k.name === 'gate')) continue;
      const keys = step.isAfter
        ? '"prompt" (an agent) or "run" (a check)'
        : '"prompt" (an agent), "run" (a check) or "gate" (a human gate)';
      context.report('PB107', step.keyRange, `${what} has no kind: give it exactly one of ${keys}`);
    } else if (second) {
      context.report(
        'PB107',
        second.range,
        `${what} has both "${shown(first.name)}" and "${shown(second.name)}": a step is exactly one kind`,
      );
    }
  }
};
