import type { Check } from '../check-context.js';
import { closest } from '@kairoku-playbook/grammar';
import { createDiagnostic, replaceFix, shown } from '../diagnostic.js';
import type { Diagnostic } from '../diagnostic.js';
import { describeValue, enumMessage, schemaMessage } from '../schema/validate-surface.js';
import type { SchemaProblem } from '../schema/validate-surface.js';

/** The outcomes of a check step. */
const CHECK_OUTCOMES = ['pass', 'fail'];

/**
 * PB605 invalid transition: an outcome a check step can never produce (it only passes or fails), an
 * after-task's outcome that loops or ends the run (the run has ended), and a transition the surface schema
 * does not allow (`transitionFromSchema`).
 */
export const checkTransitions: Check = (context) => {
  for (const step of context.model.steps) {
    if (step.kind !== 'check') continue;
    for (const outcome of step.outcomes) {
      if (outcome.keyRange && outcome.name !== 'pass' && outcome.name !== 'fail') {
        // (`failed:` for `fail:`: the did-you-mean, unless the step has that outcome already)
        const near = closest(outcome.name, CHECK_OUTCOMES);
        const suggestion =
          near && !step.outcomes.some((o) => o.keyRange && o.name === near) ? near : undefined;
        context.report(
          'PB605',
          outcome.keyRange,
          `check step "${shown(step.name)}" can only pass or fail; outcome "${shown(outcome.name)}" can never happen${suggestion ? `; did you mean "${suggestion}"?` : ''}`,
          { fix: replaceFix(outcome.keyRange, suggestion) },
        );
      }
    }
  }
  for (const task of context.model.after) {
    for (const outcome of task.outcomes) {
      const transition = outcome.transition;
      if (transition?.kind === 'loop' || transition?.kind === 'end') {
        context.report(
          'PB605',
          transition.range,
          `after-task "${shown(task.name)}" cannot ${transition.kind === 'loop' ? 'loop' : 'end the run'}: after-tasks run when the run has ended; use next, fail or retry`,
        );
      }
    }
  }
};

/** PB605 from the surface schema: a transition that is not next, fail, end, retry or a loop. */
export function transitionFromSchema(problem: SchemaProblem): Diagnostic {
  let { message, fix } = schemaMessage(problem);
  if (problem.kind === 'value' && problem.keyword === 'enum')
    ({ message, fix } = enumMessage(problem, `invalid transition ${problem.written}`));
  else if (problem.kind === 'value' && problem.keyword === 'type')
    message = `invalid transition: expected next, fail, end, retry or a {loop: STEP} object, not ${describeValue(problem.node)}`;
  return createDiagnostic(problem.file, 'PB605', problem.range, message, { fix });
}
