import type { Check } from '../check-context.js';
import { shown } from '../diagnostic.js';

/** Places whose text an agent or a person reads, and who: a secret must not reach them (PB407). */
const VISIBLE_PLACES = new Map([
  ['title', 'a title, which the panel shows'],
  ['description', 'a description, which the panel shows'],
  ['prompt', 'a prompt, which the agent reads'],
  ['run', 'a command line, which is logged and shown'],
  ['cwd', 'a working directory, which is logged and shown'],
  ['feedback', 'loop feedback, which the agent reads'],
  ['gate-title', "a gate's title, which a person reads"],
  ['gate-summary', "a gate's summary, which a person reads"],
  ['label', 'a label, which the panel shows'],
  ['output', 'a playbook output, which is shown when the run ends'],
]);

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
