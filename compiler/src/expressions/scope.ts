import type { PlaybookModel, StepDecl } from '../model/model.js';
import type { Place } from './template-info.js';

/** The names visible to one template: which steps it may refer to and which contexts exist. */
export interface Scope {
  place: Place;
  /** the step or after-task owning the template (undefined: the playbook's own title, labels, outputs) */
  owner: StepDecl | undefined;
  /** inside one of the owner's transitions (feedback), where `report.*` and the step itself are visible */
  transition: { outcome: string; isChoice: boolean } | undefined;
  /** after-tasks and playbook outputs see every step; steps see their ancestors */
  seesAllSteps: boolean;
}

export const STEP_STATUSES = [
  'pending',
  'ready',
  'running',
  'reported',
  'waiting',
  'completed',
  'skipped',
  'failed',
  'canceled',
  'lost',
] as const;

/** The outputs every check step has (SPEC §3.6). */
export const CHECK_OUTPUTS = ['passed', 'failed', 'skipped', 'todo', 'exit_code'] as const;

export const CONTEXT_ROOTS = ['inputs', 'steps', 'run', 'loop', 'report', 'gate'] as const;

/** Whether a step's outputs may be absent where this scope reads them (then they are nullable). */
export function mayBeAbsent(
  model: PlaybookModel,
  step: StepDecl,
  scope: Pick<Scope, 'owner' | 'seesAllSteps'>,
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
