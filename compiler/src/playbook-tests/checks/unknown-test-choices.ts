import { shown, shownList } from '../../diagnostic.js';
import { didYouMean } from '../test-context.js';
import type { TestCheck } from '../test-context.js';

/** PB806: a decision whose choice the gate does not declare. A gate that does not exist is PB804's. */
export const checkUnknownTestChoices: TestCheck = (context) => {
  for (const site of context.sites) {
    if (site.kind !== 'choice') continue;
    const gate = context.stepNamed(site.gate, false);
    if (gate?.kind !== 'gate') continue;
    const choices = gate.outcomes.map((o) => o.name);
    if (choices.includes(site.name)) continue;
    const { hint, fix } = didYouMean(site, choices, `; its choices are ${shownList(choices)}`);
    context.report(
      'PB806',
      site.range,
      `gate "${shown(gate.name)}" has no choice "${shown(site.name)}"${hint}`,
      {
        fix,
      },
    );
  }
};
