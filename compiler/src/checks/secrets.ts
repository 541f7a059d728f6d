import type { Check } from '../check-context.js';
import { SHOWN_PLACES as VISIBLE_PLACES } from '../bind/scope-provider.js';
import { shown } from '../diagnostic.js';

/** PB407: a secret input read where an agent or a person would see it (only `env` of a check step may). */
export const checkSecrets: Check = (context) => {
  const secret = context.model.inputs.find((i) => i.secret);
  if (!secret) return;
  for (const reference of context.semantic.referencesOf('input')) {
    const input = reference.target;
    const shownIn = VISIBLE_PLACES.get(reference.template.place);
    if (!input?.secret || !shownIn || reference.whole) continue;
    const { exprSpan, template } = reference;
    context.report(
      'PB407',
      context.rangeIn(template.text, exprSpan.start, exprSpan.end),
      `secret input "${shown(input.name)}" would be shown in ${shownIn}; pass it to a check step through env`,
    );
  }
  for (const reference of context.semantic.referencesOf('context')) {
    // `inputs` as a whole (say `toJSON(inputs)`) reads every input.
    if (reference.name !== 'inputs' || !reference.bare) continue;
    const shownIn = VISIBLE_PLACES.get(reference.template.place);
    if (!shownIn) continue;
    context.report(
      'PB407',
      reference.range,
      `"inputs" includes the secret input "${shown(secret.name)}", which would be shown in ${shownIn}; name the inputs you need instead`,
    );
  }
};
