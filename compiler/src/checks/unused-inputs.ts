import type { Check } from '../check-context.js';

/** PB900: an input no expression refers to (warning). */
export const checkUnusedInputs: Check = (context) => {
  const used = new Set<string>();
  for (const info of context.templates)
    for (const ref of info.references) if (ref.kind === 'input') used.add(ref.name);
  for (const input of context.model.inputs) {
    if (!used.has(input.name)) {
      context.report(
        'PB900',
        input.keyRange,
        `input "${input.name}" is never used; refer to it as \${{ inputs.${input.name} }} or remove it`,
      );
    }
  }
};
