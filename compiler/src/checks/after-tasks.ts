import type { Check } from '../check-context.js';

/**
 * PB602: an after-task's `on` must name run statuses it can start on, and `trigger: manual` takes no
 * `on`. (`needs` on an after-task and invalid trigger/on values are found by the schema check with this
 * code.) PB605: an after-task's outcomes never loop: the run has ended.
 */
export const checkAfterTasks: Check = (context) => {
  for (const task of context.model.after) {
    for (const outcome of task.outcomes) {
      const transition = outcome.transition;
      if (transition?.kind === 'loop' || transition?.kind === 'end') {
        context.report(
          'PB605',
          transition.range,
          `after-task "${task.name}" cannot ${transition.kind === 'loop' ? 'loop' : 'end the run'}: after-tasks run when the run has ended; use next, fail or retry`,
        );
      }
    }
  }
};
