import { shown, shownList } from '../../diagnostic.js';
import { didYouMean } from '../test-context.js';
import type { TestCheck } from '../test-context.js';

/**
 * PB805: an outcome a step does not declare, in a scripted report, an expected list of attempts or a loop
 * counter (for a gate there, one of its choices). A step that does not exist is PB803's, not this.
 */
export const checkUnknownTestOutcomes: TestCheck = (context) => {
  for (const site of context.sites) {
    if (site.kind !== 'outcome') continue;
    const step = context.stepNamed(site.step, site.after);
    if (!step) continue;
    const outcomes = step.outcomes.map((o) => o.name);
    if (outcomes.includes(site.name)) continue;
    const what = step.kind === 'gate' ? 'choice' : 'outcome';
    const { hint, fix } = didYouMean(site, outcomes, `; its ${what}s are ${shownList(outcomes)}`);
    context.report(
      'PB805',
      site.range,
      `${site.after ? 'after-task' : step.kind === 'gate' ? 'gate' : 'step'} "${shown(step.name)}" has no ${what} "${shown(site.name)}"${hint}`,
      { fix },
    );
  }
};
