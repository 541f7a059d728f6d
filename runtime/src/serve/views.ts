import type { IrInput } from '@kairoku-playbook/compiler';
import { ACTIVE, AFTER_PREFIX, isEnded, vecToArray } from '@kairoku-playbook/machine';
import type { RunState, StepRun } from '@kairoku-playbook/machine';
import { restartableSteps } from '../mcp/views.js';
import type { WorkspacePlaybook } from '../mcp/workspace.js';
import { HOST_MANAGER, MANAGER_BEING_MADE } from '../host/run-host-types.js';
import type {
  RunGraphLoop,
  RunGraphNode,
  InputField,
  InputType,
  PlaybookCard,
  RunDetail,
  RunListItem,
  StepActivity,
  StepDetail,
} from '@kairoku-playbook/protocol';

/**
 * What the API shows of playbooks and runs, built from the workspace and the run state. Plain JSON;
 * nothing here changes anything. Secret inputs are masked in the run state already (`MASK`); their
 * defaults are never shown.
 */

export function playbookCard(
  playbook: WorkspacePlaybook,
  startOptions: PlaybookCard['startOptions'],
): PlaybookCard {
  const ir = playbook.ir;
  const card: PlaybookCard = {
    id: playbook.file,
    title: playbook.title ?? ir?.title ?? playbook.file,
    diagnostics: playbook.errors,
    canStart: ir !== undefined,
    inputs: ir ? ir.inputs.map(inputField) : [],
    startOptions,
  };
  if (ir?.description) card.description = ir.description;
  if (ir) card.inputSchema = ir.inputSchema;
  else {
    const first = playbook.errors[0];
    card.why = `the playbook has ${playbook.errors.length} error${playbook.errors.length === 1 ? '' : 's'}${
      first ? `, the first at line ${first.line}: ${first.code} ${first.message}` : ''
    }; fix ${playbook.errors.length === 1 ? 'it' : 'them'} to start it`;
  }
  return card;
}

function inputField(input: IrInput): InputField {
  const field: InputField = {
    name: input.name,
    type: 'any',
    required: input.required,
    secret: input.secret,
  };
  if (input.description) field.description = input.description;
  const type = input.type.trim();
  const enumMatch = /^enum\((.*)\)$/s.exec(type);
  const listMatch = /^list<(.+)>$/s.exec(type);
  if (enumMatch) {
    field.type = 'enum';
    field.choices = enumMatch[1]!.split(',').map((c) => c.trim().replace(/^(['"])(.*)\1$/, '$2'));
  } else if (listMatch) {
    field.type = 'list';
    field.element = simpleType(listMatch[1]!.trim());
  } else field.type = simpleType(type);
  if (input.multiline) field.multiline = true;
  if (!input.secret && 'default' in input) field.default = input.default;
  return field;
}

function simpleType(type: string): InputType {
  if (/^enum\(/.test(type)) return 'enum';
  if (/^list</.test(type)) return 'list';
  if (['string', 'number', 'integer', 'boolean', 'object', 'any'].includes(type)) return type as InputType;
  return /^(map|object)\b|^\{/.test(type) ? 'object' : 'any';
}

export function runListItem(state: RunState, seen: boolean): RunListItem {
  const item: RunListItem = {
    id: state.id,
    playbook: state.playbook,
    title: state.title,
    status: state.status,
    startedAt: state.startedAt ?? state.createdAt,
    archived: state.archivedAt !== undefined,
    seen: state.status !== 'completed' || seen,
    waiting: vecToArray(state.steps).filter((s) => s.status === 'waiting').length,
  };
  if (state.endedAt) item.endedAt = state.endedAt;
  if (state.workspace === undefined) item.unowned = true;
  return item;
}

export function runDetail(state: RunState, version: number, seen: boolean): RunDetail {
  const restartable = restartableSteps(state);
  const ended = isEnded(state.status);
  const wrapping = state.after.some((t) => ACTIVE.includes(t.status));
  const steps = vecToArray(state.steps).map((run, index) => {
    const ir = state.ir.steps[index]!;
    const detail = stepDetail(state, run, ir.kind, ir.outcomes, ir.role, ir.inputs);
    detail.canRetry =
      ended && (run.status === 'failed' || run.status === 'lost') && restartable.includes(run.name);
    return detail;
  });
  const after = state.after.map((run, index) => {
    const ir = state.ir.after[index]!;
    const detail = stepDetail(
      state,
      { ...run, name: `${AFTER_PREFIX}${run.name}` },
      ir.kind,
      ir.outcomes,
      ir.role,
      ir.inputs,
    );
    detail.on = [...ir.on];
    detail.startable =
      ended &&
      ir.trigger === 'manual' &&
      (ir.on as string[]).includes(state.status) &&
      !ACTIVE.includes(run.status);
    return detail;
  });
  const run: RunDetail['run'] = {
    ...runListItem(state, seen),
    backend: state.backend,
    inputs: state.inputs,
    outputs: state.outputs,
  };
  if (state.reason) run.reason = state.reason;
  if (state.manager !== undefined && state.manager !== HOST_MANAGER)
    run.manager = { name: state.manager, ...(state.manager === MANAGER_BEING_MADE ? { making: true } : {}) };
  return {
    run,
    graph: graphOf(state),
    steps,
    after,
    actions: {
      cancel: !ended || wrapping,
      pause: state.status === 'running',
      resume: state.status === 'paused',
      archive: ended && state.archivedAt === undefined,
      restartFrom: restartable,
    },
    version,
  };
}

function stepDetail(
  state: RunState,
  run: StepRun,
  kind: StepDetail['kind'],
  outcomes: readonly { name: string; label: string | null; comment: 'none' | 'optional' | 'required' }[],
  roleName: string | null,
  inputs: readonly { from: string }[],
): StepDetail {
  const detail: StepDetail = {
    name: run.name,
    kind,
    status: run.status,
    outcome: run.outcome,
    summary: run.summary,
    outputs: run.outputs,
    reason: run.reason,
    attempts: run.attempts,
    activity: activityOf(state, run.name),
    canNudge: run.status === 'running',
    canRetry: false,
  };
  if (run.status === 'waiting' && run.gate)
    detail.gate = {
      title: run.gate.title,
      summary: run.gate.summary,
      choices: outcomes.map((o) => ({ name: o.name, label: o.label, comment: o.comment })),
    };
  if (inputs.length)
    detail.inputs = inputs.map((input) => ({
      name: input.from.split('.').at(-1)!,
      source: input.from,
      value: valueAt(state, input.from),
    }));
  const brief = run.attempts.at(-1)?.brief;
  if (brief) detail.brief = brief;
  if (kind === 'agent') {
    const role = state.ir.roles.find((r) => r.name === (roleName ?? 'implementer'));
    if (role) detail.role = { name: role.name, instructions: role.instructions ?? '' };
  }
  return detail;
}

/** How many of a step's history entries its detail carries (the latest; the run file has them all). */
export const STEP_ACTIVITY_SHOWN = 50;

/** The step's history entries (an after-task's are under `after.NAME`, as its run is named here). */
function activityOf(state: RunState, step: string): StepActivity[] {
  const entries = vecToArray(state.history).filter((entry) => entry.step === step);
  return entries.slice(-STEP_ACTIVITY_SHOWN).map(({ at, kind, attempt, text, count }) => ({
    at,
    kind,
    ...(attempt !== undefined ? { attempt } : {}),
    text,
    ...(count !== undefined && count > 1 ? { count } : {}),
  }));
}

/** The value at `inputs.X`, `steps.S.outputs.O` or `steps.S.outcome`, as the run holds it now. */
function valueAt(state: RunState, path: string): unknown {
  const [root, name, what, ...rest] = path.split('.');
  if (root === 'inputs') return state.inputs[name!] ?? null;
  if (root !== 'steps') return null;
  const step = vecToArray(state.steps).find((s) => s.name === name);
  if (!step) return null;
  if (what === 'outcome') return step.outcome;
  if (what === 'summary') return step.summary;
  if (what !== 'outputs') return null;
  let value: unknown = step.outputs;
  for (const key of rest) value = (value as Record<string, unknown> | null)?.[key] ?? null;
  return value ?? null;
}

function graphOf(state: RunState): RunDetail['graph'] {
  const ir = state.ir;
  const nodes: RunGraphNode[] = ir.steps.map((s) => ({
    name: s.name,
    kind: s.kind,
    needs: s.needs.map((n) => ir.steps[n]!.name),
  }));
  for (const task of ir.after)
    nodes.push({ name: `${AFTER_PREFIX}${task.name}`, kind: task.kind, needs: [], after: true });
  const loops: RunGraphLoop[] = [];
  for (const step of ir.steps)
    for (const outcome of step.outcomes) {
      const t = outcome.transition;
      if (t.kind !== 'loop') continue;
      loops.push({
        from: step.name,
        to: ir.steps[t.target]!.name,
        outcome: outcome.name,
        max: t.max,
        count: state.loops[t.counter] ?? 0,
      });
    }
  return { nodes, loops };
}
