/**
 * The one scope provider (SPEC §3.6): what a name can refer to at a place, with its type and a short doc.
 * Binding resolves every reference with it; the language server's completion, hover, definition,
 * references and rename ask it the same questions, so the editor and the checks cannot disagree.
 */
import { CONTEXT_ROOTS, closest, isContextRoot } from '@kairoku-playbook/grammar';
import type { ContextRoot } from '@kairoku-playbook/grammar';
import type { OffsetRange } from '../diagnostic.js';
import { shown } from '../diagnostic.js';
import type { Graph } from '../graph/graph.js';
import { loopTargets, mayBeAbsent } from './step-facts.js';
import type { InputDecl, PlaybookModel, StepDecl } from '../model/model.js';
import { ANY, INTEGER, STRING, enumOf, nullable, typeToString } from '../types/type.js';
import type { Type } from '../types/type.js';

export { mayBeAbsent } from './step-facts.js';

/** Where a template or condition stands, which decides its scope and whether a secret may appear. */
export type Place =
  | 'title'
  | 'description'
  | 'prompt'
  | 'run'
  | 'env'
  | 'cwd'
  | 'when'
  | 'feedback'
  | 'gate-title'
  | 'gate-summary'
  | 'label'
  | 'output';

/** Places whose text an agent or a person reads, and who: a secret must not reach them (PB407). */
export const SHOWN_PLACES: ReadonlyMap<Place, string> = new Map<Place, string>([
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

/** The names visible to one template: which steps it may refer to and which context roots exist. */
export interface Scope {
  place: Place;
  /** the step or after-task owning the template (undefined: the playbook's own title, labels, outputs) */
  owner: StepDecl | undefined;
  /** inside one of the owner's transitions (feedback), where `report.*` (or `gate.*`) and the step itself are visible */
  transition: { outcome: string; isChoice: boolean } | undefined;
  /** after-tasks and playbook outputs see every step; steps see their ancestors */
  seesAllSteps: boolean;
}

export const STEP_STATUSES = [
  'pending',
  'ready',
  'running',
  'reported',
  'waiting',
  'completed',
  'skipped',
  'failed',
  'canceled',
  'lost',
] as const;

/** The outputs every check step has (SPEC §3.6). */
export const CHECK_OUTPUTS = ['passed', 'failed', 'skipped', 'todo', 'exit_code'] as const;

/** A name an expression can use after some prefix, with what an editor shows about it. */
export interface ScopeMember {
  name: string;
  kind: 'root' | 'input' | 'step' | 'output' | 'field' | 'outcome';
  /** the type as the language writes it, when it has one */
  type: string | undefined;
  /** one or two sentences of Markdown */
  doc: string;
  /** where it is declared in the file, when it is */
  declaredAt: OffsetRange | undefined;
}

const ROOT_DOCS: Record<ContextRoot, string> = {
  inputs: "The run's inputs, filled in at Start.",
  steps: 'The results of the steps this one needs (directly or through other steps).',
  run: 'The run: its id, playbook and branch.',
  loop: 'The loop that sent this step back: `count` (0 on the first attempt) and `feedback` (empty on the first attempt).',
  report: "The current step's report, inside an outcome's transition: `summary`, `outcome`, `outputs`.",
  gate: "The person's decision, inside a gate choice's transition: `comment` and `choice`.",
};

/** How a step is called in docs and messages: `agent step`, `human gate`, `after-task (check)`, … */
export function stepKindText(step: StepDecl): string {
  if (step.isAfter) return step.kind === 'check' ? 'after-task (check)' : 'after-task (agent)';
  switch (step.kind) {
    case 'agent':
      return 'agent step';
    case 'check':
      return 'check step';
    case 'gate':
      return 'human gate';
    default:
      return 'step';
  }
}

/** The scope of the playbook's own templates (title, labels, outputs): every step, no owner. */
export function playbookScope(place: Place): Scope {
  return { place, owner: undefined, transition: undefined, seesAllSteps: true };
}

/** The scope of a step's or an after-task's templates; `outcome` for the feedback of one of its transitions. */
export function stepScope(step: StepDecl, place: Place, outcome?: string): Scope {
  return {
    place,
    owner: step,
    transition: outcome === undefined ? undefined : { outcome, isChoice: step.kind === 'gate' },
    seesAllSteps: step.isAfter,
  };
}

/**
 * Answers, for one playbook and its needs graph, what a name refers to and what a place can see. Built once
 * per analysis; its caches only remember answers (asking in any order gives the same answers).
 */
export class ScopeProvider {
  private inputsByName: ReadonlyMap<string, InputDecl> | undefined;
  private afterByName: ReadonlyMap<string, StepDecl> | undefined;
  private names: readonly string[] | undefined;
  private readonly stepTypes = new Map<StepDecl, [Type | undefined, Type | undefined]>();
  /** the step whose outcomes (or choices) each enum built here lists */
  private readonly outcomeEnums = new WeakMap<Type, StepDecl>();

  constructor(
    readonly model: PlaybookModel,
    readonly graph: Graph,
  ) {}

  // ---- declarations by name ----------------------------------------------------------------------

  /** The input of that name (the first, as the plain value has it). */
  input(name: string): InputDecl | undefined {
    return (this.inputsByName ??= firstByName(this.model.inputs)).get(name);
  }

  /** The step of that name (not an after-task). */
  step(name: string): StepDecl | undefined {
    return this.model.stepByName.get(name);
  }

  /** The after-task of that name (the first). */
  afterTask(name: string): StepDecl | undefined {
    return (this.afterByName ??= firstByName(this.model.after)).get(name);
  }

  /** The steps' names in file order: the candidates of a did-you-mean. */
  get stepNames(): readonly string[] {
    return (this.names ??= this.model.steps.map((s) => s.name));
  }

  // ---- what a place sees -------------------------------------------------------------------------

  /**
   * Whether a context root exists at this place (`loop` in steps a loop goes back to, `report` and `gate`
   * in transitions).
   */
  rootVisible(root: ContextRoot, scope: Scope): boolean {
    switch (root) {
      case 'loop':
        // (in a step no loop goes back to, `loop` is PB210: loop-scope.ts)
        return scope.owner !== undefined && !scope.owner.isAfter && this.isLoopTarget(scope.owner);
      case 'report':
        // A gate has no report: a person decided it.
        return scope.transition !== undefined && !scope.transition.isChoice;
      case 'gate':
        return scope.transition?.isChoice === true;
      default:
        return true;
    }
  }

  /**
   * Whether a loop of some step (an outcome's, or a gate choice's) goes back to this step: only its
   * templates have `loop.count` and `loop.feedback` (SPEC §3.6).
   */
  isLoopTarget(step: StepDecl): boolean {
    return loopTargets(this.model).has(step);
  }

  /** Whether a step may be referred to from this scope (SPEC §3.6: ancestors, or itself in its transitions). */
  canSee(scope: Scope, step: StepDecl): boolean {
    const owner = scope.owner;
    if (scope.seesAllSteps || !owner) return true;
    if (step === owner) return scope.transition !== undefined;
    if (this.graph.onCycle.has(owner.index)) return true;
    return this.graph.isAncestor(step.index, owner.index);
  }

  /** The steps this scope may refer to, in file order. */
  visibleSteps(scope: Scope): StepDecl[] {
    return this.model.steps.filter((s) => this.canSee(scope, s));
  }

  mayBeAbsent(step: StepDecl, scope: Scope): boolean {
    return mayBeAbsent(this.model, step, scope);
  }

  /** The steps a step's `needs` may name without closing a cycle: every other step that does not need it. */
  needCandidates(step: StepDecl): StepDecl[] {
    return this.model.steps.filter(
      (s) => s !== step && (step.isAfter || !this.graph.isAncestor(step.index, s.index)),
    );
  }

  /** What a step's loop may go back to: the step itself and its ancestors (none for an after-task). */
  loopTargets(step: StepDecl): StepDecl[] {
    if (step.isAfter) return [];
    return [step, ...this.graph.ancestorsOf(step.index).map((i) => this.model.steps[i]!)];
  }

  /**
   * Whether `ancestor` would be an ancestor of `step` if each need that names no step named the step a
   * did-you-mean suggests: then a "not an ancestor" (PB205, PB301) is that misspelt need's mistake.
   */
  ancestorThroughMisspeltNeed(ancestor: StepDecl, step: StepDecl): boolean {
    const seen = new Set<StepDecl>([step]);
    const stack = [step];
    let misspelt = false;
    while (stack.length) {
      const current = stack.pop()!;
      for (const need of current.needs) {
        let target = this.model.stepByName.get(need.name);
        if (!target) {
          target = this.meantStep(need.name, current.name);
          if (target) misspelt = true;
        }
        if (!target || seen.has(target)) continue;
        if (target === ancestor) return misspelt;
        seen.add(target);
        stack.push(target);
      }
    }
    return false;
  }

  private readonly meant = new Map<string, StepDecl | undefined>();

  /** The step a need that names no step was meant to name (its did-you-mean), asked once per need. */
  private meantStep(need: string, owner: string): StepDecl | undefined {
    const key = `${owner}\u0000${need}`;
    if (!this.meant.has(key)) {
      const suggestion = closest(need, this.stepNames, owner);
      this.meant.set(key, suggestion === undefined ? undefined : this.model.stepByName.get(suggestion));
    }
    return this.meant.get(key);
  }

  // ---- types ------------------------------------------------------------------------------------

  /** What `inputs.NAME` reads: the input's type, nullable when it is optional without a default. */
  inputType(input: InputDecl): Type {
    const type = input.type ?? ANY;
    return input.required || input.defaultValue ? type : nullable(type);
  }

  /** What a context root other than `inputs` and `steps` holds here. */
  rootType(root: 'run' | 'loop' | 'report' | 'gate', scope: Scope): Type {
    const step = scope.owner;
    switch (root) {
      case 'run': {
        const fields: Record<string, Type> = { id: STRING, playbook: STRING, branch: STRING };
        if (scope.owner?.isAfter) fields.status = enumOf(['completed', 'failed', 'canceled']);
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
          outcome: this.outcomesOf(step, `step "${shown(String(step?.name))}"`),
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
          choice: this.outcomesOf(step, `gate "${shown(String(step?.name))}"`),
        });
    }
  }

  /**
   * What `steps.S` reads, built once per step and whether S may be absent: a step with thousands of
   * outputs, each read once, built thousands of maps of thousands of fields.
   */
  stepType(step: StepDecl, scope: Scope | undefined): Type {
    // (without a scope: as read where the step has surely run; see `stepMember` for why)
    const absent = scope !== undefined && this.mayBeAbsent(step, scope);
    let pair = this.stepTypes.get(step);
    if (!pair) this.stepTypes.set(step, (pair = [undefined, undefined]));
    return (pair[absent ? 1 : 0] ??= this.buildStepType(step, absent));
  }

  /** The step whose outcomes an enum type of this provider lists (`steps.S.outcome`, `report.outcome`, `gate.choice`). */
  outcomesOwner(type: Type): StepDecl | undefined {
    return this.outcomeEnums.get(type);
  }

  /** The outcomes (or a gate's choices) of a step as an enum, named by `origin` in messages (PB206). */
  private outcomesOf(step: StepDecl | undefined, origin: string): Type {
    const type = enumOf(step?.outcomes.map((o) => o.name) ?? [], origin);
    if (step) this.outcomeEnums.set(type, step);
    return type;
  }

  private buildStepType(step: StepDecl, absent: boolean): Type {
    const maybe = (type: Type) => (absent ? nullable(type) : type);
    const outputs = new Map<string, { type: Type; optional: boolean }>();
    if (step.kind === 'check')
      for (const name of CHECK_OUTPUTS) outputs.set(name, { type: maybe(INTEGER), optional: false });
    for (const output of step.outputs)
      outputs.set(output.name, { type: maybe(output.type ?? ANY), optional: false });
    // A step without one kind (PB107) has no known outcomes yet: nothing to compare against.
    const outcome = step.kind
      ? this.outcomesOf(step, `${step.kind === 'gate' ? 'gate' : 'step'} "${shown(step.name)}"`)
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

  // ---- members, for an editor -----------------------------------------------------------------

  /** The context roots visible at this place. */
  rootMembers(scope: Scope): ScopeMember[] {
    return CONTEXT_ROOTS.filter(isContextRoot)
      .filter((root) => this.rootVisible(root, scope))
      .map((root) => rootMember(root));
  }

  private inputMember(name: string): ScopeMember | undefined {
    const input = this.input(name);
    if (!input) return undefined;
    const optional = !input.required && !input.defaultValue;
    const facts = [
      input.description,
      input.defaultValue ? `Default: \`${JSON.stringify(input.defaultValue.value)}\`.` : undefined,
      optional ? 'Optional without a default: null when not given.' : undefined,
      input.secret ? 'Secret: only check steps may read it, through `env`.' : undefined,
    ].filter((f): f is string => f !== undefined);
    return {
      name,
      kind: 'input',
      type: typeText(input.type, optional) ?? input.typeText?.value,
      doc: facts.join(' '),
      declaredAt: input.keyRange,
    };
  }

  /** A step as a member of `steps.`, as this scope sees it. */
  private stepMember(scope: Scope, step: StepDecl): ScopeMember {
    const absent = this.mayBeAbsent(step, scope);
    const visible = this.canSee(scope, step);
    const parts = [
      `${stepKindText(step)}${step.role ? ` run by role \`${step.role.name}\`` : ''}.`,
      step.needs.length ? `Needs ${step.needs.map((n) => `\`${n.name}\``).join(', ')}.` : undefined,
      absent ? 'It may be skipped or not reached: its results may be null here.' : undefined,
      visible ? undefined : 'Not an ancestor of this step: add it to `needs` to read its results.',
    ].filter((p): p is string => p !== undefined);
    return {
      name: step.name,
      kind: 'step',
      type: undefined,
      doc: parts.join(' '),
      declaredAt: step.keyRange,
    };
  }

  /** The outputs a step has: a check step's five counts, and those it declares. */
  private outputMembers(step: StepDecl, nullable: boolean): ScopeMember[] {
    const members: ScopeMember[] = [];
    if (step.kind === 'check') {
      for (const name of CHECK_OUTPUTS) {
        members.push({
          name,
          kind: 'output',
          type: nullable ? 'integer?' : 'integer',
          doc:
            name === 'exit_code'
              ? `The exit code of the last command of check step \`${step.name}\`.`
              : `The number of ${name} tests in check step \`${step.name}\`'s runner summary.`,
          declaredAt: undefined,
        });
      }
    }
    for (const output of step.outputs) {
      members.push({
        name: output.name,
        kind: 'output',
        type: typeText(output.type, nullable) ?? output.typeText?.value,
        doc: [`Output of step \`${step.name}\`.`, output.description].filter(Boolean).join(' '),
        declaredAt: output.keyRange,
      });
    }
    return members;
  }

  /** The names that may follow `chain.` in this scope (`['steps', 'plan']`: outputs, outcome, …); undefined when not known. */
  membersAfter(scope: Scope, chain: readonly string[]): ScopeMember[] | undefined {
    const model = this.model;
    const [root, second, third] = chain;
    if (root === undefined || !isContextRoot(root) || !this.rootVisible(root, scope)) return undefined;
    const owner = scope.owner;
    switch (root) {
      case 'inputs':
        if (chain.length !== 1) return undefined;
        return model.inputs.map((i) => this.inputMember(i.name)!);
      case 'steps': {
        if (chain.length === 1) return this.visibleSteps(scope).map((s) => this.stepMember(scope, s));
        const step = this.step(second!);
        if (!step) return undefined;
        const nullable = this.mayBeAbsent(step, scope);
        const q = nullable ? '?' : '';
        if (chain.length === 2) {
          const outcomes = step.outcomes.map((o) => o.name);
          return [
            field('outputs', undefined, `The outputs step \`${step.name}\` reported.`),
            field(
              'outcome',
              `${enumText(outcomes)}${q}`,
              step.kind === 'gate'
                ? `The choice the person took at gate \`${step.name}\`.`
                : `The outcome step \`${step.name}\` reported.`,
            ),
            field('status', enumText(STEP_STATUSES), `The status of step \`${step.name}\`.`),
            field('summary', `string${q}`, `The summary of step \`${step.name}\`'s report.`),
            field('attempt', 'integer', `The number of attempts step \`${step.name}\` has had.`),
          ];
        }
        if (chain.length === 3 && third === 'outputs') return this.outputMembers(step, nullable);
        return undefined;
      }
      case 'run':
        if (chain.length !== 1) return undefined;
        return [
          field('id', 'string', 'The run id.'),
          field('playbook', 'string', 'The playbook id.'),
          field('branch', 'string', "The run's branch."),
          ...(owner?.isAfter
            ? [field('status', 'enum(completed, failed, canceled)', 'How the run ended (after-tasks only).')]
            : []),
        ];
      case 'loop':
        if (chain.length !== 1) return undefined;
        return [
          field('count', 'integer', 'How many times a loop sent this step back (0 on the first attempt).'),
          field('feedback', 'string', "The loop's feedback (empty on the first attempt)."),
        ];
      case 'report': {
        if (!owner) return undefined;
        if (chain.length === 1)
          return [
            field('summary', 'string', "The summary of this step's report."),
            field('outcome', enumText(owner.outcomes.map((o) => o.name)), 'The outcome this step reported.'),
            field('outputs', undefined, 'The outputs this step reported.'),
          ];
        if (chain.length === 2 && second === 'outputs')
          return this.outputMembers(owner, owner.kind !== 'check');
        return undefined;
      }
      case 'gate':
        if (!owner || chain.length !== 1) return undefined;
        return [
          field('comment', 'string', "The person's comment."),
          field('choice', enumText(owner.outcomes.map((o) => o.name)), 'The choice the person took.'),
        ];
    }
  }

  /**
   * The step whose outcomes (or a gate's choices) a string compared with `chain` names: S for
   * `steps.S.outcome`, the owner for `report.outcome` and `gate.choice` where those roots exist.
   */
  outcomesComparedWith(scope: Scope, chain: readonly string[]): StepDecl | undefined {
    if (chain.length === 3 && chain[0] === 'steps' && chain[2] === 'outcome') return this.step(chain[1]!);
    if (chain.length !== 2) return undefined;
    const [root, name] = chain;
    if ((root === 'report' && name === 'outcome') || (root === 'gate' && name === 'choice'))
      return this.rootVisible(root, scope) ? scope.owner : undefined;
    return undefined;
  }

  /**
   * What an editor offers after `chain.`: the members that may be written here, so that no completion is
   * then reported. As `membersAfter` (which says what exists, for hover), less the members of a step this
   * place may not read (PB205) and the secret inputs where someone would see them (PB407).
   */
  offeredAfter(scope: Scope, chain: readonly string[]): ScopeMember[] | undefined {
    // (a step this place may not read has nothing to offer: reading it is PB205)
    if (chain[0] === 'steps' && chain.length > 1) {
      const step = this.step(chain[1]!);
      if (!step || !this.canSee(scope, step)) return undefined;
    }
    const members = this.membersAfter(scope, chain);
    if (!members || chain.length !== 1 || chain[0] !== 'inputs' || !SHOWN_PLACES.has(scope.place))
      return members;
    return members.filter((m) => this.input(m.name)?.secret !== true);
  }

  /** What a whole chain names (`['steps', 'plan', 'outputs', 'files']`), for hover. */
  describeChain(scope: Scope, chain: readonly string[]): ScopeMember | undefined {
    if (chain.length === 0) return undefined;
    if (chain.length === 1) return isContextRoot(chain[0]!) ? rootMember(chain[0]) : undefined;
    if (chain[0] === 'steps' && chain.length === 2) {
      const step = this.step(chain[1]!);
      return step ? this.stepMember(scope, step) : undefined;
    }
    if (chain[0] === 'steps' && chain.length === 3 && chain[2] === 'outputs') {
      const step = this.step(chain[1]!);
      return step ? field('outputs', undefined, `The outputs of step \`${step.name}\`.`) : undefined;
    }
    const members = this.membersAfter(scope, chain.slice(0, -1));
    return members?.find((m) => m.name === chain[chain.length - 1]);
  }
}

/** Each name's first declaration, as the plain value keeps it (a later one of the same name is a duplicate key, PB101). */
function firstByName<T extends { name: string }>(declarations: readonly T[]): ReadonlyMap<string, T> {
  const byName = new Map<string, T>();
  for (const declaration of declarations)
    if (!byName.has(declaration.name)) byName.set(declaration.name, declaration);
  return byName;
}

/** A context root as a member, with its doc. */
export function rootMember(root: ContextRoot): ScopeMember {
  return { name: root, kind: 'root', type: undefined, doc: ROOT_DOCS[root], declaredAt: undefined };
}

function field(name: string, type: string | undefined, doc: string): ScopeMember {
  return { name, kind: 'field', type, doc, declaredAt: undefined };
}

function typeText(type: Type | undefined, isNullable: boolean): string | undefined {
  if (!type) return undefined;
  const text = typeToString(type);
  return isNullable && !text.endsWith('?') ? `${text}?` : text;
}

function enumText(members: readonly string[]): string {
  return `enum(${members.join(', ')})`;
}

function objectType(fields: Record<string, Type>): Type {
  return {
    kind: 'object',
    fields: new Map(Object.entries(fields).map(([n, t]) => [n, { type: t, optional: false }])),
  };
}
