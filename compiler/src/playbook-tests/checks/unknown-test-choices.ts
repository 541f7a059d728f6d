import { closest } from '@kairoku-playbook/grammar';
import { replaceFix, shown, shownList } from '../../diagnostic.js';
import type { TestCheck } from '../test-context.js';

/** PB806: a decision whose choice the gate does not declare. A gate that does not exist is PB804's. */
export const checkUnknownTestChoices: TestCheck = (context) => {
  for (const site of context.sites) {
    if (site.kind !== 'choice') continue;
    const gate = context.stepNamed(site.gate, false);
    if (gate?.kind !== 'gate') continue;
    const choices = gate.outcomes.map((o) => o.name);
    if (choices.includes(site.name)) continue;
    const suggestion = closest(site.name, choices);
    context.report(
      'PB806',
      site.range,
      `gate "${shown(gate.name)}" has no choice "${shown(site.name)}"${
        suggestion ? `; did you mean "${suggestion}"?` : `; its choices are ${shownList(choices)}`
      }`,
      { fix: replaceFix(site.range, suggestion) },
    );
  }
};
