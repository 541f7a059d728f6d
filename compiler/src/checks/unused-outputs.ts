import type { Check } from '../check-context.js';
import { shown } from '../diagnostic.js';
import { isValidName } from '../model/model.js';

/** PB901: a step output that no expression reads (info): the manager sees it, but nothing downstream does. */
export const checkUnusedOutputs: Check = (context) => {
  const { semantic } = context;
  const used = new Set<string>();
  for (const template of semantic.templates) {
    for (const ref of template.references)
      if (ref.kind === 'output') used.add(`${ref.step}\u0000${ref.output}`);
  }
  // A misspelt reference (PB203, PB204) with a did-you-mean meant this step or output.
  const meantSteps = new Set<string>();
  for (const ref of semantic.referencesOf('output'))
    if (ref.status === 'unknown' && ref.suggestion) used.add(`${ref.step}\u0000${ref.suggestion}`);
  for (const ref of semantic.referencesOf('step'))
    if (!ref.target && ref.suggestion && !ref.afterTask) meantSteps.add(ref.suggestion);
  const unused = context.model.steps.flatMap((step) =>
    // Only agent steps declare outputs (elsewhere `outputs` is PB102); an invalid name is PB105 already.
    step.kind === 'check' || step.kind === 'gate' || meantSteps.has(step.name)
      ? []
      : step.outputs
          .filter((o) => !used.has(`${step.name}\u0000${o.name}`) && isValidName(o.name))
          .map((output) => ({ step, output })),
  );
  if (unused.length === 0) return;
  // One mistake, one diagnostic: a use in a template with a syntax error, or under a misspelt key, counts.
  const mentioned = semantic.unboundMentions().outputs;
  for (const { step, output } of unused) {
    if (mentioned.has(`${step.name}\u0000${output.name}`)) continue;
    context.report(
      'PB901',
      output.keyRange,
      `output "${shown(output.name)}" of step "${shown(step.name)}" is never referenced`,
    );
  }
};
