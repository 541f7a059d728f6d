import { CHECK_OUTPUTS } from '../../bind/scope-provider.js';
import { shown, shownList } from '../../diagnostic.js';
import { didYouMean } from '../test-context.js';
import type { TestCheck } from '../test-context.js';

/**
 * PB807: an output a scripted report gives that its step does not declare, or an expected output the
 * playbook does not have (`expect.outputs`).
 */
export const checkUnknownTestOutputs: TestCheck = (context) => {
  for (const site of context.sites) {
    if (site.kind !== 'output') continue;
    let names: string[];
    let owner: string;
    if (site.step === undefined) {
      names = context.playbook.outputs.map((o) => o.name);
      owner = `${context.playbookName} has no output`;
    } else {
      const step = context.stepNamed(site.step, site.after);
      if (!step || step.kind === 'gate') continue;
      names = step.outputs.map((o) => o.name);
      if (step.kind === 'check') names.push(...CHECK_OUTPUTS);
      owner = `${site.after ? 'after-task' : 'step'} "${shown(step.name)}" has no output`;
    }
    if (names.includes(site.name)) continue;
    const { hint, fix } = didYouMean(
      site,
      names,
      names.length ? `; it declares ${shownList(names)}` : '; it declares no outputs',
    );
    context.report('PB807', site.range, `${owner} "${shown(site.name)}"${hint}`, { fix });
  }
};
