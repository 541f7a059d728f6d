import type { Check } from '../check-context.js';

/** PB902: a need that another need already implies, or that is listed twice (info). */
export const checkRedundantNeeds: Check = (context) => {
  const { graph, model } = context;
  for (const step of model.steps) {
    if (graph.onCycle.has(step.index)) continue;
    const resolved = graph.needs[step.index]!;
    const listed = new Set<string>();
    for (const need of step.needs) {
      const target = model.stepByName.get(need.name);
      if (!target || target === step) continue;
      if (listed.has(need.name)) {
        context.report('PB902', need.range, `"${need.name}" is listed twice in the needs of "${step.name}"`);
        continue;
      }
      listed.add(need.name);
      const via = resolved.find((other) => other !== target.index && graph.isAncestor(target.index, other));
      if (via === undefined) continue;
      context.report(
        'PB902',
        need.range,
        `"${need.name}" is already implied: "${model.steps[via]!.name}" needs it`,
      );
    }
  }
};
