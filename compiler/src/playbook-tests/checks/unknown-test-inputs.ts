import { shown, shownList } from '../../diagnostic.js';
import { didYouMean } from '../test-context.js';
import type { TestCheck } from '../test-context.js';

/** PB809: an input the test gives that the playbook does not declare. */
export const checkUnknownTestInputs: TestCheck = (context) => {
  const names = context.playbook.inputs.map((i) => i.name);
  for (const site of context.sites) {
    if (site.kind !== 'input' || names.includes(site.name)) continue;
    const { hint, fix } = didYouMean(
      site,
      names,
      names.length ? ` (its inputs: ${shownList(names)})` : ' (it declares none)',
    );
    context.report(
      'PB809',
      site.range,
      `unknown input "${shown(site.name)}": ${context.playbookName} has no such input${hint}`,
      { fix },
    );
  }
};
