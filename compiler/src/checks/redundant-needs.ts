import type { Check } from '../check-context.js';
import type { NameRef } from '../model/model.js';
import { shown } from '../diagnostic.js';

/** How many redundant needs of one step a PB902 names; the others are counted. */
const NAMED = 5;

/**
 * PB902: a need that another need already implies, or that is listed twice (info). One diagnostic per
 * step, on its first redundant need: a generated graph where every step needs every step before it
 * lists n²/2 redundant needs, and one diagnostic each took 318,801 of them (870 MB) at 800 steps.
 */
export const checkRedundantNeeds: Check = (context) => {
  const { graph, model } = context;
  for (const step of model.steps) {
    if (graph.onCycle.has(step.index)) continue;
    const resolved = graph.needs[step.index]!;
    // A need is implied when it is an ancestor of another need (of none but itself: no cycles here).
    const implied = graph.ancestorOfAny(resolved);
    const listed = new Set<string>();
    const redundant: { need: NameRef; reason: () => string }[] = [];
    for (const need of step.needs) {
      const target = model.stepByName.get(need.name);
      if (!target || target === step) continue;
      if (listed.has(need.name)) {
        redundant.push({
          need,
          reason: () => `"${shown(need.name)}" is listed twice in the needs of "${shown(step.name)}"`,
        });
        continue;
      }
      listed.add(need.name);
      if (!implied(target.index)) continue;
      redundant.push({
        need,
        reason: () => {
          const via = resolved.find((other) => graph.isAncestor(target.index, other))!;
          return `"${shown(need.name)}" is already implied: "${shown(model.steps[via]!.name)}" needs it`;
        },
      });
    }
    const first = redundant[0];
    if (!first) continue;
    let message = first.reason();
    if (redundant.length > 1) {
      const others = redundant.slice(1);
      const named = others.slice(0, NAMED).map((r) => `"${shown(r.need.name)}"`);
      if (others.length > NAMED) named.push(`${others.length - NAMED} more`);
      message += `; ${others.length === 1 ? 'one more need' : `${others.length} more needs`} of "${shown(step.name)}" ${others.length === 1 ? 'is' : 'are'} redundant too: ${named.join(', ')}`;
    }
    context.report('PB902', first.need.range, message);
  }
};
