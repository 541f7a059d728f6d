import type { ContextReference } from '../bind/references.js';
import type { Check } from '../check-context.js';
import { shown } from '../diagnostic.js';

/**
 * PB210: `loop.count` or `loop.feedback` (or a bare `loop`) in a step no loop goes back to. SPEC §3.6 puts
 * them in the target step's templates: elsewhere `loop.count` would always be 0 and `loop.feedback` empty,
 * which is never what the author meant. (`loop` where no step owns the template, in an after-task or the
 * playbook's own title, labels and outputs, is PB209.)
 */
export const checkLoopScope: Check = (context) => {
  for (const reference of context.semantic.referencesOf('context')) {
    if (!isLoopOutsideTarget(reference)) continue;
    const owner = reference.template.scope.owner!;
    context.report(
      'PB210',
      reference.range,
      `loop.* exists only in a step a loop goes back to, and no loop goes back to step "${shown(owner.name)}"`,
    );
  }
};

/** `loop` read in a step that is not an after-task, where it does not exist: no loop goes back to the step. */
export function isLoopOutsideTarget(reference: ContextReference): boolean {
  const owner = reference.template.scope.owner;
  return !reference.visible && reference.name === 'loop' && owner !== undefined && !owner.isAfter;
}
