import type { IrAfterTask, IrOutcome, IrStep } from '@kairoku-playbook/compiler';
import { AFTER_PREFIX, isEnded, vecToArray } from '@kairoku-playbook/machine';
import type { Attempt, RunState, RunStatus, StepRun, StepStatus } from '@kairoku-playbook/machine';
import type { RunIndexEntry } from '../store/run-index.js';

/**
 * What the manager protocol shows of a run: the whole run (`get_run`), the short progress every
 * other tool returns (what is ready, running, reported, waiting, and what to do next), and a line
 * per run (`list_runs`). Plain JSON, built from the state; nothing here changes it.
 */

export interface ChoiceView {
  name: string;
  label: string | null;
  comment: 'none' | 'optional' | 'required';
}

export interface StepView {
  /** after-tasks are named `after.NAME` */
  name: string;
  kind: 'agent' | 'check' | 'gate';
  status: StepStatus;
  needs?: string[];
  /** declared outcomes (a gate's: its choices) */
  outcomes: string[];
  outcome: string | null;
  summary: string | null;
  outputs: Record<string, unknown> | null;
  reason: string | null;
  attempts: Attempt[];
  /** while a gate waits for a decision */
  gate?: { title: string; summary: string; choices: ChoiceView[] };
}

export interface Progress {
  run: string;
  playbook: string;
  status: RunStatus;
  reason?: string;
  /** steps to start (`start_step`) or gates to open (`request_gate`) */
  ready: { step: string; kind: 'agent' | 'check' | 'gate' }[];
  running: { step: string; attempt: number }[];
  /** reports waiting for `complete_step` */
  reported: {
    step: string;
    attempt: number;
    outcome: string | null;
    summary: string;
    outputs: Record<string, unknown>;
    outcomes: string[];
  }[];
  /** open gates waiting for a human (or `resume`) */
  waiting: { step: string; attempt: number; title: string; summary: string; choices: ChoiceView[] }[];
  /** the playbook's outputs, once the run has ended */
  outputs?: Record<string, unknown> | null;
  /** what the manager can do now, in words */
  next: string[];
}

type AnyStep = IrStep | IrAfterTask;

function choices(outcomes: readonly IrOutcome[]): ChoiceView[] {
  return outcomes.map((o) => ({ name: o.name, label: o.label, comment: o.comment }));
}

function choiceList(list: readonly ChoiceView[]): string {
  return list
    .map(
      (c) =>
        `${c.name}${c.comment === 'required' ? ' [comment required]' : c.comment === 'optional' ? ' [comment optional]' : ''}`,
    )
    .join(', ');
}

function each(
  state: RunState,
  visit: (name: string, ir: AnyStep, run: StepRun, after: boolean) => void,
): void {
  vecToArray(state.steps).forEach((run, index) => visit(run.name, state.ir.steps[index]!, run, false));
  state.after.forEach((run, index) => visit(`${AFTER_PREFIX}${run.name}`, state.ir.after[index]!, run, true));
}

export function progress(state: RunState): Progress {
  const view: Progress = {
    run: state.id,
    playbook: state.playbook,
    status: state.status,
    ready: [],
    running: [],
    reported: [],
    waiting: [],
    next: [],
  };
  if (state.reason) view.reason = state.reason;
  const next = view.next;
  const ended = isEnded(state.status);
  if (ended) {
    view.outputs = state.outputs;
    next.push(`the run ${state.status}${state.reason ? `: ${state.reason}` : ''}`);
  } else if (state.status === 'paused')
    next.push('the run is paused: running steps finish their turn, nothing new starts until it is resumed');
  each(state, (name, ir, run) => {
    const attempt = run.attempts[run.attempts.length - 1];
    const what = name.startsWith(AFTER_PREFIX) ? 'after-task' : ir.kind === 'gate' ? 'gate' : 'step';
    switch (run.status) {
      case 'ready':
        view.ready.push({ step: name, kind: ir.kind });
        if (ir.kind === 'gate')
          next.push(`open gate "${name}" with request_gate and a summary for the human, then end your turn`);
        else if (what === 'after-task')
          next.push(
            `start after-task "${name}" with start_step (after-tasks run once the run has ended; they never change its status)`,
          );
        else
          next.push(
            `start ${ir.kind === 'check' ? 'check' : 'step'} "${name}" with start_step${ir.kind === 'check' ? '' : ' and a brief for its agent'}`,
          );
        return;
      case 'running':
        view.running.push({ step: name, attempt: attempt?.attempt ?? 0 });
        next.push(`${what} "${name}" is running (attempt ${attempt?.attempt ?? 0}): wait for its report`);
        return;
      case 'reported': {
        const outcomes = ir.outcomes.map((o) => o.name);
        view.reported.push({
          step: name,
          attempt: attempt?.attempt ?? 0,
          outcome: attempt?.outcome ?? null,
          summary: attempt?.summary ?? '',
          outputs: attempt?.outputs ?? {},
          outcomes,
        });
        next.push(
          `decide ${what} "${name}": it reported "${attempt?.outcome}"${attempt?.summary ? ` (${attempt.summary})` : ''}; call complete_step with that outcome or another of ${outcomes.join(', ')}`,
        );
        return;
      }
      case 'waiting': {
        const list = choices(ir.outcomes);
        view.waiting.push({
          step: name,
          attempt: attempt?.attempt ?? 0,
          title: run.gate?.title ?? '',
          summary: run.gate?.summary ?? '',
          choices: list,
        });
        next.push(
          `gate "${name}" waits for a human: a decision in the panel wakes you; relay a decision given in chat with resume (choices: ${choiceList(list)})`,
        );
        return;
      }
    }
  });
  if (!ended && state.status === 'running' && next.length === 0)
    next.push('nothing can start now: call get_run to see the run');
  return view;
}

function stepView(name: string, ir: AnyStep, run: StepRun, state: RunState, after: boolean): StepView {
  const view: StepView = {
    name,
    kind: ir.kind,
    status: run.status,
    outcomes: ir.outcomes.map((o) => o.name),
    outcome: run.outcome,
    summary: run.summary,
    outputs: run.outputs,
    reason: run.reason,
    attempts: run.attempts,
  };
  if (!after) view.needs = (ir as IrStep).needs.map((n) => state.ir.steps[n]!.name);
  if (run.status === 'waiting' && run.gate)
    view.gate = { title: run.gate.title, summary: run.gate.summary, choices: choices(ir.outcomes) };
  return view;
}

/** `get_run`: the whole run, its last `historyTail` history entries, and its progress. */
export function runView(state: RunState, historyTail = 30): Record<string, unknown> {
  const steps: StepView[] = [];
  const after: StepView[] = [];
  each(state, (name, ir, run, isAfter) =>
    (isAfter ? after : steps).push(stepView(name, ir, run, state, isAfter)),
  );
  const history = vecToArray(state.history);
  const { next, ready, running, reported, waiting } = progress(state);
  return {
    ...runIdentity(state),
    inputs: state.inputs,
    startedAt: state.startedAt,
    endedAt: state.endedAt,
    updatedAt: state.updatedAt,
    loops: state.loops,
    outputs: state.outputs,
    steps,
    after,
    history: history.slice(-historyTail).map((h) => ({ at: h.at, kind: h.kind, text: h.text })),
    ...(history.length > historyTail ? { historyOmitted: history.length - historyTail } : {}),
    ready,
    running,
    reported,
    waiting,
    next,
  };
}

/** Steps an ended run can restart from: the ones whose needs all completed (or were skipped). */
export function restartableSteps(state: RunState): string[] {
  if (!isEnded(state.status)) return [];
  const steps = vecToArray(state.steps);
  const settled = (s: StepStatus) => s === 'completed' || s === 'skipped';
  return state.ir.steps.filter((s) => s.needs.every((n) => settled(steps[n]!.status))).map((s) => s.name);
}

/** What names a run and where it stands: shared by get_run and list_runs. */
function runIdentity(state: RunState) {
  return {
    run: state.id,
    playbook: state.playbook,
    title: state.title,
    status: state.status,
    reason: state.reason,
    workspace: state.workspace ?? null,
    branch: state.branch,
    manager: state.manager ?? null,
    backend: state.backend,
    archived: state.archivedAt !== undefined,
    createdAt: state.createdAt,
  };
}

/** `list_runs`: one line per run, from the store's index (what `get_run` says of it, in short). */
export function runLine(entry: RunIndexEntry): Record<string, unknown> {
  const line: Record<string, unknown> = {
    run: entry.id,
    playbook: entry.playbook,
    title: entry.title,
    status: entry.status,
    reason: entry.reason,
    workspace: entry.workspace ?? null,
    branch: entry.branch,
    manager: entry.manager ?? null,
    backend: entry.backend,
    archived: entry.archivedAt !== undefined,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
  };
  if (isEnded(entry.status)) line.restartFrom = entry.restartFrom ?? [];
  else line.steps = entry.active ?? [];
  return line;
}
