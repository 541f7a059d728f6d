import { parseTypeExpression } from '@kairoku-playbook/grammar';
import type { Check, CheckContext } from '../check-context.js';
import type { TextRef } from '../model/model.js';
import { fromTypeExpr } from '../types/type.js';
import type { Type } from '../types/type.js';

/** PB403: parses every input and output type; sets `type` on the declarations that parse. */
export const checkTypeExpressions: Check = (context) => {
  for (const input of context.model.inputs) input.type = parseType(context, input.typeText);
  for (const step of [...context.model.steps, ...context.model.after]) {
    for (const output of step.outputs) output.type = parseType(context, output.typeText);
  }
};

function parseType(context: CheckContext, text: TextRef | undefined): Type | undefined {
  if (!text) return undefined;
  const result = parseTypeExpression(text.value);
  for (const error of result.errors) {
    context.report('PB403', context.rangeIn(text, error.span.start, error.span.end), error.message);
  }
  return result.errors.length === 0 && result.value ? fromTypeExpr(result.value) : undefined;
}
