import type { Check } from '../check-context.js';
import { isValidName, unboundMentions } from './unparsed-references.js';
import { shown } from '../diagnostic.js';

/** PB901: a step output that no expression reads (info): the manager sees it, but nothing downstream does. */
export const checkUnusedOutputs: Check = (context) => {
  const used = new Set<string>();
  for (const info of context.templates) {
    for (const ref of info.references) if (ref.kind === 'output') used.add(`${ref.step}\u0000${ref.output}`);
  }
  const unused = context.model.steps.flatMap((step) =>
    // Only agent steps declare outputs (elsewhere `outputs` is PB102); an invalid name is PB105 already.
    step.kind === 'check' || step.kind === 'gate'
      ? []
      : step.outputs
          .filter(
            (o) =>
              !used.has(`${step.name}\u0000${o.name}`) &&
              isValidName(o.name) &&
              // a misspelt reference (PB203, PB204) with a did-you-mean meant this step or output
              !context.meant.has(`output\u0000${step.name}\u0000${o.name}`) &&
              !context.meant.has(`step\u0000${step.name}`),
          )
          .map((output) => ({ step, output })),
  );
  if (unused.length === 0) return;
  // One mistake, one diagnostic: a use in a template with a syntax error, or under a misspelt key, counts.
  const mentioned = unboundMentions(context).outputs;
  for (const { step, output } of unused) {
    if (mentioned.has(`${step.name}\u0000${output.name}`)) continue;
    context.report(
      'PB901',
      output.keyRange,
      `output "${shown(output.name)}" of step "${shown(step.name)}" is never referenced`,
    );
  }
};
