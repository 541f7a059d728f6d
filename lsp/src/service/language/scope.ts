/**
 * What an expression can see at a place: the context roots, the steps, and the members of each name, with
 * types and short docs, for completion and hover. It mirrors the compiler's binding rules (SPEC §3.6;
 * compiler/src/expressions/typecheck.ts), which do not export their per-name types.
 */
import { mayBeAbsent, rootMember, stepKindText, typeToString } from '@kairoku-playbook/compiler';
export { rootMember, stepKindText } from '@kairoku-playbook/compiler';
import type { OffsetRange, PlaybookModel, StepDecl, Type } from '@kairoku-playbook/compiler';
import { CONTEXT_ROOTS, isContextRoot } from '@kairoku-playbook/grammar';
import { CHECK_OUTPUTS, STEP_STATUSES } from './types.js';
import type { FileAnalysis, TemplateInfo } from './types.js';

export interface TemplateScope {
  /** the step or after-task owning the template; undefined for the playbook's title, labels and outputs */
  owner: StepDecl | undefined;
  /** inside one of the owner's transitions (loop feedback), where report.* (and gate.* for gates) exist */
  inTransition: boolean;
  /** after-tasks and the playbook's own templates see every step */
  seesAllSteps: boolean;
}

const stepsByName = new WeakMap<
  PlaybookModel,
  { steps: Map<string, StepDecl>; after: Map<string, StepDecl> }
>();

/**
 * A step (or after-task) of the model by name: the first of that name, as a search of the list finds it,
 * from maps built once per model (a search per template is quadratic on a big playbook).
 */
export function stepNamed(model: PlaybookModel, name: string, isAfter: boolean): StepDecl | undefined {
  let maps = stepsByName.get(model);
  if (!maps) {
    const byName = (list: readonly StepDecl[]) => {
      const map = new Map<string, StepDecl>();
      for (const step of list) if (!map.has(step.name)) map.set(step.name, step);
      return map;
    };
    maps = { steps: byName(model.steps), after: byName(model.after) };
    stepsByName.set(model, maps);
  }
  return (isAfter ? maps.after : maps.steps).get(name);
}

/** The step or after-task owning a template. */
export function ownerOf(model: PlaybookModel, info: TemplateInfo): StepDecl | undefined {
  return info.owner ? stepNamed(model, info.owner.name, info.owner.isAfter) : undefined;
}

export function scopeOf(model: PlaybookModel, info: TemplateInfo): TemplateScope {
  const owner = ownerOf(model, info);
  return {
    owner,
    inTransition: info.outcome !== undefined,
    seesAllSteps: owner === undefined || owner.isAfter,
  };
}

/** A name an expression can use after some prefix, with what the editor shows about it. */
export interface Member {
  name: string;
  kind: 'root' | 'input' | 'step' | 'output' | 'field' | 'outcome';
  /** the type as the language writes it, when it has one */
  type: string | undefined;
  /** one or two sentences of Markdown */
  doc: string;
  /** where it is declared in the file, when it is */
  declaredAt: OffsetRange | undefined;
}

export function rootVisible(root: string, scope: TemplateScope): boolean {
  switch (root) {
    case 'loop':
      return scope.owner !== undefined && !scope.owner.isAfter;
    case 'report':
      return scope.inTransition;
    case 'gate':
      return scope.inTransition && scope.owner?.kind === 'gate';
    default:
      return true;
  }
}

export function rootMembers(scope: TemplateScope): Member[] {
  return CONTEXT_ROOTS.filter(isContextRoot)
    .filter((root) => rootVisible(root, scope))
    .map((root) => rootMember(root));
}

/** Whether a step may be referred to from this scope (SPEC §3.6: ancestors, or itself in its transitions). */
export function canSee(analysis: FileAnalysis, scope: TemplateScope, step: StepDecl): boolean {
  const owner = scope.owner;
  if (scope.seesAllSteps || !owner) return true;
  if (step === owner) return scope.inTransition;
  const graph = analysis.context?.graph;
  if (!graph) return true;
  if (graph.onCycle.has(owner.index)) return true;
  return graph.isAncestor(step.index, owner.index);
}

function typeText(type: Type | undefined, nullable: boolean): string | undefined {
  if (!type) return undefined;
  const text = typeToString(type);
  return nullable && !text.endsWith('?') ? `${text}?` : text;
}

function enumText(members: readonly string[]): string {
  return `enum(${members.join(', ')})`;
}

export function inputMember(model: PlaybookModel, name: string): Member | undefined {
  const input = model.inputs.find((i) => i.name === name);
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

export function stepMember(analysis: FileAnalysis, scope: TemplateScope | undefined, step: StepDecl): Member {
  const absent = scope ? mayBeAbsent(analysis.model!, step, scope) : false;
  const visible = scope ? canSee(analysis, scope, step) : true;
  const parts = [
    `${stepKindText(step)}${step.role ? ` run by role \`${step.role.name}\`` : ''}.`,
    step.needs.length ? `Needs ${step.needs.map((n) => `\`${n.name}\``).join(', ')}.` : undefined,
    absent ? 'It may be skipped or not reached: its results may be null here.' : undefined,
    visible ? undefined : 'Not an ancestor of this step: add it to `needs` to read its results.',
  ].filter((p): p is string => p !== undefined);
  return { name: step.name, kind: 'step', type: undefined, doc: parts.join(' '), declaredAt: step.keyRange };
}

/** The outputs a step has: a check step's five counts, and those it declares. */
export function outputMembers(analysis: FileAnalysis, step: StepDecl, nullable: boolean): Member[] {
  const members: Member[] = [];
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

function field(name: string, type: string | undefined, doc: string): Member {
  return { name, kind: 'field', type, doc, declaredAt: undefined };
}

/** The names that may follow `chain.` in this scope; undefined when the chain is not known. */
export function membersAfter(
  analysis: FileAnalysis,
  scope: TemplateScope,
  chain: readonly string[],
): Member[] | undefined {
  const model = analysis.model;
  if (!model) return undefined;
  const [root, second, third] = chain;
  if (root === undefined || !rootVisible(root, scope)) return undefined;
  const owner = scope.owner;
  switch (root) {
    case 'inputs':
      if (chain.length !== 1) return undefined;
      return model.inputs.map((i) => inputMember(model, i.name)!);
    case 'steps': {
      if (chain.length === 1)
        return model.steps
          .filter((s) => canSee(analysis, scope, s))
          .map((s) => stepMember(analysis, scope, s));
      const step = model.stepByName.get(second!);
      if (!step) return undefined;
      const nullable = mayBeAbsent(model, step, scope);
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
      if (chain.length === 3 && third === 'outputs') return outputMembers(analysis, step, nullable);
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
        return outputMembers(analysis, owner, owner.kind !== 'check');
      return undefined;
    }
    case 'gate':
      if (!owner || chain.length !== 1) return undefined;
      return [
        field('comment', 'string', "The person's comment."),
        field('choice', enumText(owner.outcomes.map((o) => o.name)), 'The choice the person took.'),
      ];
    default:
      return undefined;
  }
}

/** What a whole chain names (`steps.plan.outputs.files`), for hover. */
export function describeChain(
  analysis: FileAnalysis,
  scope: TemplateScope,
  chain: readonly string[],
): Member | undefined {
  const model = analysis.model;
  if (!model || chain.length === 0) return undefined;
  if (chain.length === 1) {
    const name = chain[0]!;
    if (isContextRoot(name)) return rootMember(name);
    return { name, kind: 'root', type: undefined, doc: '', declaredAt: undefined };
  }
  if (chain[0] === 'steps' && chain.length === 2) {
    const step = model.stepByName.get(chain[1]!);
    return step ? stepMember(analysis, scope, step) : undefined;
  }
  if (chain[0] === 'steps' && chain.length === 3 && chain[2] === 'outputs') {
    const step = model.stepByName.get(chain[1]!);
    return step ? field('outputs', undefined, `The outputs of step \`${step.name}\`.`) : undefined;
  }
  const members = membersAfter(analysis, scope, chain.slice(0, -1));
  return members?.find((m) => m.name === chain[chain.length - 1]);
}
