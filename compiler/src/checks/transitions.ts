import { closest } from '@kairoku-playbook/grammar';
import type { Check } from '../check-context.js';
import { replaceFix, shown } from '../diagnostic.js';
import { ancestorThroughMisspeltNeed } from './misspelt-needs.js';

/**
 * PB207 unknown loop target; PB301 a loop target that is neither the step nor one of its ancestors;
 * PB605 outcomes that can never be produced (a check step only passes or fails).
 */
export const checkTransitions: Check = (context) => {
  const { model, graph } = context;
  for (const step of model.steps) {
    if (step.kind === 'check') {
      for (const outcome of step.outcomes) {
        if (outcome.keyRange && outcome.name !== 'pass' && outcome.name !== 'fail') {
          context.report(
            'PB605',
            outcome.keyRange,
            `check step "${shown(step.name)}" can only pass or fail; outcome "${shown(outcome.name)}" can never happen`,
          );
        }
      }
    }
    for (const outcome of step.outcomes) {
      const transition = outcome.transition;
      if (transition?.kind !== 'loop' || !transition.target) continue;
      const target = model.stepByName.get(transition.target.name);
      if (!target) {
        const candidates = [step.name, ...graph.ancestorsOf(step.index).map((i) => model.steps[i]!.name)];
        const suggestion =
          closest(transition.target.name, candidates) ?? closest(transition.target.name, context.stepNames);
        context.report(
          'PB207',
          transition.target.range,
          `unknown loop target "${shown(transition.target.name)}"${suggestion ? `; did you mean "${shown(suggestion)}"?` : ''}`,
          { fix: replaceFix(transition.target.range, suggestion) },
        );
        continue;
      }
      if (graph.onCycle.has(step.index)) continue;
      if (
        target !== step &&
        !graph.isAncestor(target.index, step.index) &&
        !ancestorThroughMisspeltNeed(context, target, step)
      ) {
        context.report(
          'PB301',
          transition.target.range,
          `loop target "${shown(target.name)}" is not "${shown(step.name)}" or one of its ancestors: a loop can only go back up the graph`,
          { related: [context.related(target.keyRange, `"${shown(target.name)}" is declared here`)] },
        );
      }
    }
  }
};
