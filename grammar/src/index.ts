/**
 * `@kairoku-playbook/grammar`: the small languages inside playbook strings (templates, expressions,
 * conditions, type expressions), the built-in function table and the did-you-mean helper.
 */
export type {
  BinaryOperator,
  Expr,
  GrammarError,
  ParseResult,
  Span,
  Template,
  TemplatePart,
  TypeExpr,
} from './ast.js';
export { parseExpression } from './parse-expression.js';
export { parseTemplate, isSingleExpression } from './template.js';
export { parseCondition } from './condition.js';
export { parseTypeExpression } from './type-expression.js';
export { SUGGESTION_BUDGET, closest, editDistance } from './did-you-mean.js';
export { MAX_EXPRESSION_LENGTH, MAX_TREE_HEIGHT } from './limits.js';
export {
  BUILTIN_FUNCTIONS,
  BUILTIN_FUNCTION_NAMES,
  CONTEXT_ROOTS,
  getBuiltinFunction,
  isContextRoot,
} from './functions.js';
export type { BuiltinFunction, ContextRoot } from './functions.js';
