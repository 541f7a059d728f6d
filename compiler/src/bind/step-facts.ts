/**
 * What the whole playbook says about a step that the scopes of other steps depend on: whether its results
 * may be absent where they are read, and whether a loop goes back to it. Each is worked out once per model.
 */
import type { PlaybookModel, StepDecl } from '../model/model.js';

/** Whether a step's outputs may be absent where this scope reads them (then they are nullable). */
export function mayBeAbsent(
  model: PlaybookModel,
  step: StepDecl,
  scope: { owner: StepDecl | undefined; seesAllSteps: boolean },
): boolean {
  if (step.when !== undefined && !(typeof step.when.value === 'boolean' && step.when.value)) return true;
  if (!scope.seesAllSteps) return false;
  // After-tasks and playbook outputs also run when the run ended early, or failed.
  if (scope.owner?.isAfter && scope.owner.on.includes('failed')) return true;
  return canEndEarly(model);
}

/** Per model, whether some step can end the run early (asked for every reference: computed once). */
const endsEarly = new WeakMap<PlaybookModel, boolean>();

function canEndEarly(model: PlaybookModel): boolean {
  let known = endsEarly.get(model);
  if (known === undefined) {
    known = model.steps.some((s) =>
      s.outcomes.some(
        (o) =>
          o.transition?.kind === 'end' ||
          (o.transition?.kind === 'loop' && o.transition.exhausted?.kind === 'end'),
      ),
    );
    endsEarly.set(model, known);
  }
  return known;
}

/** Per model, the steps some step's loop goes back to (asked for every `loop` read: computed once). */
const targetsOf = new WeakMap<PlaybookModel, ReadonlySet<StepDecl>>();

/**
 * The steps a loop of some step (an outcome's, or a gate choice's) goes back to. A loop of an after-task
 * (PB605) goes nowhere, and one whose target names no step (PB207) neither.
 */
export function loopTargets(model: PlaybookModel): ReadonlySet<StepDecl> {
  let targets = targetsOf.get(model);
  if (!targets) {
    const found = new Set<StepDecl>();
    for (const step of model.steps)
      for (const outcome of step.outcomes) {
        const transition = outcome.transition;
        if (transition?.kind !== 'loop' || !transition.target) continue;
        const target = model.stepByName.get(transition.target.name);
        if (target) found.add(target);
      }
    targetsOf.set(model, (targets = found));
  }
  return targets;
}
