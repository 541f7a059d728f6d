import { closest } from '@kairoku-playbook/grammar';
import type { Check } from '../check-context.js';
import { shown } from '../diagnostic.js';

/**
 * PB602: an after-task's `on` must name run statuses it can start on, and `trigger: manual` takes no
 * `on`. (`needs` on an after-task and invalid trigger/on values are found by the schema check with this
 * code.) PB605: an after-task's outcomes never loop: the run has ended.
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
    const on = task.keys.find((k) => k.name === 'on');
    if (task.trigger === 'manual' && on) {
      context.report(
        'PB602',
        on.range,
        `after-task "${shown(task.name)}" has trigger: manual, so "on" never applies: a manual after-task starts only from a button or a command`,
      );
    }
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
