import type { Check } from '../check-context.js';
import { isValidName, unboundMentions } from './unparsed-references.js';
import { shown } from '../diagnostic.js';

/** PB900: an input no expression refers to (warning). */
export const checkUnusedInputs: Check = (context) => {
  const used = new Set<string>();
  for (const info of context.templates)
    for (const ref of info.references) if (ref.kind === 'input') used.add(ref.name);
  // (a misspelt `inputs.tsk` is PB202 with "did you mean "task"?": "task" was meant to be used)
  const unused = context.model.inputs.filter(
    (input) =>
      !used.has(input.name) && isValidName(input.name) && !context.meant.has(`input\u0000${input.name}`),
  );
  if (unused.length === 0) return;
  // One mistake, one diagnostic: a use in a template with a syntax error, or under a misspelt key, counts.
  const mentioned = unboundMentions(context).inputs;
  for (const input of unused) {
    if (mentioned.has(input.name)) continue;
    context.report(
      'PB900',
      input.keyRange,
      `input "${shown(input.name)}" is never used; refer to it as \${{ inputs.${shown(input.name)} }} or remove it`,
    );
  }
};
