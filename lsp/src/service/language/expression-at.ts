/**
 * Finds the template or condition under a file offset, the `${{ }}` expression the cursor is in, and the
 * syntax-tree node under it. Everything here works in the scalar's value coordinates; the file offset is
 * translated once with `valueOffsetAt`, and results go back with the compiler's `rangeIn`.
 */
import { parseTemplate } from '@kairoku-playbook/grammar';
import type { Expr, Span } from '@kairoku-playbook/grammar';
import { scalarContains, valueOffsetAt } from './scalar-offsets.js';
import type { SemanticModel, FileAnalysis, TemplateInfo } from './types.js';

export interface ExpressionSite {
  context: SemanticModel;
  info: TemplateInfo;
  /** the cursor, as an index into the scalar's value */
  cursor: number;
  /** the expression text around the cursor: the inside of its `${{ }}`, or the whole condition */
  inner: Span;
  /** the parsed expression, when anything could be parsed */
  expr: Expr | undefined;
}

/** The template or condition whose scalar holds `offset`. */
export function templateAt(analysis: FileAnalysis, offset: number): TemplateInfo | undefined {
  return analysis.semantic?.templates.find((info) => scalarContains(info.text, offset, analysis.text));
}

/** The expressions of a template or condition: their inner spans and trees. */
export function expressionsOf(info: TemplateInfo): { inner: Span; expr: Expr | undefined }[] {
  if (info.place === 'when') {
    const value = info.text.value;
    if (value.includes('${{')) {
      const parts = parseTemplate(value).value?.parts ?? [];
      const wrapped = parts.filter((part) => part.kind === 'expression');
      const only = wrapped[0];
      if (wrapped.length === 1 && only?.kind === 'expression')
        return [{ inner: only.innerSpan, expr: info.condition }];
    }
    return [{ inner: { start: 0, end: value.length }, expr: info.condition }];
  }
  const result: { inner: Span; expr: Expr | undefined }[] = [];
  for (const part of info.template?.parts ?? []) {
    if (part.kind === 'expression') result.push({ inner: part.innerSpan, expr: part.expr });
  }
  return result;
}

/** The expression the cursor at `offset` is in, if it is in one. */
export function expressionAt(analysis: FileAnalysis, offset: number): ExpressionSite | undefined {
  const info = templateAt(analysis, offset);
  return info && expressionIn(analysis, info, offset);
}

/** The expression of `info` (the template or condition under `offset`) that the cursor is in, if any. */
export function expressionIn(
  analysis: FileAnalysis,
  info: TemplateInfo,
  offset: number,
): ExpressionSite | undefined {
  const context = analysis.semantic;
  if (!context) return undefined;
  const cursor = valueOffsetAt(context, info.text, offset);
  for (const { inner, expr } of expressionsOf(info)) {
    if (inner.start <= cursor && cursor <= inner.end) return { context, info, cursor, inner, expr };
  }
  return undefined;
}

/** Every node of an expression tree, parents before children (an array: cheaper than nested generators). */
export function walkExpression(expr: Expr | undefined): Expr[] {
  const nodes: Expr[] = [];
  const visit = (node: Expr): void => {
    nodes.push(node);
    switch (node.kind) {
      case 'member':
        visit(node.object);
        break;
      case 'index':
        visit(node.object);
        visit(node.index);
        break;
      case 'unary':
        visit(node.operand);
        break;
      case 'binary':
        visit(node.left);
        visit(node.right);
        break;
      case 'call':
        for (const arg of node.args) visit(arg);
        break;
      case 'list':
        for (const item of node.items) visit(item);
        break;
      default:
        break;
    }
  };
  if (expr) visit(expr);
  return nodes;
}

/** The names of a member chain from a context root (`steps.plan.outputs.x`), reading `['name']` like `.name`. */
export function chainOf(expr: Expr): string[] | undefined {
  switch (expr.kind) {
    case 'identifier':
      return [expr.name];
    case 'member': {
      const object = chainOf(expr.object);
      return object ? [...object, expr.property] : undefined;
    }
    case 'index': {
      const object = chainOf(expr.object);
      return object && expr.index.kind === 'literal' && typeof expr.index.value === 'string'
        ? [...object, expr.index.value]
        : undefined;
    }
    default:
      return undefined;
  }
}

/** The span of the last name of a chain: the property of `.name`, the literal of `['name']`. */
function nameSpanOf(expr: Expr): Span | undefined {
  switch (expr.kind) {
    case 'identifier':
      return expr.span;
    case 'member':
      return expr.propertySpan;
    case 'index':
      return expr.index.span;
    default:
      return undefined;
  }
}

function inSpan(span: Span, at: number): boolean {
  return span.start <= at && at <= span.end;
}

/**
 * The name under the cursor: a chain whose last name the cursor touches (`inputs.task` with the cursor in
 * `task`; `steps.plan` with it in `plan`), a called function, or a string literal with what it is compared to.
 */
export type NameAtCursor =
  | { kind: 'chain'; chain: string[]; span: Span; node: Expr }
  | { kind: 'function'; name: string; span: Span }
  | { kind: 'string'; value: string; span: Span; comparedWith: string[] | undefined };

export function nameAt(expr: Expr | undefined, cursor: number): NameAtCursor | undefined {
  let found: NameAtCursor | undefined;
  for (const node of walkExpression(expr)) {
    if (node.kind === 'call' && inSpan(node.calleeSpan, cursor)) {
      return { kind: 'function', name: node.callee, span: node.calleeSpan };
    }
    if (node.kind === 'identifier' || node.kind === 'member' || node.kind === 'index') {
      const span = nameSpanOf(node);
      const chain = chainOf(node);
      // walkExpression visits outer nodes first: the innermost match is the last one.
      if (span && chain && inSpan(span, cursor) && !(node.kind === 'index' && node.index.kind !== 'literal'))
        found = { kind: 'chain', chain, span, node };
    }
    if (node.kind === 'binary' && (node.operator === '==' || node.operator === '!=')) {
      for (const [side, other] of [
        [node.left, node.right],
        [node.right, node.left],
      ] as const) {
        if (side.kind === 'literal' && typeof side.value === 'string' && inSpan(side.span, cursor)) {
          return { kind: 'string', value: side.value, span: side.span, comparedWith: chainOf(other) };
        }
      }
    }
  }
  return found;
}
