import { shown, shownList } from '../../diagnostic.js';
import { resolveName } from '../resolve-names.js';
import { didYouMean } from '../test-context.js';
import type { TestCheck } from '../test-context.js';

/**
 * PB804: a gate the test scripts that its playbook does not declare, a step scripted under `gates:`, or a
 * gate scripted under `steps:` (a gate is decided, not reported).
 */
export const checkUnknownTestGates: TestCheck = (context) => {
  for (const site of context.sites) {
    if (site.kind !== 'step' && site.kind !== 'gate') continue;
    const problem = resolveName(site, context.playbook);
    if (problem?.problem === 'gate-under-steps')
      context.report(
        'PB804',
        site.range,
        `"${shown(site.name)}" is a gate: script its decisions under gates, as { choice: … }`,
      );
    else if (problem?.problem === 'not-a-gate')
      context.report(
        'PB804',
        site.range,
        `step "${shown(site.name)}" is not a gate: script its reports under steps, as { outcome: … }`,
      );
    else if (problem?.problem === 'unknown-gate') {
      const gates = problem.declared;
      const { hint, fix } = didYouMean(site, gates, gates.length ? ` (its gates: ${shownList(gates)})` : '');
      context.report(
        'PB804',
        site.range,
        `unknown gate "${shown(site.name)}": ${context.playbookName} has no such gate${hint}`,
        { fix },
      );
    }
  }
};
