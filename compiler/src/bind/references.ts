/**
 * The reference index of one playbook: every name written where a declaration is meant, resolved (or not)
 * by binding, with what it resolves to, its type, its scope (its template's) and its range. The YAML
 * structure's references (needs, roles, role bases, loop targets); in expressions, every input, step,
 * output, outcome and function named, every bare name, and every context root or property that does not
 * resolve where it is written (a root that exists there, or a property a value has, names no declaration
 * and is not kept: the scope provider answers what they hold).
 */
import type { BuiltinFunction, ContextRoot, Span } from '@kairoku-playbook/grammar';
import type { OffsetRange } from '../diagnostic.js';
import type {
  FixedBase,
  InputDecl,
  OutcomeDecl,
  OutputDecl,
  RoleDecl,
  StepDecl,
  TextRef,
} from '../model/model.js';
import type { Type } from '../types/type.js';
import type { CHECK_OUTPUTS } from './scope-provider.js';
import type { BoundTemplate } from './template.js';

export type SymbolReference =
  NeedReference | RoleReference | RoleBaseReference | LoopTargetReference | ExpressionReference;

export type ExpressionReference =
  | ContextReference
  | NameReference
  | InputReference
  | StepReference
  | OutputReference
  | PropertyReference
  | OutcomeReference
  | FunctionReference;

/** A name in a step's `needs`. */
export interface NeedReference {
  kind: 'need';
  name: string;
  range: OffsetRange;
  from: StepDecl;
  /** the step named (the step itself for a self-need) */
  target: StepDecl | undefined;
  /** the need names its own step */
  self: boolean;
  /** for a need that names no step: the step a did-you-mean suggests */
  suggestion: string | undefined;
}

/** The `role:` of an agent step or an after-task. */
export interface RoleReference {
  kind: 'role';
  name: string;
  range: OffsetRange;
  from: StepDecl;
  target: RoleDecl | undefined;
  suggestion: string | undefined;
}

/** The `base:` of a declared role: a base of the fixed table. */
export interface RoleBaseReference {
  kind: 'role-base';
  name: string;
  range: OffsetRange;
  from: RoleDecl;
  target: FixedBase | undefined;
  suggestion: string | undefined;
}

/** The step a loop transition goes back to. */
export interface LoopTargetReference {
  kind: 'loop-target';
  name: string;
  range: OffsetRange;
  from: StepDecl;
  outcome: OutcomeDecl;
  target: StepDecl | undefined;
  /** for a target that names no step: the ancestor (or else the step) a did-you-mean suggests */
  suggestion: string | undefined;
}

/** What every name in an expression has: its template (and so its scope) and where it is written. */
export interface InExpression {
  template: BoundTemplate;
  /** in the scalar's decoded value */
  span: Span;
  /** in the file; worked out when first read (it builds the scalar's offset map) */
  readonly range: OffsetRange;
  /** what the name reads; `any` when it does not resolve */
  type: Type;
}

/** A context root written alone (`toJSON(inputs)`, `steps`), or where it does not exist (`loop` in an after-task). */
export interface ContextReference extends InExpression {
  kind: 'context';
  name: ContextRoot;
  /** whether the root exists at this place (`loop` in steps, `report` and `gate` in transitions) */
  visible: boolean;
  /** written alone (`toJSON(inputs)`, `steps`), not followed by a name */
  bare: boolean;
}

/** A bare name that is not a context root (`task` for `inputs.task`). */
export interface NameReference extends InExpression {
  kind: 'name';
  name: string;
  /** the input of that name, when there is one: `inputs.NAME` was meant */
  input: InputDecl | undefined;
  /** otherwise, the context root a did-you-mean suggests */
  suggestion: string | undefined;
}

export interface InputReference extends InExpression {
  kind: 'input';
  name: string;
  target: InputDecl | undefined;
  suggestion: string | undefined;
  /** read through a bare `inputs` (every input is) */
  whole: boolean;
  /** the whole `inputs.NAME` */
  exprSpan: Span;
}

export interface StepReference extends InExpression {
  kind: 'step';
  /** the step's name, as written */
  step: string;
  target: StepDecl | undefined;
  /** whether the scope may read the step (an ancestor, or itself in its own transitions) */
  visible: boolean;
  /** the name is an after-task's, which expressions cannot read */
  afterTask: boolean;
  suggestion: string | undefined;
}

/** An output of a step: `steps.S.outputs.O`, or `report.outputs.O` in a step's transitions. */
export interface OutputReference extends InExpression {
  kind: 'output';
  /** the step whose outputs are read */
  step: string;
  output: string;
  /** `found`; `unknown`; or `not-yet`: the step has no kind yet (PB107), and this may be a check step's output */
  status: 'found' | 'unknown' | 'not-yet';
  /** the output declared, or a check step's built-in output */
  target: OutputDecl | (typeof CHECK_OUTPUTS)[number] | undefined;
  /** the outputs the step has */
  candidates: readonly string[];
  suggestion: string | undefined;
}

/** A property of a value that is not a declaration (`run.idd`, `inputs.config.prot`) that the value has not. */
export interface PropertyReference extends InExpression {
  kind: 'property';
  name: string;
  /** the type of the value the property is read from */
  ownerType: Type;
  /** the context root read, when the property is a root's (`run.id`) */
  root: string | undefined;
  /** the expression the property is read from, as written (`steps.plan.outputs.report`) */
  ownerText: string;
  /** `unknown`: the value has no such property; `not-an-object`: the value has no properties at all */
  status: 'unknown' | 'not-an-object';
  candidates: readonly string[];
  suggestion: string | undefined;
}

/** A string compared with a step's outcome or a gate's choice (`steps.qa.outcome == 'pass'`). */
export interface OutcomeReference extends InExpression {
  kind: 'outcome';
  step: string;
  outcome: string;
  /** the step whose outcomes are compared with */
  owner: StepDecl | undefined;
  target: OutcomeDecl | undefined;
  /** the outcomes' enum, whose `origin` names the step in messages */
  enumType: Extract<Type, { kind: 'enum' }>;
  suggestion: string | undefined;
  /** the name inside the quotes when it is written without escapes, else the whole literal */
  nameSpan: Span;
}

export interface FunctionReference extends InExpression {
  kind: 'function';
  name: string;
  target: BuiltinFunction | undefined;
  suggestion: string | undefined;
  /** the whole call */
  callSpan: Span;
  argumentCount: number;
}

/** Maps a span of a scalar's value to the file. */
export interface Locator {
  rangeIn(text: TextRef, start: number, end: number): OffsetRange;
}

/**
 * What every name of an expression is built on: its range is worked out when first read (a file has tens
 * of thousands of them, most never asked).
 */
export class NameInExpression {
  private cached: OffsetRange | undefined;

  constructor(
    private readonly locator: Locator,
    readonly template: BoundTemplate,
    readonly span: Span,
    readonly type: Type,
  ) {}

  get range(): OffsetRange {
    return (this.cached ??= this.locator.rangeIn(this.template.text, this.span.start, this.span.end));
  }

  /** After an edit moved the text (incremental.ts): the range is worked out again when next read. */
  forgetRange(): void {
    this.cached = undefined;
  }
}

/** A name of an expression of one kind: what every name has, and the fields of its kind. */
export function nameInExpression<R extends ExpressionReference>(
  locator: Locator,
  template: BoundTemplate,
  span: Span,
  type: Type,
  fields: Omit<R, keyof InExpression>,
): NameInExpression & Omit<R, keyof InExpression> {
  return Object.assign(new NameInExpression(locator, template, span, type), fields);
}
