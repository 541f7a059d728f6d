import { CONTEXT_ROOTS } from '@kairoku-playbook/grammar';
import type { Check, CheckContext } from '../check-context.js';
import { replaceFix, shown, shownList } from '../diagnostic.js';
import type { ContextReference } from '../bind/references.js';
import { isLoopOutsideTarget } from './loop-scope.js';

/**
 * PB209: a name an expression cannot start with (an unknown one, an input without `inputs.`), a context
 * root that does not exist at its place (`loop` in an after-task, `report` outside a transition), a bare
 * `steps`, and a property the value read has not. (`loop` in a step no loop goes back to is PB210.)
 */
export const checkUnknownNames: Check = (context) => {
  for (const reference of context.semantic.referencesOf('context')) {
    if (!reference.visible && !isLoopOutsideTarget(reference)) {
      context.report(
        'PB209',
        reference.range,
        `"${shown(reference.name)}" is not available here: ${whereAvailable(reference)}`,
      );
    } else if (reference.bare && reference.name === 'steps') {
      context.report(
        'PB209',
        reference.range,
        '"steps" must be followed by a step name, as in steps.plan.outputs.x',
      );
    }
  }
  for (const reference of context.semantic.referencesOf('name'))
    reportName(context, reference.name, reference.range, reference.input !== undefined, reference.suggestion);
  for (const reference of context.semantic.referencesOf('property')) {
    if (reference.status !== 'unknown') continue;
    const { root, name, candidates, suggestion, range } = reference;
    // (the value as written, not its type: an object type can be hundreds of characters long)
    const what = `"${shown(root ?? reference.ownerText)}"`;
    context.report(
      'PB209',
      range,
      `${what} has no property "${shown(name)}"${suggestion ? `; did you mean "${shown(suggestion)}"?` : candidates.length ? `; it has ${shownList(candidates)}` : ''}`,
      { fix: replaceFix(range, suggestion) },
    );
  }
};

function reportName(
  context: CheckContext,
  name: string,
  range: { start: number; end: number },
  isInput: boolean,
  suggestion: string | undefined,
): void {
  if (isInput) {
    context.report('PB209', range, `unknown name "${shown(name)}"; did you mean "inputs.${shown(name)}"?`, {
      fix: replaceFix(range, `inputs.${name}`),
    });
    return;
  }
  context.report(
    'PB209',
    range,
    `unknown name "${shown(name)}"${suggestion ? `; did you mean "${shown(suggestion)}"?` : `; expressions start with one of ${CONTEXT_ROOTS.join(', ')}`}`,
    { fix: replaceFix(range, suggestion) },
  );
}

/** Where a context root that is not available here can be used. */
function whereAvailable(reference: ContextReference): string {
  switch (reference.name) {
    case 'loop':
      return 'loop.* is available in the templates of a step a loop goes back to';
    case 'report':
      return reference.template.scope.transition?.isChoice
        ? 'a gate has no report; use gate.comment or gate.choice here'
        : "report.* is available in an outcome's transition (its feedback)";
    default:
      return "gate.* is available in a gate choice's transition (its feedback)";
  }
}
