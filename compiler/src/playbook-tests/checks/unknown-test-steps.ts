import { shown, shownList } from '../../diagnostic.js';
import { resolveName } from '../resolve-names.js';
import { didYouMean } from '../test-context.js';
import type { TestCheck } from '../test-context.js';

/** PB803: a step or after-task the test names that its playbook does not declare. */
export const checkUnknownTestSteps: TestCheck = (context) => {
  for (const site of context.sites) {
    if (site.kind !== 'step') continue;
    const problem = resolveName(site, context.playbook);
    if (problem?.problem !== 'unknown-step') continue;
    const what = site.after ? 'after-task' : 'step';
    const names = problem.declared;
    const { hint, fix } = didYouMean(site, names, names.length ? ` (its ${what}s: ${shownList(names)})` : '');
    context.report(
      'PB803',
      site.range,
      `unknown ${what} "${shown(site.name)}": ${context.playbookName} has no such ${what}${hint}`,
      { fix },
    );
  }
};
