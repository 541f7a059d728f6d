import { closest, getBuiltinFunction, isContextRoot } from '@kairoku-playbook/grammar';
import type { Expr } from '@kairoku-playbook/grammar';
import type { Check, CheckContext } from '../check-context.js';
import { commonType, enumLiteralComparison, indexKey } from '../bind/expressions.js';
import type { BoundTemplate } from '../bind/template.js';
import { replaceLiteralFix, shown, shownList } from '../diagnostic.js';
import { ANY, INTEGER, isAssignable, isNullable, nonNull, typeForMessage } from '../types/type.js';
import type { Type } from '../types/type.js';

/**
 * PB401: a value of a type the expression cannot use there: a condition that is not a boolean (`!`, `&&`,
 * `||`, a `when` that may be null), a comparison that is never true, an ordering of values that do not
 * order, an index or a property of a value that has none, a function argument of the wrong type. Reads the
 * types binding gave every node; a node of type `any` (an unknown name, reported on its own) is never wrong.
 */
export const checkTypeMismatches: Check = (context) => {
  for (const template of context.semantic.templates) {
    if (template.condition) {
      walk(context, template, template.condition);
      whenMayBeNull(context, template);
    }
    for (const part of template.template?.parts ?? [])
      if (part.kind === 'expression' && part.expr) walk(context, template, part.expr);
  }
  for (const reference of context.semantic.referencesOf('property')) {
    if (reference.status !== 'not-an-object') continue;
    context.report(
      'PB401',
      reference.range,
      `a value of type ${typeForMessage(reference.ownerType)} has no properties; cannot read "${shown(reference.name)}"`,
    );
  }
};

/** `when` needs a boolean; one that may be null is this mistake (anything else that is not a boolean is PB405). */
function whenMayBeNull(context: CheckContext, template: BoundTemplate): void {
  const type = template.type;
  const condition = template.condition;
  if (template.place !== 'when' || !condition || !type || template.syntaxErrors) return;
  if (type.kind === 'nullable' && type.inner.kind === 'boolean') {
    context.report(
      'PB401',
      context.rangeIn(template.text, condition.span.start, condition.span.end),
      '"when" needs a boolean, but this may be null; guard it with default(…, false)',
    );
  }
}

class TypeChecker {
  constructor(
    private readonly context: CheckContext,
    private readonly template: BoundTemplate,
  ) {}

  private typeOf(expr: Expr): Type {
    return this.template.types.get(expr) ?? ANY;
  }

  private mismatch(span: { start: number; end: number }, message: string): void {
    this.context.report('PB401', this.context.rangeIn(this.template.text, span.start, span.end), message);
  }

  check(expr: Expr): void {
    switch (expr.kind) {
      case 'unary':
        this.expectBoolean(this.typeOf(expr.operand), expr.operand, '"!"');
        return;
      case 'binary':
        this.binary(expr);
        return;
      case 'index':
        this.index(expr);
        return;
      case 'call':
        this.call(expr);
        return;
      case 'list':
        this.list(expr);
        return;
      default:
        return;
    }
  }

  private expectBoolean(type: Type, expr: Expr, what: string): void {
    if (type.kind === 'any' || type.kind === 'boolean') return;
    if (type.kind === 'nullable' && type.inner.kind === 'boolean') {
      this.mismatch(
        expr.span,
        `${what} needs a boolean, but this may be null; guard it with default(…, false)`,
      );
      return;
    }
    this.mismatch(expr.span, `${what} needs a boolean, not ${typeForMessage(type)}`);
  }

  private binary(expr: Extract<Expr, { kind: 'binary' }>): void {
    const left = this.typeOf(expr.left);
    const right = this.typeOf(expr.right);
    switch (expr.operator) {
      case '&&':
      case '||':
        this.expectBoolean(left, expr.left, `"${shown(expr.operator)}"`);
        this.expectBoolean(right, expr.right, `"${shown(expr.operator)}"`);
        return;
      case '==':
      case '!=':
        this.equality(expr, left, right);
        return;
      default:
        this.ordering(expr, left, right);
    }
  }

  private equality(expr: Extract<Expr, { kind: 'binary' }>, left: Type, right: Type): void {
    if (left.kind === 'any' || right.kind === 'any') return;
    const compared = enumLiteralComparison(left, right, expr);
    if (compared) {
      const { enumType, literal } = compared;
      // (an outcome or a choice a step does not declare is PB206)
      if (enumType.members.includes(literal.value as string) || enumType.origin !== undefined) return;
      const suggestion = closest(literal.value as string, enumType.members);
      const range = this.context.rangeIn(this.template.text, literal.span.start, literal.span.end);
      this.context.report(
        'PB401',
        range,
        `"${shown(literal.value as string)}" is not one of ${shownList(enumType.members)}, so this comparison is never true${suggestion ? `; did you mean '${shown(suggestion)}'?` : ''}`,
        { fix: replaceLiteralFix(range, suggestion) },
      );
      return;
    }
    const l = nonNull(left);
    const r = nonNull(right);
    if (l.kind === 'null' || r.kind === 'null') return;
    if (
      !isAssignable(l, r) &&
      !isAssignable(r, l) &&
      !(isNumeric(l) && isNumeric(r)) &&
      !(isTextual(l) && isTextual(r))
    ) {
      this.mismatch(
        expr.operatorSpan,
        `comparing ${typeForMessage(left)} with ${typeForMessage(right)} is never true`,
      );
    }
  }

  private ordering(expr: Extract<Expr, { kind: 'binary' }>, left: Type, right: Type): void {
    for (const [type, side] of [
      [left, expr.left],
      [right, expr.right],
    ] as const) {
      if (type.kind === 'nullable') {
        this.mismatch(
          side.span,
          `"${shown(expr.operator)}" needs a value, but this may be null; guard it with ${guard(type)}`,
        );
        return;
      }
    }
    if (left.kind === 'any' || right.kind === 'any') return;
    if ((isNumeric(left) && isNumeric(right)) || (isTextual(left) && isTextual(right))) return;
    this.mismatch(
      expr.operatorSpan,
      `"${shown(expr.operator)}" compares two numbers (or two strings), not ${typeForMessage(left)} and ${typeForMessage(right)}`,
    );
  }

  private index(expr: Extract<Expr, { kind: 'index' }>): void {
    const key = indexKey(expr);
    // `inputs['x']` reads a name, bound like `inputs.x`
    if (key !== undefined && expr.object.kind === 'identifier' && isContextRoot(expr.object.name)) return;
    const owner = this.typeOf(expr.object);
    const index = this.typeOf(expr.index);
    if (owner.kind === 'any') return;
    const base = nonNull(owner);
    if (base.kind === 'list') {
      if (!isAssignable(index, INTEGER) && index.kind !== 'any')
        this.mismatch(expr.index.span, `a list index must be an integer, not ${typeForMessage(index)}`);
      return;
    }
    if (base.kind === 'object' && key !== undefined) return;
    this.mismatch(expr.object.span, `cannot index a value of type ${typeForMessage(owner)}`);
  }

  /** The items of a list literal must have one type (integers and numbers, enums and strings mix). */
  private list(expr: Extract<Expr, { kind: 'list' }>): void {
    let element: Type | undefined;
    for (const item of expr.items) {
      const type = this.typeOf(item);
      if (type.kind === 'any') return;
      if (element === undefined) {
        element = type;
        continue;
      }
      const common = commonType(element, type);
      if (common.kind === 'any') {
        this.mismatch(
          item.span,
          `the items of a list must have one type: this one is ${typeForMessage(type)}, those before it ${typeForMessage(element)}`,
        );
        return;
      }
      element = common;
    }
  }

  private call(expr: Extract<Expr, { kind: 'call' }>): void {
    const fn = getBuiltinFunction(expr.callee);
    // (an unknown function, or a call with the wrong number of arguments, is PB402)
    if (!fn || expr.args.length < fn.minArgs || expr.args.length > fn.maxArgs) return;
    const args = expr.args.map((a) => this.typeOf(a));
    const expectArg = (i: number, accepts: (t: Type) => boolean, what: string) => {
      const type = args[i];
      const arg = expr.args[i];
      if (!type || !arg || type.kind === 'any') return;
      if (isNullable(type) && fn.name !== 'default' && fn.name !== 'toJSON') {
        this.mismatch(arg.span, `argument ${i + 1} of ${fn.name} may be null; guard it with ${guard(type)}`);
        return;
      }
      if (!accepts(nonNull(type)))
        this.mismatch(
          arg.span,
          `argument ${i + 1} of ${fn.name} must be ${what}, not ${typeForMessage(type)}`,
        );
    };
    switch (fn.name) {
      case 'contains':
        expectArg(0, (t) => isTextual(t) || t.kind === 'list', 'a string or a list');
        if (args[0] && isTextual(nonNull(args[0]))) expectArg(1, isTextual, 'a string');
        else if (args[0] && nonNull(args[0]).kind === 'list') {
          const element = (nonNull(args[0]) as Extract<Type, { kind: 'list' }>).element;
          expectArg(
            1,
            (t) => isAssignable(t, element) || isAssignable(element, t),
            withArticle(typeForMessage(element)),
          );
        }
        break;
      case 'startsWith':
      case 'endsWith':
        expectArg(0, isTextual, 'a string');
        expectArg(1, isTextual, 'a string');
        break;
      case 'join':
        expectArg(0, (t) => t.kind === 'list', 'a list');
        expectArg(1, isTextual, 'a string');
        break;
      case 'len':
        expectArg(0, (t) => isTextual(t) || t.kind === 'list', 'a string or a list');
        break;
      case 'format':
        expectArg(0, isTextual, 'a string');
        break;
      case 'default': {
        const [value, fallback] = args;
        if (value && fallback && value.kind !== 'any' && fallback.kind !== 'any' && value.kind !== 'null') {
          const base = nonNull(value);
          const fits = isAssignable(nonNull(fallback), base) || isAssignable(base, nonNull(fallback));
          if (!fits && expr.args[1]) {
            this.mismatch(
              expr.args[1].span,
              `the fallback of default must be ${withArticle(typeForMessage(base))} like the value it stands in for, not ${typeForMessage(fallback)}`,
            );
          }
        }
        break;
      }
    }
  }
}

function walk(context: CheckContext, template: BoundTemplate, root: Expr): void {
  const checker = new TypeChecker(context, template);
  const stack: Expr[] = [root];
  while (stack.length) {
    const expr = stack.pop()!;
    checker.check(expr);
    switch (expr.kind) {
      case 'unary':
        stack.push(expr.operand);
        break;
      case 'binary':
        stack.push(expr.left, expr.right);
        break;
      case 'member':
        stack.push(expr.object);
        break;
      case 'index':
        stack.push(expr.object, expr.index);
        break;
      case 'call':
        for (const arg of expr.args) stack.push(arg);
        break;
      case 'list':
        for (const item of expr.items) stack.push(item);
        break;
    }
  }
}

/** The guard of a nullable value, with a fallback of its type the author can write as it stands. */
function guard(type: Type): string {
  switch (nonNull(type).kind) {
    case 'string':
    case 'enum':
      return "default(…, '')";
    case 'number':
    case 'integer':
      return 'default(…, 0)';
    case 'boolean':
      return 'default(…, false)';
    case 'list':
      return 'default(…, [])';
    default:
      return 'default(…)';
  }
}

function withArticle(noun: string): string {
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

function isNumeric(type: Type): boolean {
  return type.kind === 'number' || type.kind === 'integer';
}

function isTextual(type: Type): boolean {
  return type.kind === 'string' || type.kind === 'enum';
}
