import { BUILTIN_FUNCTIONS, closest } from '@kairoku-playbook/grammar';
import type { Expr, Span } from '@kairoku-playbook/grammar';
import type { CheckContext } from '../check-context.js';
import { ancestorThroughMisspeltNeed } from '../checks/misspelt-needs.js';
import { replaceFix, shown, shownList } from '../diagnostic.js';
import type { OffsetRange } from '../diagnostic.js';
import type { StepDecl, TextRef } from '../model/model.js';
import {
  ANY,
  BOOLEAN,
  INTEGER,
  NULL,
  NUMBER,
  STRING,
  enumOf,
  isAssignable,
  isNullable,
  nonNull,
  nullable,
  typeForMessage,
} from '../types/type.js';
import type { Type } from '../types/type.js';
import { CHECK_OUTPUTS, CONTEXT_ROOTS, STEP_STATUSES, mayBeAbsent } from './scope.js';
import type { Scope } from './scope.js';
import type { Reference, TemplateInfo } from './template-info.js';

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
 * Binds and type-checks the expressions of one template: PB202–PB206, PB209, PB401, PB402, PB407.
 * Every unknown yields `any`, so one mistake is reported once and nothing downstream cascades.
 */

/** The types `steps.S` reads, per check context (see `stepView`). */
const stepViews = new WeakMap<CheckContext, Map<StepDecl, [Type | undefined, Type | undefined]>>();

export class ExpressionChecker {
  constructor(
    private readonly context: CheckContext,
    private readonly info: TemplateInfo,
    private readonly scope: Scope,
  ) {}

  private range(span: Span): OffsetRange {
    return this.context.rangeIn(this.info.text, span.start, span.end);
  }

  private get text(): TextRef {
    return this.info.text;
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
        return this.index(expr);
      case 'unary': {
        const operand = this.infer(expr.operand);
        this.expectBoolean(operand, expr.operand, '"!"');
        return BOOLEAN;
      }
      case 'binary':
        return this.binary(expr);
      case 'call':
        return this.call(expr);
    }
  }

  private identifier(expr: Extract<Expr, { kind: 'identifier' }>): Type {
    if ((CONTEXT_ROOTS as readonly string[]).includes(expr.name)) {
      if (!this.rootVisible(expr.name)) {
        this.context.report(
          'PB209',
          this.range(expr.span),
          `"${shown(expr.name)}" is not available here: ${this.rootWhere(expr.name)}`,
        );
        return ANY;
      }
      if (expr.name === 'inputs') return this.wholeInputs(expr);
      if (expr.name === 'steps') {
        this.context.report(
          'PB209',
          this.range(expr.span),
          '"steps" must be followed by a step name, as in steps.plan.outputs.x',
        );
        return ANY;
      }
      // A bare context root is an object; its members are checked in `member`.
      return { kind: 'object', fields: new Map(), open: true };
    }
    const input = this.context.input(expr.name);
    if (input) {
      this.context.report(
        'PB209',
        this.range(expr.span),
        `unknown name "${shown(expr.name)}"; did you mean "inputs.${shown(expr.name)}"?`,
        { fix: replaceFix(this.range(expr.span), `inputs.${expr.name}`) },
      );
      return ANY;
    }
    const suggestion = closest(expr.name, CONTEXT_ROOTS);
    this.context.report(
      'PB209',
      this.range(expr.span),
      `unknown name "${shown(expr.name)}"${suggestion ? `; did you mean "${shown(suggestion)}"?` : `; expressions start with one of ${CONTEXT_ROOTS.join(', ')}`}`,
      { fix: replaceFix(this.range(expr.span), suggestion) },
    );
    return ANY;
  }

  /** `inputs` as a whole (say `toJSON(inputs)`) reads every input: each is referenced, and a secret is PB407. */
  private wholeInputs(expr: Extract<Expr, { kind: 'identifier' }>): Type {
    const fields = new Map<string, { type: Type; optional: boolean }>();
    for (const input of this.context.model.inputs) {
      this.reference({ kind: 'input', name: input.name }, expr.span);
      fields.set(input.name, { type: input.type ?? ANY, optional: !(input.required || input.defaultValue) });
    }
    const secret = this.context.model.inputs.find((i) => i.secret);
    const shownIn = VISIBLE_PLACES.get(this.info.place);
    if (secret && shownIn) {
      this.context.report(
        'PB407',
        this.range(expr.span),
        `"inputs" includes the secret input "${shown(secret.name)}", which would be shown in ${shownIn}; name the inputs you need instead`,
      );
    }
    return { kind: 'object', fields };
  }

  private rootVisible(root: string): boolean {
    switch (root) {
      case 'loop':
        return this.scope.owner !== undefined && !this.scope.owner.isAfter;
      case 'report':
        // A gate has no report: a person decided it.
        return this.scope.transition !== undefined && !this.scope.transition.isChoice;
      case 'gate':
        return this.scope.transition?.isChoice === true;
      default:
        return true;
    }
  }

  private rootWhere(root: string): string {
    switch (root) {
      case 'loop':
        return 'loop.* is available in the templates of steps';
      case 'report':
        return this.scope.transition?.isChoice
          ? 'a gate has no report; use gate.comment or gate.choice here'
          : "report.* is available in an outcome's transition (its feedback)";
      default:
        return "gate.* is available in a gate choice's transition (its feedback)";
    }
  }

  /**
   * Records a reference. Its range is worked out only when someone reads it (the editor, a later
   * diagnostic): mapping a span to the file builds the scalar's offset map, which a clean check never needs.
   */
  private reference(fields: DistributiveOmit<Reference, 'range'>, span: Span): void {
    let range: OffsetRange | undefined;
    this.info.references.push(
      Object.defineProperty(fields, 'range', {
        enumerable: true,
        get: () => (range ??= this.range(span)),
      }) as Reference,
    );
  }

  private member(expr: Extract<Expr, { kind: 'member' }>): Type {
    const object = expr.object;
    if (object.kind === 'identifier') {
      switch (object.name) {
        case 'inputs':
          return this.inputMember(expr);
        case 'steps':
          return this.stepMember(expr);
        case 'run':
        case 'loop':
        case 'report':
        case 'gate':
          if (!this.rootVisible(object.name)) {
            this.context.report(
              'PB209',
              this.range(object.span),
              `"${shown(object.name)}" is not available here: ${this.rootWhere(object.name)}`,
            );
            return ANY;
          }
          return this.fieldOf(this.contextObject(object.name), expr, object.name);
      }
    }
    const owner = this.infer(object);
    return this.fieldOf(owner, expr, undefined);
  }

  private contextObject(root: 'run' | 'loop' | 'report' | 'gate'): Type {
    const step = this.scope.owner;
    switch (root) {
      case 'run': {
        const fields: Record<string, Type> = { id: STRING, playbook: STRING, branch: STRING };
        if (this.scope.owner?.isAfter) fields.status = enumOf(['completed', 'failed', 'canceled']);
        return objectType(fields);
      }
      case 'loop':
        return objectType({ count: INTEGER, feedback: STRING });
      case 'report': {
        const outputs: Record<string, Type> = {};
        if (step?.kind === 'check') for (const name of CHECK_OUTPUTS) outputs[name] = INTEGER;
        else for (const output of step?.outputs ?? []) outputs[output.name] = nullable(output.type ?? ANY);
        return objectType({
          summary: STRING,
          outcome: enumOf(step?.outcomes.map((o) => o.name) ?? [], `step "${shown(String(step?.name))}"`),
          // Tagged with the step, so an unknown report output is PB204 like steps.S.outputs.X.
          outputs: {
            ...(objectType(outputs) as Extract<Type, { kind: 'object' }>),
            outputsOf: step?.name ?? '',
          },
        });
      }
      case 'gate':
        return objectType({
          comment: STRING,
          choice: enumOf(step?.outcomes.map((o) => o.name) ?? [], `gate "${shown(String(step?.name))}"`),
        });
    }
  }

  private fieldOf(owner: Type, expr: Extract<Expr, { kind: 'member' }>, rootName: string | undefined): Type {
    if (owner.kind === 'any') return ANY;
    const base = nonNull(owner);
    if (base.kind === 'object') {
      const field = base.fields.get(expr.property);
      if (base.outputsOf !== undefined) return this.output(base.outputsOf, field, expr);
      if (field) {
        const type = field.optional ? nullable(field.type) : field.type;
        return isNullable(owner) ? nullable(type) : type;
      }
      if (base.open) return ANY;
      const names = [...base.fields.keys()];
      const suggestion = closest(expr.property, names);
      const what = rootName ? `"${shown(rootName)}"` : `a value of type ${typeForMessage(owner)}`;
      this.context.report(
        'PB209',
        this.range(expr.propertySpan),
        `${what} has no property "${shown(expr.property)}"${suggestion ? `; did you mean "${shown(suggestion)}"?` : names.length ? `; it has ${shownList(names)}` : ''}`,
        { fix: replaceFix(this.range(expr.propertySpan), suggestion) },
      );
      return ANY;
    }
    this.context.report(
      'PB401',
      this.range(expr.propertySpan),
      `a value of type ${typeForMessage(owner)} has no properties; cannot read "${shown(expr.property)}"`,
    );
    return ANY;
  }

  private output(
    step: string,
    field: { type: Type; optional: boolean } | undefined,
    expr: Extract<Expr, { kind: 'member' }>,
  ): Type {
    if (field) {
      this.reference({ kind: 'output', step, output: expr.property }, expr.propertySpan);
      return field.type;
    }
    const range = this.range(expr.propertySpan);
    const declared = this.context.model.stepByName.get(step);
    // A step without one kind (PB107) may turn out a check step: its outputs are not wrong yet.
    if (declared && !declared.kind && (CHECK_OUTPUTS as readonly string[]).includes(expr.property))
      return ANY;
    const names =
      declared?.kind === 'check' ? [...CHECK_OUTPUTS] : (declared?.outputs.map((o) => o.name) ?? []);
    const suggestion = closest(expr.property, names);
    if (suggestion) this.context.meant.add(`output\u0000${step}\u0000${suggestion}`);
    const has = names.length ? `; it has ${shownList(names)}` : '; it declares no outputs';
    this.context.report(
      'PB204',
      range,
      `step "${shown(step)}" has no output "${shown(expr.property)}"${suggestion ? `; did you mean "${shown(suggestion)}"?` : has}`,
      { fix: replaceFix(range, suggestion) },
    );
    return ANY;
  }

  private inputMember(expr: Extract<Expr, { kind: 'member' }>): Type {
    const input = this.context.input(expr.property);
    if (!input) {
      const range = this.range(expr.propertySpan);
      const suggestion = closest(
        expr.property,
        this.context.model.inputs.map((i) => i.name),
      );
      if (suggestion) this.context.meant.add(`input\u0000${suggestion}`);
      this.context.report(
        'PB202',
        range,
        `unknown input "${shown(expr.property)}"${suggestion ? `; did you mean "${shown(suggestion)}"?` : ''}`,
        { fix: replaceFix(range, suggestion) },
      );
      return ANY;
    }
    this.reference({ kind: 'input', name: input.name }, expr.propertySpan);
    const shownIn = VISIBLE_PLACES.get(this.info.place);
    if (input.secret && shownIn) {
      this.context.report(
        'PB407',
        this.range(expr.span),
        `secret input "${shown(input.name)}" would be shown in ${shownIn}; pass it to a check step through env`,
      );
    }
    const type = input.type ?? ANY;
    return input.required || input.defaultValue ? type : nullable(type);
  }

  private stepMember(expr: Extract<Expr, { kind: 'member' }>): Type {
    const { model } = this.context;
    const step = model.stepByName.get(expr.property);
    if (!step) {
      const range = this.range(expr.propertySpan);
      const visible = this.visibleSteps().map((s) => s.name);
      const suggestion = closest(expr.property, visible) ?? closest(expr.property, this.context.stepNames);
      const isAfter = this.context.isAfterTask(expr.property);
      if (suggestion && !isAfter) this.context.meant.add(`step\u0000${suggestion}`);
      this.context.report(
        'PB203',
        range,
        isAfter
          ? `"${shown(expr.property)}" is an after-task; expressions can only refer to steps`
          : `unknown step "${shown(expr.property)}"${suggestion ? `; did you mean "${shown(suggestion)}"?` : ''}`,
        { fix: replaceFix(range, isAfter ? undefined : suggestion) },
      );
      return ANY;
    }
    this.reference({ kind: 'step', step: step.name }, expr.propertySpan);
    // (a step reached only through a misspelt need is that need's PB200, not a second mistake)
    if (!this.canSee(step) && !ancestorThroughMisspeltNeed(this.context, step, this.scope.owner!)) {
      const owner = this.scope.owner!;
      const message =
        step === owner
          ? `step "${shown(owner.name)}" cannot read its own results before it has run; use report.* in its outcomes`
          : `step "${shown(step.name)}" is not an ancestor of "${shown(owner.name)}", so it may not have run yet; add it to needs`;
      this.context.report('PB205', this.range(expr.propertySpan), message, {
        related: [this.context.related(step.keyRange, `"${shown(step.name)}" is declared here`)],
      });
    }
    return this.stepView(step);
  }

  private visibleSteps(): StepDecl[] {
    return this.context.model.steps.filter((s) => this.canSee(s));
  }

  private canSee(step: StepDecl): boolean {
    const owner = this.scope.owner;
    if (this.scope.seesAllSteps || !owner) return true;
    if (step === owner) return this.scope.transition !== undefined;
    if (this.context.graph.onCycle.has(owner.index)) return true;
    return this.context.graph.isAncestor(step.index, owner.index);
  }

  /**
   * What `steps.S` reads, built once per step and context and whether S may be absent: a step with
   * thousands of outputs, each read once, built thousands of maps of thousands of fields.
   */
  private stepView(step: StepDecl): Type {
    const absent = mayBeAbsent(this.context.model, step, this.scope);
    let views = stepViews.get(this.context);
    if (!views) stepViews.set(this.context, (views = new Map()));
    let pair = views.get(step);
    if (!pair) views.set(step, (pair = [undefined, undefined]));
    return (pair[absent ? 1 : 0] ??= this.buildStepView(step, absent));
  }

  private buildStepView(step: StepDecl, absent: boolean): Type {
    const maybe = (type: Type) => (absent ? nullable(type) : type);
    const outputs = new Map<string, { type: Type; optional: boolean }>();
    if (step.kind === 'check')
      for (const name of CHECK_OUTPUTS) outputs.set(name, { type: maybe(INTEGER), optional: false });
    for (const output of step.outputs)
      outputs.set(output.name, { type: maybe(output.type ?? ANY), optional: false });
    // A step without one kind (PB107) has no known outcomes yet: nothing to compare against.
    const outcome = step.kind
      ? enumOf(
          step.outcomes.map((o) => o.name),
          `${step.kind === 'gate' ? 'gate' : 'step'} "${shown(step.name)}"`,
        )
      : ANY;
    return {
      kind: 'object',
      fields: new Map([
        ['outputs', { type: { kind: 'object', fields: outputs, outputsOf: step.name }, optional: false }],
        ['outcome', { type: maybe(outcome), optional: false }],
        ['status', { type: enumOf(STEP_STATUSES), optional: false }],
        ['summary', { type: maybe(STRING), optional: false }],
        ['attempt', { type: INTEGER, optional: false }],
      ]),
    };
  }

  private index(expr: Extract<Expr, { kind: 'index' }>): Type {
    // `x['name']` reads the same property as `x.name`, and is bound the same way (inputs, steps, outputs).
    const key =
      expr.index.kind === 'literal' && typeof expr.index.value === 'string' ? expr.index.value : undefined;
    const asMember = (name: string): Extract<Expr, { kind: 'member' }> => {
      const { start, end } = expr.index.span;
      // The name inside the quotes, when no escape makes the source differ from the value.
      const inner = end - start - 2 === name.length ? { start: start + 1, end: end - 1 } : expr.index.span;
      return { kind: 'member', object: expr.object, property: name, propertySpan: inner, span: expr.span };
    };
    if (
      key !== undefined &&
      expr.object.kind === 'identifier' &&
      (CONTEXT_ROOTS as readonly string[]).includes(expr.object.name)
    ) {
      return this.member(asMember(key));
    }
    const owner = this.infer(expr.object);
    const index = this.infer(expr.index);
    if (owner.kind === 'any') return ANY;
    const base = nonNull(owner);
    if (base.kind === 'list') {
      if (!isAssignable(index, INTEGER) && index.kind !== 'any') {
        this.context.report(
          'PB401',
          this.range(expr.index.span),
          `a list index must be an integer, not ${typeForMessage(index)}`,
        );
      }
      return isNullable(owner) ? nullable(base.element) : base.element;
    }
    if (base.kind === 'object' && key !== undefined) return this.fieldOf(owner, asMember(key), undefined);
    this.context.report(
      'PB401',
      this.range(expr.object.span),
      `cannot index a value of type ${typeForMessage(owner)}`,
    );
    return ANY;
  }

  private binary(expr: Extract<Expr, { kind: 'binary' }>): Type {
    const left = this.infer(expr.left);
    const right = this.infer(expr.right);
    switch (expr.operator) {
      case '&&':
      case '||':
        this.expectBoolean(left, expr.left, `"${shown(expr.operator)}"`);
        this.expectBoolean(right, expr.right, `"${shown(expr.operator)}"`);
        return BOOLEAN;
      case '==':
      case '!=':
        this.checkEquality(expr, left, right);
        return BOOLEAN;
      default:
        this.checkOrdering(expr, left, right);
        return BOOLEAN;
    }
  }

  private expectBoolean(type: Type, expr: Expr, what: string): void {
    if (type.kind === 'any' || type.kind === 'boolean') return;
    if (type.kind === 'nullable' && type.inner.kind === 'boolean') {
      this.context.report(
        'PB401',
        this.range(expr.span),
        `${what} needs a boolean, but this may be null; guard it with default(…, false)`,
      );
      return;
    }
    this.context.report(
      'PB401',
      this.range(expr.span),
      `${what} needs a boolean, not ${typeForMessage(type)}`,
    );
  }

  private checkEquality(expr: Extract<Expr, { kind: 'binary' }>, left: Type, right: Type): void {
    if (left.kind === 'any' || right.kind === 'any') return;
    const l = nonNull(left);
    const r = nonNull(right);
    for (const [enumSide, other, otherExpr] of [
      [l, r, expr.right],
      [r, l, expr.left],
    ] as const) {
      if (enumSide.kind === 'enum' && otherExpr.kind === 'literal' && typeof otherExpr.value === 'string') {
        if (enumSide.members.includes(otherExpr.value)) return;
        const suggestion = closest(otherExpr.value, enumSide.members);
        const range = this.range(otherExpr.span);
        const fix = suggestion
          ? { fix: { title: `Replace with '${suggestion}'`, edits: [{ range, newText: `'${suggestion}'` }] } }
          : {};
        const allowed = shownList(enumSide.members);
        if (enumSide.origin) {
          this.context.report(
            'PB206',
            range,
            `${enumSide.origin} has no ${enumSide.origin.startsWith('gate') ? 'choice' : 'outcome'} "${shown(otherExpr.value)}"${suggestion ? `; did you mean "${shown(suggestion)}"?` : `; it has ${allowed}`}`,
            fix,
          );
        } else {
          this.context.report(
            'PB401',
            range,
            `"${shown(otherExpr.value)}" is not one of ${allowed}, so this comparison is never true`,
            fix,
          );
        }
        return;
      }
      void other;
    }
    if (l.kind === 'null' || r.kind === 'null') return;
    if (
      !isAssignable(l, r) &&
      !isAssignable(r, l) &&
      !(isNumeric(l) && isNumeric(r)) &&
      !(isTextual(l) && isTextual(r))
    ) {
      this.context.report(
        'PB401',
        this.range(expr.operatorSpan),
        `comparing ${typeForMessage(left)} with ${typeForMessage(right)} is never true`,
      );
    }
  }

  private checkOrdering(expr: Extract<Expr, { kind: 'binary' }>, left: Type, right: Type): void {
    for (const [type, side] of [
      [left, expr.left],
      [right, expr.right],
    ] as const) {
      if (type.kind === 'nullable') {
        this.context.report(
          'PB401',
          this.range(side.span),
          `"${shown(expr.operator)}" needs a value, but this may be null; guard it with default(…)`,
        );
        return;
      }
    }
    if (left.kind === 'any' || right.kind === 'any') return;
    if ((isNumeric(left) && isNumeric(right)) || (isTextual(left) && isTextual(right))) return;
    this.context.report(
      'PB401',
      this.range(expr.operatorSpan),
      `"${shown(expr.operator)}" compares two numbers (or two strings), not ${typeForMessage(left)} and ${typeForMessage(right)}`,
    );
  }

  private call(expr: Extract<Expr, { kind: 'call' }>): Type {
    const fn = BUILTIN_FUNCTIONS.find((f) => f.name === expr.callee);
    const args = expr.args.map((a) => this.infer(a));
    if (!fn) {
      const suggestion =
        closest(
          expr.callee,
          BUILTIN_FUNCTIONS.map((f) => f.name),
        ) ?? FUNCTION_ALIASES.get(expr.callee);
      const range = this.range(expr.calleeSpan);
      this.context.report(
        'PB402',
        range,
        `unknown function "${shown(expr.callee)}"${suggestion ? `; did you mean "${shown(suggestion)}"?` : `; the functions are ${BUILTIN_FUNCTIONS.map((f) => f.name).join(', ')}`}`,
        { fix: replaceFix(range, suggestion) },
      );
      return ANY;
    }
    if (args.length < fn.minArgs || args.length > fn.maxArgs) {
      const expected =
        fn.maxArgs === Infinity
          ? `at least ${fn.minArgs}`
          : fn.minArgs === fn.maxArgs
            ? `${fn.minArgs}`
            : `${fn.minArgs} or ${fn.maxArgs}`;
      this.context.report(
        'PB402',
        this.range(expr.span),
        `${fn.name} takes ${expected} argument${expected.endsWith(' 1') || expected === '1' ? '' : 's'}, not ${args.length}: ${fn.signature}`,
      );
      return resultOf(fn.name, args);
    }
    const expectArg = (i: number, accepts: (t: Type) => boolean, what: string) => {
      const type = args[i];
      const arg = expr.args[i];
      if (!type || !arg || type.kind === 'any') return;
      if (isNullable(type) && fn.name !== 'default' && fn.name !== 'toJSON') {
        this.context.report(
          'PB401',
          this.range(arg.span),
          `argument ${i + 1} of ${fn.name} may be null; guard it with default(…)`,
        );
        return;
      }
      if (!accepts(nonNull(type))) {
        this.context.report(
          'PB401',
          this.range(arg.span),
          `argument ${i + 1} of ${fn.name} must be ${what}, not ${typeForMessage(type)}`,
        );
      }
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
            this.context.report(
              'PB401',
              this.range(expr.args[1].span),
              `the fallback of default must be ${withArticle(typeForMessage(base))} like the value it stands in for, not ${typeForMessage(fallback)}`,
            );
          }
        }
        break;
      }
    }
    return resultOf(fn.name, args);
  }
}

function resultOf(name: string, args: Type[]): Type {
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

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function withArticle(noun: string): string {
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

function isNumeric(type: Type): boolean {
  return type.kind === 'number' || type.kind === 'integer';
}

function isTextual(type: Type): boolean {
  return type.kind === 'string' || type.kind === 'enum';
}

function objectType(fields: Record<string, Type>): Type {
  return {
    kind: 'object',
    fields: new Map(Object.entries(fields).map(([n, t]) => [n, { type: t, optional: false }])),
  };
}
