import {
  BUILTIN_FUNCTION_NAMES,
  CONTEXT_ROOTS,
  closest,
  getBuiltinFunction,
  isContextRoot,
} from '@kairoku-playbook/grammar';
import type { Expr } from '@kairoku-playbook/grammar';
import {
  ANY,
  BOOLEAN,
  INTEGER,
  NULL,
  NUMBER,
  STRING,
  isAssignable,
  isNullable,
  nonNull,
  nullable,
} from '../types/type.js';
import type { Type } from '../types/type.js';
import { nameInExpression } from './references.js';
import type {
  ContextReference,
  ExpressionReference,
  FunctionReference,
  InputReference,
  Locator,
  NameReference,
  OutcomeReference,
  OutputReference,
  PropertyReference,
  StepReference,
} from './references.js';
import { CHECK_OUTPUTS } from './scope-provider.js';
import type { Scope, ScopeProvider } from './scope-provider.js';
import type { BoundTemplate } from './template.js';

/** Names from other languages that mean one of ours, for "did you mean" where the spelling is too far. */
const FUNCTION_ALIASES = new Map([
  ['length', 'len'],
  ['size', 'len'],
  ['count', 'len'],
  ['includes', 'contains'],
  ['has', 'contains'],
  ['starts_with', 'startsWith'],
  ['ends_with', 'endsWith'],
  ['coalesce', 'default'],
  ['stringify', 'toJSON'],
]);

/**
 * Binds the expressions of one template: resolves every name with the scope provider, types every node,
 * and records each name in the reference index (resolved or not). It reports nothing: the checks read what
 * it records. Every name that does not resolve has type `any`, so one mistake is one diagnostic and
 * nothing downstream cascades.
 */
export class ExpressionBinder {
  private types: Map<Expr, Type> | undefined;

  constructor(
    private readonly scopes: ScopeProvider,
    private readonly locator: Locator,
    private readonly template: BoundTemplate,
    private readonly index: ExpressionReference[],
  ) {}

  private get scope(): Scope {
    return this.template.scope;
  }

  private record<T extends ExpressionReference>(reference: T): T {
    this.index.push(reference);
    return reference;
  }

  /** The type of an operand, kept for the checks (the types of member chains they do not need). */
  private typed(expr: Expr): Type {
    const type = this.infer(expr);
    (this.types ??= this.template.types = new Map()).set(expr, type);
    return type;
  }

  infer(expr: Expr): Type {
    switch (expr.kind) {
      case 'error':
        return ANY;
      case 'literal':
        if (expr.value === null) return NULL;
        if (typeof expr.value === 'string') return STRING;
        if (typeof expr.value === 'boolean') return BOOLEAN;
        return Number.isInteger(expr.value) ? INTEGER : NUMBER;
      case 'identifier':
        return this.identifier(expr);
      case 'member':
        return this.member(expr);
      case 'index':
        return this.indexed(expr);
      case 'unary':
        this.typed(expr.operand);
        return BOOLEAN;
      case 'binary':
        return this.binary(expr);
      case 'call':
        return this.call(expr);
      case 'list':
        return listType(expr.items.map((item) => this.typed(item)));
    }
  }

  private identifier(expr: Extract<Expr, { kind: 'identifier' }>): Type {
    const name = expr.name;
    const { locator, template } = this;
    if (isContextRoot(name)) {
      const visible = this.scopes.rootVisible(name, this.scope);
      let type: Type = ANY;
      if (visible && name === 'inputs') type = this.wholeInputs(expr);
      // A bare context root is an object; its members are checked in `member`.
      else if (visible && name !== 'steps') type = { kind: 'object', fields: new Map(), open: true };
      this.record(
        nameInExpression<ContextReference>(locator, template, expr.span, type, {
          kind: 'context',
          name,
          visible,
          bare: true,
        }),
      );
      return type;
    }
    const input = this.scopes.input(name);
    const suggestion = input ? undefined : closest(name, CONTEXT_ROOTS);
    this.record(
      nameInExpression<NameReference>(locator, template, expr.span, ANY, {
        kind: 'name',
        name,
        input,
        suggestion,
      }),
    );
    return ANY;
  }

  /** `inputs` as a whole (say `toJSON(inputs)`) reads every input. */
  private wholeInputs(expr: Extract<Expr, { kind: 'identifier' }>): Type {
    const fields = new Map<string, { type: Type; optional: boolean }>();
    for (const input of this.scopes.model.inputs) {
      const type = input.type ?? ANY;
      const reference = this.record(
        nameInExpression<InputReference>(this.locator, this.template, expr.span, type, {
          kind: 'input',
          name: input.name,
          target: input,
          suggestion: undefined,
          whole: true,
          exprSpan: expr.span,
        }),
      );
      this.template.references.push(reference);
      fields.set(input.name, { type, optional: !(input.required || input.defaultValue) });
    }
    return { kind: 'object', fields };
  }

  private member(expr: Extract<Expr, { kind: 'member' }>): Type {
    const object = expr.object;
    if (object.kind === 'identifier') {
      switch (object.name) {
        case 'inputs':
          this.root(object, 'inputs', true);
          return this.inputMember(expr);
        case 'steps':
          this.root(object, 'steps', true);
          return this.stepMember(expr);
        case 'run':
        case 'loop':
        case 'report':
        case 'gate': {
          const visible = this.scopes.rootVisible(object.name, this.scope);
          this.root(object, object.name, visible);
          if (!visible) return ANY;
          return this.fieldOf(this.scopes.rootType(object.name, this.scope), expr, object.name);
        }
      }
    }
    const owner = this.infer(object);
    return this.fieldOf(owner, expr, undefined);
  }

  /** A context root followed by a name (`inputs.task`): recorded, not typed on its own. */
  private root(
    object: Extract<Expr, { kind: 'identifier' }>,
    name: 'inputs' | 'steps' | 'run' | 'loop' | 'report' | 'gate',
    visible: boolean,
  ): void {
    // (a root that exists here, followed by a name, resolves nothing by itself: only what follows does)
    if (!visible)
      this.record(
        nameInExpression<ContextReference>(this.locator, this.template, object.span, ANY, {
          kind: 'context',
          name,
          visible,
          bare: false,
        }),
      );
  }

  private fieldOf(owner: Type, expr: Extract<Expr, { kind: 'member' }>, rootName: string | undefined): Type {
    if (owner.kind === 'any') return ANY;
    const base = nonNull(owner);
    if (base.kind === 'object') {
      const field = base.fields.get(expr.property);
      if (base.outputsOf !== undefined) return this.output(base.outputsOf, field, expr);
      if (field) {
        const fieldType = field.optional ? nullable(field.type) : field.type;
        return isNullable(owner) ? nullable(fieldType) : fieldType;
      }
      if (base.open) return ANY;
      this.property(expr, owner, rootName, 'unknown', ANY);
      return ANY;
    }
    this.property(expr, owner, rootName, 'not-an-object', ANY);
    return ANY;
  }

  private property(
    expr: Extract<Expr, { kind: 'member' }>,
    ownerType: Type,
    root: string | undefined,
    status: 'unknown' | 'not-an-object',
    type: Type,
  ): void {
    let candidates: readonly string[] = NONE;
    let suggestion: string | undefined;
    if (status === 'unknown') {
      const base = nonNull(ownerType) as Extract<Type, { kind: 'object' }>;
      candidates = [...base.fields.keys()];
      suggestion = closest(expr.property, candidates);
    }
    this.record(
      nameInExpression<PropertyReference>(this.locator, this.template, expr.propertySpan, type, {
        kind: 'property',
        name: expr.property,
        ownerType,
        root,
        ownerText: this.template.text.value.slice(expr.object.span.start, expr.object.span.end),
        status,
        candidates,
        suggestion,
      }),
    );
  }

  private output(
    step: string,
    field: { type: Type; optional: boolean } | undefined,
    expr: Extract<Expr, { kind: 'member' }>,
  ): Type {
    const declared = this.scopes.step(step);
    const { locator, template } = this;
    if (field) {
      const target =
        declared?.outputs.find((o) => o.name === expr.property) ??
        CHECK_OUTPUTS.find((name) => name === expr.property);
      const reference = this.record(
        nameInExpression<OutputReference>(locator, template, expr.propertySpan, field.type, {
          kind: 'output',
          step,
          output: expr.property,
          status: 'found',
          target,
          candidates: NONE,
          suggestion: undefined,
        }),
      );
      this.template.references.push(reference);
      return field.type;
    }
    // A step without one kind (PB107) may turn out a check step: its outputs are not wrong yet.
    const notYet =
      declared !== undefined &&
      !declared.kind &&
      (CHECK_OUTPUTS as readonly string[]).includes(expr.property);
    const candidates = notYet
      ? NONE
      : declared?.kind === 'check'
        ? [...CHECK_OUTPUTS]
        : (declared?.outputs.map((o) => o.name) ?? NONE);
    const suggestion = notYet ? undefined : closest(expr.property, candidates);
    this.record(
      nameInExpression<OutputReference>(locator, template, expr.propertySpan, ANY, {
        kind: 'output',
        step,
        output: expr.property,
        status: notYet ? 'not-yet' : 'unknown',
        target: undefined,
        candidates,
        suggestion,
      }),
    );
    return ANY;
  }

  private inputMember(expr: Extract<Expr, { kind: 'member' }>): Type {
    const input = this.scopes.input(expr.property);
    const type = input ? this.scopes.inputType(input) : ANY;
    const suggestion = input
      ? undefined
      : closest(
          expr.property,
          this.scopes.model.inputs.map((i) => i.name),
        );
    const reference = this.record(
      nameInExpression<InputReference>(this.locator, this.template, expr.propertySpan, type, {
        kind: 'input',
        name: expr.property,
        target: input,
        suggestion,
        whole: false,
        exprSpan: expr.span,
      }),
    );
    if (input) this.template.references.push(reference);
    return type;
  }

  private stepMember(expr: Extract<Expr, { kind: 'member' }>): Type {
    const step = this.scopes.step(expr.property);
    const { locator, template } = this;
    if (!step) {
      const afterTask = this.scopes.afterTask(expr.property) !== undefined;
      const visible = this.scopes.visibleSteps(this.scope).map((s) => s.name);
      const suggestion = closest(expr.property, visible) ?? closest(expr.property, this.scopes.stepNames);
      this.record(
        nameInExpression<StepReference>(locator, template, expr.propertySpan, ANY, {
          kind: 'step',
          step: expr.property,
          target: undefined,
          visible: false,
          afterTask,
          suggestion,
        }),
      );
      return ANY;
    }
    const visible = this.scopes.canSee(this.scope, step);
    // A step this place may not read (PB205) may not have run: that one mistake is PB205's. Its results
    // are typed as if it had run, so that PB401 "may be null" does not say it again on the same reference.
    const type = this.scopes.stepType(step, visible ? this.scope : undefined);
    const reference = this.record(
      nameInExpression<StepReference>(locator, template, expr.propertySpan, type, {
        kind: 'step',
        step: step.name,
        target: step,
        visible,
        afterTask: false,
        suggestion: undefined,
      }),
    );
    this.template.references.push(reference);
    return type;
  }

  private indexed(expr: Extract<Expr, { kind: 'index' }>): Type {
    // `x['name']` reads the same property as `x.name`, and is bound the same way (inputs, steps, outputs).
    const key = indexKey(expr);
    if (key !== undefined && expr.object.kind === 'identifier' && isContextRoot(expr.object.name)) {
      return this.member(asMember(expr, key));
    }
    const owner = this.typed(expr.object);
    this.typed(expr.index);
    if (owner.kind === 'any') return ANY;
    const base = nonNull(owner);
    if (base.kind === 'list') return isNullable(owner) ? nullable(base.element) : base.element;
    if (base.kind === 'object' && key !== undefined)
      return this.fieldOf(owner, asMember(expr, key), undefined);
    return ANY;
  }

  private binary(expr: Extract<Expr, { kind: 'binary' }>): Type {
    const left = this.typed(expr.left);
    const right = this.typed(expr.right);
    if (expr.operator === '==' || expr.operator === '!=') {
      const compared = enumLiteralComparison(left, right, expr);
      if (compared?.enumType.origin !== undefined) this.outcome(compared.enumType, compared.literal);
    }
    return BOOLEAN;
  }

  /** A string compared with a step's outcomes or a gate's choices names one of them. */
  private outcome(
    enumType: Extract<Type, { kind: 'enum' }>,
    literal: Extract<Expr, { kind: 'literal' }>,
  ): void {
    const value = literal.value as string;
    const owner = this.scopes.outcomesOwner(enumType);
    const found = enumType.members.includes(value);
    const { start, end } = literal.span;
    // The name inside the quotes, when no escape makes the source differ from the value.
    const inner = this.template.text.value.slice(start + 1, end - 1) === value;
    this.record(
      nameInExpression<OutcomeReference>(this.locator, this.template, literal.span, STRING, {
        kind: 'outcome',
        step: owner?.name ?? '',
        outcome: value,
        owner,
        target: found ? owner?.outcomes.find((o) => o.name === value) : undefined,
        enumType,
        suggestion: found ? undefined : closest(value, enumType.members),
        nameSpan: inner ? { start: start + 1, end: end - 1 } : literal.span,
      }),
    );
  }

  private call(expr: Extract<Expr, { kind: 'call' }>): Type {
    const fn = getBuiltinFunction(expr.callee);
    const args = expr.args.map((a) => this.typed(a));
    const type = fn ? resultOf(fn.name, args) : ANY;
    const suggestion = fn
      ? undefined
      : (closest(expr.callee, BUILTIN_FUNCTION_NAMES) ?? FUNCTION_ALIASES.get(expr.callee));
    this.record(
      nameInExpression<FunctionReference>(this.locator, this.template, expr.calleeSpan, type, {
        kind: 'function',
        name: expr.callee,
        target: fn,
        suggestion,
        callSpan: expr.span,
        argumentCount: args.length,
      }),
    );
    return type;
  }
}

/** No names: shared, never changed. */
const NONE: readonly string[] = [];

/** The name an index expression reads, when it is a string literal (`x['name']`). */
export function indexKey(expr: Extract<Expr, { kind: 'index' }>): string | undefined {
  return expr.index.kind === 'literal' && typeof expr.index.value === 'string' ? expr.index.value : undefined;
}

/** `x['name']` as the member expression `x.name` it reads. */
function asMember(expr: Extract<Expr, { kind: 'index' }>, name: string): Extract<Expr, { kind: 'member' }> {
  const { start, end } = expr.index.span;
  // The name inside the quotes, when no escape makes the source differ from the value.
  const inner = end - start - 2 === name.length ? { start: start + 1, end: end - 1 } : expr.index.span;
  return { kind: 'member', object: expr.object, property: name, propertySpan: inner, span: expr.span };
}

/**
 * In `a == b`, the first side that is an enum compared with a string literal on the other side: the
 * literal must be one of the enum's members (an outcome, a choice, a value of an enum input).
 */
export function enumLiteralComparison(
  left: Type,
  right: Type,
  expr: Extract<Expr, { kind: 'binary' }>,
): { enumType: Extract<Type, { kind: 'enum' }>; literal: Extract<Expr, { kind: 'literal' }> } | undefined {
  if (left.kind === 'any' || right.kind === 'any') return undefined;
  const l = nonNull(left);
  const r = nonNull(right);
  for (const [enumSide, otherExpr] of [
    [l, expr.right],
    [r, expr.left],
  ] as const) {
    if (enumSide.kind === 'enum' && otherExpr.kind === 'literal' && typeof otherExpr.value === 'string')
      return { enumType: enumSide, literal: otherExpr };
  }
  return undefined;
}

/**
 * The type of a list literal from its items' types: a list of the widest of them (`[1, 2.5]` is a
 * list<number>, `[]` a list of anything), of `any` when they have no common type (PB401 says so).
 */
export function listType(items: readonly Type[]): Type {
  let element: Type | undefined;
  for (const item of items) element = element === undefined ? item : commonType(element, item);
  return { kind: 'list', element: element ?? ANY };
}

/** The type both are assignable to, when one of them is (else `any`). */
export function commonType(a: Type, b: Type): Type {
  if (a.kind === 'any' || b.kind === 'any') return ANY;
  if (isAssignable(a, b)) return b;
  if (isAssignable(b, a)) return a;
  // (null and a value: the value's type, nullable)
  if (a.kind === 'null') return nullable(b);
  if (b.kind === 'null') return nullable(a);
  if (isAssignable(nonNull(a), nonNull(b))) return nullable(nonNull(b));
  if (isAssignable(nonNull(b), nonNull(a))) return nullable(nonNull(a));
  return ANY;
}

/** The type of a call of a built-in function with arguments of these types. */
export function resultOf(name: string, args: Type[]): Type {
  switch (name) {
    case 'contains':
    case 'startsWith':
    case 'endsWith':
      return BOOLEAN;
    case 'len':
      return INTEGER;
    case 'default': {
      const [value, fallback] = args;
      if (!value || !fallback) return ANY;
      if (value.kind === 'any' || fallback.kind === 'any') return ANY;
      const base = value.kind === 'null' ? fallback : nonNull(value);
      const joined = isAssignable(nonNull(fallback), base)
        ? base
        : isAssignable(base, nonNull(fallback))
          ? nonNull(fallback)
          : ANY;
      return isNullable(fallback) ? nullable(joined) : joined;
    }
    default:
      return STRING;
  }
}
