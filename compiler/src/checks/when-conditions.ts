import type { Check } from '../check-context.js';
import { typeForMessage } from '../types/type.js';

/** PB405: a `when` that is not a boolean expression (one that may be null is PB401). */
export const checkWhenConditions: Check = (context) => {
  for (const template of context.semantic.templates) {
    const { condition, type } = template;
    if (template.place !== 'when' || !condition || !type || template.syntaxErrors) continue;
    if (type.kind === 'any' || type.kind === 'boolean') continue;
    if (type.kind === 'nullable' && type.inner.kind === 'boolean') continue;
    context.report(
      'PB405',
      context.rangeIn(template.text, condition.span.start, condition.span.end),
      `"when" must be a boolean expression, not ${typeForMessage(type)}`,
    );
  }
};
