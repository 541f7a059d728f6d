import type { Check } from '../check-context.js';

/** PB403: an input's or an output's type that does not parse (binding parsed them all). */
export const checkTypeExpressions: Check = (context) => {
  for (const { text, errors } of context.semantic.typeExpressions) {
    for (const error of errors)
      context.report('PB403', context.rangeIn(text, error.span.start, error.span.end), error.message);
  }
};
