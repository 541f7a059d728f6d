import { closest } from '@kairoku-playbook/grammar';
import { replaceFix, shown, shownList } from '../../diagnostic.js';
import type { TestCheck } from '../test-context.js';

/** PB803: a step or after-task the test names that its playbook does not declare. */
export const checkUnknownTestSteps: TestCheck = (context) => {
  for (const site of context.sites) {
    if (site.kind !== 'step' || context.stepNamed(site.name, site.after)) continue;
    const what = site.after ? 'after-task' : 'step';
    const names = (site.after ? context.playbook.after : context.playbook.steps).map((s) => s.name);
    const suggestion = closest(site.name, names);
    context.report(
      'PB803',
      site.range,
      `unknown ${what} "${shown(site.name)}": ${context.playbookName} has no such ${what}${
        suggestion
          ? `; did you mean "${suggestion}"?`
          : names.length
            ? ` (its ${what}s: ${shownList(names)})`
            : ''
      }`,
      { fix: replaceFix(site.range, suggestion) },
    );
  }
};
