import type { Check } from '../check-context.js';

/** PB107: a step is exactly one of an agent step (`prompt`), a check step (`run`) or a gate (`gate`). */
export const checkStepKind: Check = (context) => {
  for (const step of [...context.model.steps, ...context.model.after]) {
    if (step.kind) continue;
    const what = step.isAfter ? `after-task "${step.name}"` : `step "${step.name}"`;
    const [first, second] = step.kindKeys;
    if (!first) {
      const keys = step.isAfter
        ? '"prompt" (an agent) or "run" (a check)'
        : '"prompt" (an agent), "run" (a check) or "gate" (a human gate)';
      context.report('PB107', step.keyRange, `${what} has no kind: give it exactly one of ${keys}`);
    } else if (second) {
      context.report(
        'PB107',
        second.range,
        `${what} has both "${first.name}" and "${second.name}": a step is exactly one kind`,
      );
    }
  }
};
