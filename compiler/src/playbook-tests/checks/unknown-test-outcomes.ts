import { shown, shownList } from '../../diagnostic.js';
import { resolveName } from '../resolve-names.js';
import { didYouMean } from '../test-context.js';
import type { TestCheck } from '../test-context.js';

/**
 * PB805: an outcome a step does not declare, in a scripted report, an expected list of attempts or a loop
 * counter (for a gate there, one of its choices). A step that does not exist is PB803's, not this.
 */
export const checkUnknownTestOutcomes: TestCheck = (context) => {
  for (const site of context.sites) {
    if (site.kind !== 'outcome') continue;
    const problem = resolveName(site, context.playbook);
    if (problem?.problem !== 'unknown-outcome') continue;
    const step = problem.owner;
    const what = step.kind === 'gate' ? 'choice' : 'outcome';
    const { hint, fix } = didYouMean(
      site,
      problem.declared,
      `; its ${what}s are ${shownList(problem.declared)}`,
    );
    context.report(
      'PB805',
      site.range,
      `${site.after ? 'after-task' : step.kind === 'gate' ? 'gate' : 'step'} "${shown(step.name)}" has no ${what} "${shown(site.name)}"${hint}`,
      { fix },
    );
  }
};
