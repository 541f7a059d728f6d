import { boundChanges } from './bounds-diff.js';
import type { Ir, IrAfterTask, IrStep, IrTransition } from '../ir/ir.js';
import { IR_VERSION } from '../ir/ir.js';
import { canonicalExpression, matchPlaybooks, canonicalTemplate } from './match.js';
import type { Matching, Resolver } from './match.js';
import { limitChanges, limitDuration } from './limits-diff.js';
import { renamed } from './policy-change.js';
import type { ChangeKind, ChangeSubject, DiffOptions, Direction, PolicyChange } from './policy-change.js';
import { TOOLS, grants, isReadOnly, toolChanges } from './tool-changes.js';
import { ungatedChanges } from './ungated-diff.js';
import { descendants, gatesBefore, leadsOn } from './step-graph.js';

export type {
  ChangeKind,
  ChangeSubject,
  DiffOptions,
  Direction,
  PolicyChange,
  UngatedStep,
} from './policy-change.js';
export { toolChanges } from './tool-changes.js';

const EMPTY: Ir = {
  ir: IR_VERSION,
  id: '',
  title: '',
  description: null,
  workspace: 'current',
  source: { file: '', sha256: '' },
  labels: [],
  inputs: [],
  inputSchema: {},
  roles: [],
  limits: { concurrency: 1, timeoutMs: null, stepTimeoutMs: 0, maxLoops: 0 },
  steps: [],
  after: [],
  outputs: [],
};

type Task = IrStep | IrAfterTask;

/**
 * What HEAD changes in the power of a playbook against BASE, compared on their IR: steps and roles are
 * matched by what they are, not by name (`matchPlaybooks`), so renaming and reordering report nothing.
 * `undefined` on one side is a playbook added (every step, gate and secret of it reported) or removed
 * (one change). The changes come in a stable order: playbook,
 * inputs, roles, then steps and after-tasks in HEAD's order (removed ones in BASE's), kind by kind.
 */
export function diffPlaybooks(
  base: Ir | undefined,
  head: Ir | undefined,
  options: DiffOptions = {},
): PolicyChange[] {
  return new PolicyDiff(
    base ?? EMPTY,
    head ?? EMPTY,
    base === undefined,
    head === undefined,
    options,
  ).changes();
}

class PolicyDiff {
  private readonly matching: Matching;
  private readonly out: PolicyChange[] = [];
  /** head step index → base step index */
  private readonly stepBack = new Map<number, number>();
  private readonly afterBack = new Map<number, number>();
  private readonly roleBack = new Map<string, string>();
  /** base input name → head input name, and the way back */
  private readonly inputBack = new Map<string, string>();
  private readonly resolvers: [Resolver, Resolver];

  constructor(
    private readonly base: Ir,
    private readonly head: Ir,
    private readonly added: boolean,
    private readonly removed: boolean,
    private readonly options: DiffOptions,
  ) {
    this.matching = matchPlaybooks(base, head);
    for (const [b, h] of this.matching.steps) this.stepBack.set(h, b);
    for (const [b, h] of this.matching.after) this.afterBack.set(h, b);
    for (const [b, h] of this.matching.roles) this.roleBack.set(h, b);
    for (const [b, h] of this.matching.inputs) this.inputBack.set(h, b);
    // names written as what they match: the same text on both sides when only names changed
    const baseStep = new Map(base.steps.map((s) => [s.name, s.index]));
    const headStep = new Map(head.steps.map((s) => [s.name, s.index]));
    this.resolvers = [
      {
        step: (name) => {
          const index = baseStep.get(name);
          const h = index === undefined ? undefined : this.matching.steps.get(index);
          return h === undefined ? `base:${name}` : (head.steps[h]?.name ?? name);
        },
        output: (step, output) => this.matching.outputs.get(`${step}\0${output}`) ?? `base:${output}`,
        input: (name) => this.matching.inputs.get(name) ?? `base:${name}`,
      },
      {
        step: (name) => (headStep.has(name) ? name : `head:${name}`),
        output: (_step, output) => output,
        input: (name) => name,
      },
    ];
  }

  changes(): PolicyChange[] {
    const { base, head } = this;
    if (this.added)
      this.push(
        'playbook-added',
        'widened',
        { type: 'playbook', name: head.id },
        `playbook ${head.id} added`,
      );
    // a playbook removed takes all its power with it: its gates going too widens nothing
    if (this.removed) {
      this.push(
        'playbook-removed',
        'narrowed',
        { type: 'playbook', name: base.id },
        `playbook ${base.id} removed`,
      );
      return this.out;
    }
    if (!this.added && !this.removed) this.out.push(...limitChanges(this.base, this.head));
    this.inputs();
    this.roles();
    this.steps();
    if (this.options.ungatedSteps)
      this.out.push(
        ...ungatedChanges(this.base, this.head, this.matching, this.options.ungatedSteps, {
          added: this.added,
          removed: this.removed,
        }),
      );
    if (this.options.bounds && !this.added)
      this.out.push(...boundChanges(this.base, this.head, this.options.bounds, this.out));
    return this.out;
  }

  private push(
    kind: ChangeKind,
    direction: Direction,
    subject: ChangeSubject,
    message: string,
    extra: Partial<PolicyChange> = {},
  ): void {
    this.out.push({ kind, direction, subject, message, ...extra });
  }

  private inputs(): void {
    const baseByName = new Map(this.base.inputs.map((i) => [i.name, i]));
    for (const input of this.head.inputs) {
      const back = this.inputBack.get(input.name);
      const before = back === undefined ? undefined : baseByName.get(back);
      const subject: ChangeSubject = { type: 'input', name: input.name, ...renamed(back, input.name) };
      if (!before) {
        if (input.secret)
          this.push('secret-input', 'widened', subject, `secret input ${input.name} added`, {
            before: null,
            after: 'secret',
          });
      } else if (before.secret && !input.secret) {
        this.push(
          'secret-input',
          'widened',
          subject,
          `input ${input.name} is no longer secret: its value is shown in logs and saved in run files`,
          { before: 'secret', after: 'plain' },
        );
      } else if (!before.secret && input.secret) {
        this.push('secret-input', 'narrowed', subject, `input ${input.name} is now secret`, {
          before: 'plain',
          after: 'secret',
        });
      }
    }
    const kept = new Set(this.matching.inputs.keys());
    for (const input of this.base.inputs) {
      if (kept.has(input.name) || !input.secret) continue;
      this.push(
        'secret-input',
        'narrowed',
        { type: 'input', name: input.name },
        `secret input ${input.name} removed`,
        {
          before: 'secret',
          after: null,
        },
      );
    }
  }

  /** Roles used by some step on either side: what their tools and base do to those steps. */
  private roles(): void {
    const baseRoles = new Map(this.base.roles.map((r) => [r.name, r]));
    // the steps that run in the role in both versions: a step that moves to another role is reported
    // on the step (step-role), one added or removed as such, so each change of power is said once
    const kept: [Task, Task][] = [];
    this.head.steps.forEach((h) => {
      const b = this.stepBack.get(h.index);
      if (b !== undefined) kept.push([this.base.steps[b]!, h]);
    });
    this.head.after.forEach((h, i) => {
      const b = this.afterBack.get(i);
      if (b !== undefined) kept.push([this.base.after[b]!, h]);
    });
    for (const role of this.head.roles) {
      const back = this.roleBack.get(role.name);
      const before = back === undefined ? undefined : baseRoles.get(back);
      if (!before) continue;
      const steps = kept
        .filter(([b, h]) => b.role === before.name && h.role === role.name)
        .map(([, h]) => h.name);
      if (steps.length === 0) continue;
      const subject: ChangeSubject = { type: 'role', name: role.name, ...renamed(back, role.name) };
      if (before.base !== role.base) {
        const grown = TOOLS.some((t) => grants(role.tools[t]) && !grants(before.tools[t]));
        const readOnlyLost = isReadOnly(before.base) && !isReadOnly(role.base);
        const direction = grown || readOnlyLost ? 'widened' : 'narrowed';
        this.push(
          'role-base',
          direction,
          subject,
          `role ${role.name} changes base: ${before.base} → ${role.base}` +
            (readOnlyLost ? ' (its steps may now change the worktree)' : '') +
            (!isReadOnly(before.base) && isReadOnly(role.base) ? ' (its steps are now read-only)' : ''),
          { before: before.base, after: role.base, steps },
        );
      }
      for (const change of toolChanges(before.tools, role.tools))
        this.push('tool', change.direction, subject, `role ${role.name} ${change.message}`, {
          before: change.before,
          after: change.after,
          steps,
        });
    }
  }

  private steps(): void {
    const { base, head, matching } = this;
    const headGates = gatesBefore(head);
    const baseGates = gatesBefore(base);
    head.steps.forEach((step) => {
      const back = this.stepBack.get(step.index);
      if (back === undefined) this.addedStep(step, 'step');
      else this.changedStep(base.steps[back]!, step, 'step', baseGates, headGates);
    });
    head.after.forEach((task, i) => {
      const back = this.afterBack.get(i);
      if (back === undefined) this.addedStep(task, 'after');
      else this.changedStep(base.after[back]!, task, 'after', baseGates, headGates);
    });
    base.steps.forEach((step) => {
      if (!matching.steps.has(step.index)) this.removedStep(step, 'step');
    });
    base.after.forEach((task, i) => {
      if (!matching.after.has(i)) this.removedStep(task, 'after');
    });
  }

  private what(step: Task, type: 'step' | 'after'): string {
    return type === 'after'
      ? `after-task ${step.name}`
      : step.kind === 'gate'
        ? `gate ${step.name}`
        : `step ${step.name}`;
  }

  private addedStep(step: Task, type: 'step' | 'after'): void {
    const subject: ChangeSubject = { type, name: step.name };
    if (step.kind === 'gate') {
      this.push('gate-added', 'narrowed', subject, `gate ${step.name} added`, {
        steps: descendants(this.head, step.index).map((i) => this.head.steps[i]!.name),
      });
      return;
    }
    const power =
      step.kind === 'check'
        ? `runs ${step.run.map((r) => JSON.stringify(canonicalTemplate(r, this.resolvers[1]))).join(', ')}`
        : `role ${step.role}${this.roleTools(this.head, step.role)}`;
    this.push('step-added', 'widened', subject, `${this.what(step, type)} added (${step.kind}: ${power})`, {
      after: step.kind === 'check' ? step.run.map((r) => canonicalTemplate(r, this.resolvers[1])) : step.role,
    });
    this.secrets(undefined, step, subject);
  }

  private removedStep(step: Task, type: 'step' | 'after'): void {
    const subject: ChangeSubject = { type, name: step.name };
    if (step.kind === 'gate') {
      this.push('gate-removed', 'widened', subject, `gate ${step.name} removed`, {
        steps: descendants(this.base, step.index).map((i) => this.base.steps[i]!.name),
      });
      return;
    }
    this.push('step-removed', 'narrowed', subject, `${this.what(step, type)} removed`);
  }

  private roleTools(ir: Ir, name: string | null): string {
    const role = ir.roles.find((r) => r.name === name);
    if (!role) return '';
    const granted = TOOLS.filter((t) => grants(role.tools[t])).map((t) => {
      const value = role.tools[t];
      return Array.isArray(value) ? `${t} [${value.join(', ')}]` : t;
    });
    return `, may ${granted.join(', ') || 'nothing'}`;
  }

  private changedStep(
    before: Task,
    step: Task,
    type: 'step' | 'after',
    baseGates: Map<number, Set<number>>,
    headGates: Map<number, Set<number>>,
  ): void {
    const subject: ChangeSubject = { type, name: step.name, ...renamed(before.name, step.name) };
    const what = this.what(step, type);
    this.stepRole(before, step, subject, what);
    if (step.kind === 'check') this.commands(before, step, subject, what);
    if ('when' in step && 'when' in before && step.kind === 'gate')
      this.gateChanges(before as IrStep, step, subject, baseGates, headGates);
    this.outcomes(before, step, subject, what);
    if (before.retries !== step.retries) {
      const direction = step.retries > before.retries ? 'widened' : 'narrowed';
      this.push(
        'retries',
        direction,
        subject,
        `${what} retries ${direction === 'widened' ? 'raised' : 'lowered'}: ${before.retries} → ${step.retries}`,
        { before: before.retries, after: step.retries },
      );
    }
    const defaults =
      before.timeoutMs === this.base.limits.stepTimeoutMs &&
      step.timeoutMs === this.head.limits.stepTimeoutMs;
    if (before.timeoutMs !== step.timeoutMs && !defaults && step.kind !== 'gate') {
      const direction = step.timeoutMs > before.timeoutMs ? 'widened' : 'narrowed';
      this.push(
        'timeout',
        direction,
        subject,
        `${what} timeout ${direction === 'widened' ? 'lengthened' : 'shortened'}: ${limitDuration(before.timeoutMs)} → ${limitDuration(step.timeoutMs)}`,
        { before: before.timeoutMs, after: step.timeoutMs },
      );
    }
    this.secrets(before, step, subject);
  }

  /** A step that moves to a role with other tools (a role's own changes are reported on the role). */
  private stepRole(before: Task, step: Task, subject: ChangeSubject, what: string): void {
    if (step.kind !== 'agent' || step.role === null || before.role === null) return;
    if (this.matching.roles.get(before.role) !== step.role) {
      const b = this.base.roles.find((r) => r.name === before.role);
      const h = this.head.roles.find((r) => r.name === step.role);
      if (b && h) {
        const changes = toolChanges(b.tools, h.tools);
        const readOnlyLost = isReadOnly(b.base) && !isReadOnly(h.base);
        if (changes.length || b.base !== h.base) {
          const direction: Direction =
            readOnlyLost || changes.some((c) => c.direction === 'widened')
              ? 'widened'
              : changes.length
                ? 'narrowed'
                : 'changed';
          this.push(
            'step-role',
            direction,
            subject,
            `${what} runs in role ${h.name} instead of ${b.name}: ${changes.map((c) => c.message).join('; ') || `base ${b.base} → ${h.base}`}`,
            { before: b.name, after: h.name },
          );
        }
      }
    }
  }

  /** A check step's commands: new ones widen, gone ones narrow. */
  private commands(before: Task, step: Task, subject: ChangeSubject, what: string): void {
    const beforeRun = before.run.map((r) => canonicalTemplate(r, this.resolvers[0]));
    const afterRun = step.run.map((r) => canonicalTemplate(r, this.resolvers[1]));
    const added = afterRun.filter((r) => !beforeRun.includes(r));
    const gone = beforeRun.filter((r) => !afterRun.includes(r));
    if (added.length)
      this.push(
        'commands',
        'widened',
        subject,
        `${what} runs new commands: ${added.map((r) => JSON.stringify(r)).join(', ')}`,
        {
          before: beforeRun,
          after: afterRun,
        },
      );
    if (gone.length)
      this.push(
        'commands',
        'narrowed',
        subject,
        `${what} no longer runs ${gone.map((r) => JSON.stringify(r)).join(', ')}`,
        {
          before: beforeRun,
          after: afterRun,
        },
      );
  }

  /** A gate made optional (or asked under another condition), and the steps it no longer (or now) comes before. */
  private gateChanges(
    before: IrStep,
    step: IrStep,
    subject: ChangeSubject,
    baseGates: Map<number, Set<number>>,
    headGates: Map<number, Set<number>>,
  ): void {
    const b = before.when ? canonicalExpression(before.when.expr, this.resolvers[0]) : null;
    const h = step.when ? canonicalExpression(step.when.expr, this.resolvers[1]) : null;
    if (b !== h) {
      const direction: Direction = h === null ? 'narrowed' : 'widened';
      const message =
        h === null
          ? `gate ${step.name} is no longer optional (its \`when\` was removed)`
          : b === null
            ? `gate ${step.name} made optional: skipped unless ${h} (the steps after it still run)`
            : `gate ${step.name} asked under another condition: ${b} → ${h}`;
      this.push('gate-condition', direction, subject, message, { before: b, after: h });
    }
    this.gateGuards(before, step, subject, baseGates, headGates);
  }

  /** Steps that a gate was before and no longer is (bypassed), or now is (guarded). */
  private gateGuards(
    before: IrStep,
    gate: IrStep,
    subject: ChangeSubject,
    baseGates: Map<number, Set<number>>,
    headGates: Map<number, Set<number>>,
  ): void {
    const bypassed: string[] = [];
    const guarded: string[] = [];
    for (const step of this.head.steps) {
      if (step.kind === 'gate') continue;
      const back = this.stepBack.get(step.index);
      if (back === undefined) continue;
      const was = baseGates.get(back)?.has(before.index) ?? false;
      const is = headGates.get(step.index)?.has(gate.index) ?? false;
      if (was && !is) bypassed.push(step.name);
      if (!was && is) guarded.push(step.name);
    }
    if (bypassed.length)
      this.push(
        'gate-bypassed',
        'widened',
        subject,
        `gate ${gate.name} no longer comes before ${bypassed.join(', ')}`,
        { steps: bypassed },
      );
    if (guarded.length)
      this.push(
        'gate-guards',
        'narrowed',
        subject,
        `gate ${gate.name} now comes before ${guarded.join(', ')}`,
        {
          steps: guarded,
        },
      );
  }

  private outcomes(before: Task, step: Task, subject: ChangeSubject, what: string): void {
    const kind: ChangeKind = step.kind === 'gate' ? 'gate-choice' : 'outcome';
    const noun = step.kind === 'gate' ? 'choice' : 'outcome';
    const baseOutcomes = new Map(before.outcomes.map((o) => [o.name, o.transition]));
    const headNames = new Set(step.outcomes.map((o) => o.name));
    for (const outcome of step.outcomes) {
      const b = baseOutcomes.get(outcome.name);
      const h = outcome.transition;
      const shown = (t: IrTransition | undefined, side: 0 | 1) => (t ? this.transitionText(t, side) : 'none');
      const extra = { before: b ? shown(b, 0) : null, after: shown(h, 1) };
      if (!b) {
        const direction: Direction = leadsOn(h) || h.kind === 'loop' ? 'widened' : 'changed';
        this.push(kind, direction, subject, `${what} gains ${noun} ${outcome.name}: ${extra.after}`, extra);
        continue;
      }
      if (b.kind === 'loop' && h.kind === 'loop' && b.max !== h.max) {
        const maxDefaults = b.max === this.base.limits.maxLoops && h.max === this.head.limits.maxLoops;
        if (!maxDefaults) {
          const direction = h.max > b.max ? 'widened' : 'narrowed';
          this.push(
            'loop-max',
            direction,
            subject,
            `${what} ${noun} ${outcome.name} loop max ${direction === 'widened' ? 'raised' : 'lowered'}: ${b.max} → ${h.max}`,
            { before: b.max, after: h.max },
          );
        }
      }
      const bText = this.transitionText(
        { ...b, ...(b.kind === 'loop' ? { max: 0 } : {}) } as IrTransition,
        0,
      );
      const hText = this.transitionText(
        { ...h, ...(h.kind === 'loop' ? { max: 0 } : {}) } as IrTransition,
        1,
      );
      if (bText === hText) continue;
      let direction: Direction = 'changed';
      if (leadsOn(h) && !leadsOn(b)) direction = 'widened';
      else if (leadsOn(b) && !leadsOn(h)) direction = 'narrowed';
      else if (h.kind === 'loop' && b.kind !== 'loop') direction = 'widened';
      else if (b.kind === 'loop' && h.kind !== 'loop') direction = 'narrowed';
      this.push(
        kind,
        direction,
        subject,
        `${what} ${noun} ${outcome.name}: ${extra.before} → ${extra.after}`,
        extra,
      );
    }
    for (const outcome of before.outcomes) {
      if (headNames.has(outcome.name)) continue;
      const t = outcome.transition;
      const direction: Direction = leadsOn(t) || t.kind === 'loop' ? 'narrowed' : 'changed';
      this.push(
        kind,
        direction,
        subject,
        `${what} loses ${noun} ${outcome.name} (${this.transitionText(t, 0)})`,
        {
          before: this.transitionText(t, 0),
          after: null,
        },
      );
    }
  }

  private transitionText(t: IrTransition, side: 0 | 1): string {
    if (t.kind !== 'loop') return t.kind;
    const ir = side === 0 ? this.base : this.head;
    const target = ir.steps[t.target]!;
    const name = side === 0 ? this.resolvers[0].step(target.name) : target.name;
    return `loop ${name} (max ${t.max}, then ${t.exhausted})`;
  }

  /** Secret inputs a step reads now and did not (exposed), or no longer reads. */
  private secrets(before: Task | undefined, step: Task, subject: ChangeSubject): void {
    const secretOf = (ir: Ir) => new Set(ir.inputs.filter((i) => i.secret).map((i) => i.name));
    const [baseSecret, headSecret] = [secretOf(this.base), secretOf(this.head)];
    const reads = (task: Task, secret: Set<string>, map?: (name: string) => string | undefined) => {
      const names = new Set<string>();
      for (const input of task.inputs) {
        if (!input.from.startsWith('inputs.')) continue;
        const name = input.from.slice('inputs.'.length);
        if (!secret.has(name)) continue;
        const shown = map ? map(name) : name;
        if (shown !== undefined) names.add(shown);
      }
      return names;
    };
    const now = reads(step, headSecret);
    const was = before
      ? reads(before, baseSecret, (name) => this.matching.inputs.get(name) ?? `(removed) ${name}`)
      : new Set<string>();
    const what = this.what(step, subject.type === 'after' ? 'after' : 'step');
    for (const name of now)
      if (!was.has(name))
        this.push('secret-exposed', 'widened', subject, `${what} now reads secret input ${name}`, {
          after: name,
        });
    // an input that stays read but is no longer secret is reported once, on the input
    const stillRead = reads(step, new Set(this.head.inputs.map((i) => i.name)));
    for (const name of was)
      if (!now.has(name) && !stillRead.has(name))
        this.push('secret-exposed', 'narrowed', subject, `${what} no longer reads secret input ${name}`, {
          before: name,
        });
  }
}
