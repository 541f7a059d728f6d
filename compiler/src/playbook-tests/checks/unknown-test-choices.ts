import { shown, shownList } from '../../diagnostic.js';
import { resolveName } from '../resolve-names.js';
import { didYouMean } from '../test-context.js';
import type { TestCheck } from '../test-context.js';

/** PB806: a decision whose choice the gate does not declare. A gate that does not exist is PB804's. */
export const checkUnknownTestChoices: TestCheck = (context) => {
  for (const site of context.sites) {
    if (site.kind !== 'choice') continue;
    const problem = resolveName(site, context.playbook);
    if (problem?.problem !== 'unknown-choice') continue;
    const choices = problem.declared;
    const { hint, fix } = didYouMean(site, choices, `; its choices are ${shownList(choices)}`);
    context.report(
      'PB806',
      site.range,
      `gate "${shown(problem.gate.name)}" has no choice "${shown(site.name)}"${hint}`,
      { fix },
    );
  }
};
