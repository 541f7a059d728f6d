import { isSingleExpression } from '@kairoku-playbook/grammar';
import type { Expr } from '@kairoku-playbook/grammar';
import type { SemanticModel } from '../bind/semantic-model.js';
import type { TemplateInfo } from '../bind/template.js';
import type { OutcomeDecl, PlaybookModel, StepDecl, TextRef, TransitionDecl } from '../model/model.js';
import { READ_ONLY_BASES, baseOf } from '../policy/base-policy.js';
import type { SourceText } from '../source-text.js';
import { toJsonSchema, typeToString, ANY } from '../types/type.js';
import type { Type } from '../types/type.js';
import { parseDuration } from './duration.js';
import { IR_VERSION } from './ir.js';
import type {
  Ir,
  IrAfterTask,
  IrExpr,
  IrOutcome,
  IrRole,
  IrStep,
  IrTemplate,
  IrTransition,
  SourceLocation,
} from './ir.js';

const DEFAULT_STEP_TIMEOUT_MS = 3_600_000;

/**
 * Emits the IR of a playbook that checked without errors. Steps come in topological order with
 * index-based needs; every node keeps its source location. The same input gives the same bytes.
 */
export function emitIr(semantic: SemanticModel, source: SourceText, sha256: string): Ir {
  return new Emitter(semantic, source).emit(sha256);
}

class Emitter {
  private readonly model: PlaybookModel;
  /** model step index → IR step index (topological position) */
  private readonly position: number[];
  private readonly templates = new Map<TextRef['node'], TemplateInfo>();

  constructor(
    private readonly semantic: SemanticModel,
    private readonly source: SourceText,
  ) {
    this.model = semantic.model;
    this.position = new Array<number>(this.model.steps.length);
    semantic.graph.order.forEach((modelIndex, irIndex) => (this.position[modelIndex] = irIndex));
    for (const info of semantic.templates) this.templates.set(info.text.node, info);
  }

  emit(sha256: string): Ir {
    const { model, semantic } = this;
    const stepTimeoutMs =
      (model.limits.stepTimeout && parseDuration(model.limits.stepTimeout.value)) || DEFAULT_STEP_TIMEOUT_MS;
    const columns = new Map<number, number>();
    const steps = semantic.graph.order.map((modelIndex) => {
      const step = model.steps[modelIndex]!;
      const row = semantic.graph.depth[modelIndex]!;
      const column = columns.get(row) ?? 0;
      columns.set(row, column + 1);
      return this.step(step, stepTimeoutMs, { row, column });
    });
    const inputs = model.inputs.map((input) => {
      const ir: Ir['inputs'][number] = {
        name: input.name,
        type: input.type ? typeToString(input.type) : 'string',
        description: input.description ?? null,
        required: input.required,
        secret: input.secret,
        multiline: input.multiline,
      };
      if (input.defaultValue) ir.default = input.defaultValue.value;
      return ir;
    });
    return {
      ir: IR_VERSION,
      id: model.id,
      title: model.title?.value ?? model.id,
      description: model.description ?? null,
      workspace: model.workspace,
      source: { file: model.file, sha256 },
      labels: model.labels.map((l) => ({
        name: l.name,
        value: this.template(l.text) ?? literalTemplate(l.literal ?? ''),
      })),
      inputs,
      inputSchema: this.inputSchema(),
      roles: [...model.roles.values()].map((role) => this.role(role.name)),
      limits: {
        concurrency: model.limits.concurrency,
        timeoutMs: model.limits.timeout ? (parseDuration(model.limits.timeout.value) ?? null) : null,
        stepTimeoutMs,
        maxLoops: model.limits.maxLoops,
      },
      steps,
      after: model.after.map((task) => this.afterTask(task, stepTimeoutMs)),
      outputs: model.outputs.map((o) => ({
        name: o.name,
        value: this.template(o.text),
        literal: o.text ? null : ((o.literal as string | number | boolean | null | undefined) ?? null),
      })),
    };
  }

  private inputSchema(): Record<string, unknown> {
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    for (const input of this.model.inputs) {
      const schema: Record<string, unknown> = toJsonSchema(input.type ?? ANY);
      if (input.description) schema.description = input.description;
      if (input.pattern) schema.pattern = input.pattern.value;
      if (input.min !== undefined) schema.minimum = input.min;
      if (input.max !== undefined) schema.maximum = input.max;
      if (input.defaultValue) schema.default = input.defaultValue.value;
      if (input.secret) schema.writeOnly = true;
      properties[input.name] = schema;
      if (input.required) required.push(input.name);
    }
    return { type: 'object', properties, required, additionalProperties: false };
  }

  private role(name: string): IrRole {
    const role = this.model.roles.get(name)!;
    const base = baseOf(role) ?? 'implementer';
    const defaults = {
      implementer: { read: true, edit: true, write: true, network: false, run: true, mcp: false },
      reviewer: { read: true, edit: false, write: false, network: false, run: true, mcp: false },
      planner: { read: true, edit: false, write: false, network: false, run: false, mcp: true },
      researcher: { read: true, edit: false, write: false, network: false, run: false, mcp: true },
    }[base];
    const tools: IrRole['tools'] = { ...defaults };
    const declared = role.tools;
    if (declared) {
      for (const key of ['read', 'edit', 'write', 'network'] as const) {
        if (declared[key]) tools[key] = declared[key]!.value && defaults[key];
      }
      for (const key of ['run', 'mcp'] as const) {
        const value = declared[key]?.value;
        if (value === undefined) continue;
        tools[key] = Array.isArray(value)
          ? defaults[key]
            ? value.map((t) => t.value)
            : false
          : value && defaults[key];
      }
    }
    return {
      name,
      base,
      instructions: role.instructions?.value ?? null,
      provider: role.provider ?? null,
      model: role.model ?? null,
      mode: role.mode ?? null,
      tools,
    };
  }

  private common(step: StepDecl, stepTimeoutMs: number) {
    const role = step.role ? this.model.roles.get(step.role.name) : undefined;
    const base = role ? baseOf(role) : undefined;
    return {
      index: step.isAfter ? step.index : this.position[step.index]!,
      name: step.name,
      title: this.template(step.title),
      role: step.kind === 'agent' ? (step.role?.name ?? null) : null,
      provider: step.provider ?? null,
      model: step.model ?? null,
      prompt: this.template(step.prompt),
      run: step.run.map((r) => this.template(r)!),
      env: step.env.map((e) => ({
        name: e.name,
        value: this.template(e.text) ?? literalTemplate(e.literal ?? ''),
      })),
      cwd: this.template(step.cwd),
      outputs: this.outputs(step),
      outputSchema: this.outputSchema(step),
      outcomes: step.outcomes.map((o) => this.outcome(step, o)),
      retries: step.retries,
      timeoutMs: (step.timeout && parseDuration(step.timeout.value)) || stepTimeoutMs,
      labels: step.labels.map((l) => ({
        name: l.name,
        value: this.template(l.text) ?? literalTemplate(l.literal ?? ''),
      })),
      inputs: this.derivedInputs(step),
      readOnly: base !== undefined && READ_ONLY_BASES.includes(base),
      at: this.at(step.keyRange.start),
    };
  }

  private step(step: StepDecl, stepTimeoutMs: number, layout: { row: number; column: number }): IrStep {
    const common = this.common(step, stepTimeoutMs);
    const when = step.when;
    let irWhen: IrStep['when'] = null;
    if (when && 'node' in when) {
      const info = this.templates.get(when.node);
      if (info?.condition)
        irWhen = {
          expr: expression(info.condition),
          at: this.at(this.semantic.rangeIn(when, info.condition.span.start, info.condition.span.end).start),
        };
    } else if (when && when.value === false) {
      irWhen = { expr: { kind: 'literal', value: false }, at: this.at(when.range.start) };
    }
    return {
      index: common.index,
      name: common.name,
      kind: step.kind!,
      title: common.title,
      needs: this.semantic.graph.needs[step.index]!.map((n) => this.position[n]!).sort((a, b) => a - b),
      when: irWhen,
      role: common.role,
      provider: common.provider,
      model: common.model,
      prompt: common.prompt,
      run: common.run,
      env: common.env,
      cwd: common.cwd,
      gate:
        step.kind === 'gate'
          ? { title: this.template(step.gate?.title), summary: this.template(step.gate?.summary) }
          : null,
      outputs: common.outputs,
      outputSchema: common.outputSchema,
      outcomes: common.outcomes,
      retries: common.retries,
      timeoutMs: common.timeoutMs,
      labels: common.labels,
      inputs: common.inputs,
      layout,
      readOnly: common.readOnly,
      at: common.at,
    };
  }

  private afterTask(task: StepDecl, stepTimeoutMs: number): IrAfterTask {
    const common = this.common(task, stepTimeoutMs);
    return { ...common, kind: task.kind as 'agent' | 'check', trigger: task.trigger, on: task.on };
  }

  private outputs(step: StepDecl): IrStep['outputs'] {
    if (step.kind === 'check') {
      return ['passed', 'failed', 'skipped', 'todo', 'exit_code'].map((name) => ({
        name,
        type: 'integer',
        description: null,
      }));
    }
    return step.outputs.map((o) => ({
      name: o.name,
      type: o.type ? typeToString(o.type) : 'string',
      description: o.description ?? null,
    }));
  }

  private outputSchema(step: StepDecl): Record<string, unknown> {
    const properties: Record<string, unknown> = {};
    const fields: [string, Type | undefined][] =
      step.kind === 'check'
        ? ['passed', 'failed', 'skipped', 'todo', 'exit_code'].map((n) => [n, { kind: 'integer' }])
        : step.outputs.map((o) => [o.name, o.type]);
    for (const [name, type] of fields) properties[name] = toJsonSchema(type ?? ANY);
    return { type: 'object', properties, additionalProperties: false };
  }

  private outcome(step: StepDecl, outcome: OutcomeDecl): IrOutcome {
    return {
      name: outcome.name,
      label: outcome.label ?? null,
      comment: outcome.comment,
      transition: this.transition(step, outcome, outcome.transition),
      at: outcome.keyRange ? this.at(outcome.keyRange.start) : null,
    };
  }

  private transition(
    step: StepDecl,
    outcome: OutcomeDecl,
    transition: TransitionDecl | undefined,
  ): IrTransition {
    if (!transition) return { kind: 'fail' };
    if (transition.kind !== 'loop') return { kind: transition.kind };
    const target = this.model.stepByName.get(transition.target?.name ?? '') ?? step;
    return {
      kind: 'loop',
      target: this.position[target.index]!,
      max: transition.max?.value ?? this.model.limits.maxLoops,
      feedback: this.template(transition.feedback),
      exhausted: transition.exhausted?.kind ?? 'fail',
      reset: this.resetRegion(target.index),
      counter: `${step.name}.${outcome.name}`,
    };
  }

  /** The templates a step owns, in document order (indexed once: a scan per step is quadratic). */
  private templatesOf(step: StepDecl): TemplateInfo[] {
    if (!this.byOwner) {
      this.byOwner = new Map();
      for (const info of this.semantic.templates) {
        if (!info.owner) continue;
        const key = `${info.owner.isAfter ? 'after' : 'step'}\0${info.owner.name}`;
        const list = this.byOwner.get(key);
        if (list) list.push(info);
        else this.byOwner.set(key, [info]);
      }
    }
    return this.byOwner.get(`${step.isAfter ? 'after' : 'step'}\0${step.name}`) ?? [];
  }

  private byOwner: Map<string, TemplateInfo[]> | undefined;

  /**
   * The target and every step that transitively needs it, as ranges of IR positions. A walk down
   * the positions with the graph's ancestor bitsets costs a bit test per step and builds the ranges
   * as it goes; collecting and sorting the region would cost its size, which can be most of the playbook.
   */
  private resetRegion(target: number): [number, number][] {
    const { graph } = this.semantic;
    const ranges: [number, number][] = [];
    const order = graph.order;
    for (let position = this.position[target]!; position < order.length; position++) {
      const step = order[position]!;
      if (step !== target && !graph.isAncestor(target, step)) continue;
      const last = ranges[ranges.length - 1];
      if (last && last[1] === position - 1) last[1] = position;
      else ranges.push([position, position]);
    }
    return ranges;
  }

  private derivedInputs(step: StepDecl): IrStep['inputs'] {
    const seen = new Set<string>();
    const inputs: IrStep['inputs'] = [];
    for (const info of this.templatesOf(step)) {
      for (const ref of info.references) {
        let from: string;
        let source: number | null = null;
        if (ref.kind === 'input') from = `inputs.${ref.name}`;
        else if (ref.kind === 'output') {
          from = `steps.${ref.step}.outputs.${ref.output}`;
          source = this.position[this.model.stepByName.get(ref.step)!.index]!;
        } else continue;
        if (seen.has(from)) continue;
        seen.add(from);
        inputs.push({ from, step: source });
      }
    }
    return inputs;
  }

  private template(text: TextRef | undefined): IrTemplate | null {
    if (!text) return null;
    const at = this.at(this.semantic.rangeIn(text, 0, 0).start);
    const info = this.templates.get(text.node);
    const template = info?.template;
    if (!template) return { parts: text.value ? [{ text: text.value }] : [], single: false, at };
    const parts: IrTemplate['parts'] = [];
    for (const part of template.parts) {
      if (part.kind === 'text') parts.push({ text: part.value });
      else if (part.expr)
        parts.push({
          expr: expression(part.expr),
          at: this.at(this.semantic.rangeIn(text, part.span.start, part.span.end).start),
        });
    }
    return { parts, single: isSingleExpression(template), at };
  }

  private at(offset: number): SourceLocation {
    const position = this.source.positionAt(offset);
    return [position.line + 1, position.character + 1];
  }
}

function literalTemplate(text: string): IrTemplate {
  return { parts: text ? [{ text }] : [], single: false, at: [0, 0] };
}

export function expression(expr: Expr): IrExpr {
  switch (expr.kind) {
    case 'literal':
      return { kind: 'literal', value: expr.value };
    case 'identifier':
      return { kind: 'context', name: expr.name };
    case 'member':
      return { kind: 'member', object: expression(expr.object), property: expr.property };
    case 'index':
      return { kind: 'index', object: expression(expr.object), index: expression(expr.index) };
    case 'unary':
      return { kind: 'not', operand: expression(expr.operand) };
    case 'binary':
      return {
        kind: 'binary',
        operator: expr.operator,
        left: expression(expr.left),
        right: expression(expr.right),
      };
    case 'call':
      return { kind: 'call', function: expr.callee, args: expr.args.map(expression) };
    case 'list':
      return { kind: 'list', items: expr.items.map(expression) };
    case 'error':
      return { kind: 'literal', value: null };
  }
}
