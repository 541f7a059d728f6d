import { shown, shownList } from '../../diagnostic.js';
import { didYouMean } from '../test-context.js';
import type { TestCheck } from '../test-context.js';

/**
 * PB804: a gate the test scripts that its playbook does not declare, a step scripted under `gates:`, or a
 * gate scripted under `steps:` (a gate is decided, not reported).
 */
export const checkUnknownTestGates: TestCheck = (context) => {
  const gates = context.playbook.steps.filter((s) => s.kind === 'gate').map((s) => s.name);
  for (const site of context.sites) {
    if (site.kind === 'step' && site.scripted && !site.after) {
      if (context.stepNamed(site.name, false)?.kind === 'gate')
        context.report(
          'PB804',
          site.range,
          `"${shown(site.name)}" is a gate: script its decisions under gates, as { choice: … }`,
        );
      continue;
    }
    if (site.kind !== 'gate') continue;
    const step = context.stepNamed(site.name, false);
    if (step?.kind === 'gate') continue;
    if (step) {
      context.report(
        'PB804',
        site.range,
        `step "${shown(site.name)}" is not a gate: script its reports under steps, as { outcome: … }`,
      );
      continue;
    }
    const { hint, fix } = didYouMean(site, gates, gates.length ? ` (its gates: ${shownList(gates)})` : '');
    context.report(
      'PB804',
      site.range,
      `unknown gate "${shown(site.name)}": ${context.playbookName} has no such gate${hint}`,
      { fix },
    );
  }
};
