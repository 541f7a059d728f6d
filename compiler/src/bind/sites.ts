import type { PlaybookModel, StepDecl, TextRef } from '../model/model.js';
import type { Place, Scope } from './scope-provider.js';

export interface TemplateSite {
  text: TextRef;
  place: Place;
  scope: Scope;
  /** for feedback: the outcome or choice it belongs to */
  outcome: string | undefined;
  /** for labels and env: the key */
  key: string | undefined;
}

/** Every string of a playbook that holds a template or a condition, with the scope it is checked in. */
export function templateSites(model: PlaybookModel): TemplateSite[] {
  const sites: TemplateSite[] = [];
  const playbookScope: Scope = {
    place: 'title',
    owner: undefined,
    transition: undefined,
    seesAllSteps: true,
  };
  const add = (text: TextRef | undefined, place: Place, scope: Scope, outcome?: string, key?: string) => {
    if (text) sites.push({ text, place, scope: { ...scope, place }, outcome, key });
  };
  add(model.title, 'title', playbookScope);
  for (const label of model.labels) add(label.text, 'label', playbookScope, undefined, label.name);
  for (const step of [...model.steps, ...model.after]) stepSites(step, add);
  for (const output of model.outputs) add(output.text, 'output', playbookScope, undefined, output.name);
  return sites;
}

function stepSites(
  step: StepDecl,
  add: (text: TextRef | undefined, place: Place, scope: Scope, outcome?: string, key?: string) => void,
): void {
  const scope: Scope = { place: 'prompt', owner: step, transition: undefined, seesAllSteps: step.isAfter };
  add(step.title, 'title', scope);
  if (step.when && 'node' in step.when) add(step.when, 'when', scope);
  add(step.prompt, 'prompt', scope);
  for (const command of step.run) add(command, 'run', scope);
  for (const variable of step.env) add(variable.text, 'env', scope, undefined, variable.name);
  add(step.cwd, 'cwd', scope);
  add(step.gate?.title, 'gate-title', scope);
  add(step.gate?.summary, 'gate-summary', scope);
  for (const label of step.labels) add(label.text, 'label', scope, undefined, label.name);
  for (const outcome of step.outcomes) {
    const transition = outcome.transition;
    if (transition?.kind !== 'loop') continue;
    add(
      transition.feedback,
      'feedback',
      { ...scope, transition: { outcome: outcome.name, isChoice: step.kind === 'gate' } },
      outcome.name,
    );
  }
}
