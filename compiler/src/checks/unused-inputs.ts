import type { Check } from '../check-context.js';
import { shown } from '../diagnostic.js';
import { isValidName } from '../model/model.js';

/** PB900: an input no expression refers to (warning). */
export const checkUnusedInputs: Check = (context) => {
  const { semantic } = context;
  const used = new Set<string>();
  for (const template of semantic.templates)
    for (const ref of template.references) if (ref.kind === 'input') used.add(ref.name);
  // (a misspelt `inputs.tsk` is PB202 with "did you mean "task"?": "task" was meant to be used)
  for (const ref of semantic.referencesOf('input'))
    if (!ref.target && ref.suggestion) used.add(ref.suggestion);
  const unused = context.model.inputs.filter((input) => !used.has(input.name) && isValidName(input.name));
  if (unused.length === 0) return;
  // One mistake, one diagnostic: a use in a template with a syntax error, or under a misspelt key, counts.
  const mentioned = semantic.unboundMentions().inputs;
  for (const input of unused) {
    if (mentioned.has(input.name)) continue;
    context.report(
      'PB900',
      input.keyRange,
      `input "${shown(input.name)}" is never used; refer to it as \${{ inputs.${shown(input.name)} }} or remove it`,
    );
  }
};
