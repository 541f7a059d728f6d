import type { Check } from '../check-context.js';

/** PB901: a step output that no expression reads (info): the manager sees it, but nothing downstream does. */
export const checkUnusedOutputs: Check = (context) => {
  const used = new Set<string>();
  for (const info of context.templates) {
    for (const ref of info.references) if (ref.kind === 'output') used.add(`${ref.step}\u0000${ref.output}`);
  }
  for (const step of context.model.steps) {
    for (const output of step.outputs) {
      if (!used.has(`${step.name}\u0000${output.name}`)) {
        context.report(
          'PB901',
          output.keyRange,
          `output "${output.name}" of step "${step.name}" is never referenced`,
        );
      }
    }
  }
};
