import { closest } from '@kairoku-playbook/grammar';
import type { Check } from '../check-context.js';
import { createDiagnostic, shown } from '../diagnostic.js';
import type { Diagnostic } from '../diagnostic.js';
import { quoteLast, schemaMessage } from '../schema/validate-surface.js';
import type { SchemaProblem } from '../schema/validate-surface.js';

/**
 * PB602: an after-task's `on` must name run statuses it can start on. On a `trigger: manual` task `on` says
 * which ended runs offer its Start (SPEC §3.3), so it is allowed there too.
 * `needs` on an after-task and invalid trigger/on values are found by the surface schema
 * (`afterTaskFromSchema`).
 */
export const checkAfterTasks: Check = (context) => {
  for (const task of context.model.after) {
    if (task.onValue && task.onValue.name !== 'completed' && task.onValue.name !== 'failed') {
      const suggestion = closest(task.onValue.name, ['completed', 'failed']);
      context.report(
        'PB602',
        task.onValue.range,
        `invalid value "${shown(task.onValue.name)}" for "on" of after-task "${shown(task.name)}"; expected "completed" or "failed"${suggestion ? ` (did you mean "${shown(suggestion)}"?)` : ''}`,
      );
    }
  }
};

/** PB602 from the surface schema: `needs` on an after-task, an invalid `trigger` or `on`. */
export function afterTaskFromSchema(problem: SchemaProblem): Diagnostic {
  if (problem.kind === 'unknown-key' && problem.key === 'needs')
    return createDiagnostic(
      problem.file,
      'PB602',
      problem.range,
      `after-task ${quoteLast(problem.pointer)} cannot have needs: after-tasks start when the run ends`,
    );
  const { message, fix } = schemaMessage(problem);
  return createDiagnostic(problem.file, 'PB602', problem.range, message, { fix });
}
