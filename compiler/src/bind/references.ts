/**
 * The reference index of one playbook: every name written where a declaration is meant, resolved (or not)
 * by binding. The YAML structure's references (needs, roles, role bases, loop targets) and every name in an
 * expression (context roots, inputs, steps, outputs, properties, outcomes, functions), each with what it
 * resolves to, its type, its scope (its template's) and its range.
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
  | NeedReference
  | RoleReference
  | RoleBaseReference
  | LoopTargetReference
  | ExpressionReference;

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

/** A context root: `inputs`, `steps`, `run`, `loop`, `report`, `gate`. */
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

/** A property of a value that is not a declaration (`run.id`, `steps.S.outcome`, `inputs.config.port`). */
export interface PropertyReference extends InExpression {
  kind: 'property';
  name: string;
  /** the type of the value the property is read from */
  ownerType: Type;
  /** the context root read, when the property is a root's (`run.id`) */
  root: string | undefined;
  /** `found`; `open`: any property may be read; `unknown`: the value has no such property; `not-an-object` */
  status: 'found' | 'open' | 'unknown' | 'not-an-object';
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

/** The range of a name in an expression, worked out when first read. */
export class LazyRange {
  private cached: OffsetRange | undefined;

  constructor(
    readonly template: BoundTemplate,
    readonly span: Span,
    private readonly locator: Locator,
  ) {}

  get range(): OffsetRange {
    return (this.cached ??= this.locator.rangeIn(this.template.text, this.span.start, this.span.end));
  }
}

/** What a reference of an expression is made of, besides its template and where it is. */
export type ReferenceFields<T extends ExpressionReference> = T extends unknown
  ? Omit<T, 'template' | 'span' | 'range'>
  : never;

/** A reference of an expression, its range computed lazily. */
export function expressionReference<T extends ExpressionReference>(
  locator: Locator,
  template: BoundTemplate,
  span: Span,
  fields: ReferenceFields<T>,
): T {
  return Object.assign(new LazyRange(template, span, locator), fields) as unknown as T;
}
