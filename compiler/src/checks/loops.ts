import type { Check } from '../check-context.js';
import { createDiagnostic, replaceFix, shown } from '../diagnostic.js';
import type { Diagnostic } from '../diagnostic.js';
import type { SchemaProblem } from '../schema/validate-surface.js';
import { schemaMessage } from '../schema/validate-surface.js';

/**
 * PB207 unknown loop target; PB301 a loop target that is neither the step nor one of its ancestors. (A
 * loop's `max` out of range, PB302, is found by the surface schema: `loopMaxFromSchema`.)
 */
export const checkLoops: Check = (context) => {
  const { graph, scopes } = context.semantic;
  for (const loop of context.semantic.referencesOf('loop-target')) {
    // (an after-task's loop is PB605)
    if (loop.from.isAfter) continue;
    const step = loop.from;
    const target = loop.target;
    if (!target) {
      context.report(
        'PB207',
        loop.range,
        `unknown loop target "${shown(loop.name)}"${loop.suggestion ? `; did you mean "${shown(loop.suggestion)}"?` : ''}`,
        { fix: replaceFix(loop.range, loop.suggestion) },
      );
      continue;
    }
    if (graph.onCycle.has(step.index)) continue;
    if (
      target !== step &&
      !graph.isAncestor(target.index, step.index) &&
      !scopes.ancestorThroughMisspeltNeed(target, step)
    ) {
      context.report(
        'PB301',
        loop.range,
        `loop target "${shown(target.name)}" is not "${shown(step.name)}" or one of its ancestors: a loop can only go back up the graph`,
        { related: [context.related(target.keyRange, `"${shown(target.name)}" is declared here`)] },
      );
    }
  }
};

/** PB302: a loop's `max` outside the range the surface schema allows. */
export function loopMaxFromSchema(problem: SchemaProblem): Diagnostic {
  const { message, fix } = schemaMessage(problem);
  return createDiagnostic(problem.file, 'PB302', problem.range, message, { fix });
}
