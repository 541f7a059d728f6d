import type { IrExpr } from '@kairoku-playbook/compiler';
import { evaluate, render, renderText, toText } from '../expr/evaluate.js';
import type { Scope } from '../expr/evaluate.js';
import { REMINDER } from './effects.js';
import type { Effect } from './effects.js';
import type { RunEvent } from './events.js';
import { checkNamedValues } from './schemas.js';
import { NOTE_LIMITS } from './state.js';
import type { RunState } from './state.js';
import { WorkingRun } from './working-run.js';
import type { Ref } from './working-run.js';
import { cannotStart, isGate, outcomeOf, resolve } from './names.js';
import { isEventRefusal, refuseEvent } from './refusal.js';
import type { TransitionRefusal } from './refusal.js';
import { cancelRun, managerLost, pause, restartFrom, resume } from './run-events.js';

export { REFUSAL_CODES } from './refusal.js';
export type { RefusalCode, TransitionRefusal } from './refusal.js';

export interface TransitionOptions {
  /** secret input values: used for check steps' `env` only, and scrubbed from what comes in */
  secrets?: Record<string, unknown>;
  /**
   * the key of the run's secret fingerprints (`loadMaskKey`): with it, secret values this process
   * was not given are scrubbed too, found by their fingerprints
   */
  maskKey?: Uint8Array;
}

/**
 * The result of one event. A refusal (`refusal`, its sentence also in `error`) leaves the state as it
 * was and asks for nothing; an event with nothing to do (a stale timeout, say) returns the same state
 * object and no effects.
 */
export interface TransitionResult {
  state: RunState;
  effects: Effect[];
  /** the refusal's sentence (`refusal.message`) */
  error?: string;
  refusal?: TransitionRefusal;
}

/**
 * THE transition function (SPEC §6): `(state, event, now) → (state, effects)`. Pure: no I/O, no clock
 * of its own, and the input state is never changed. Work per event is proportional to what the event
 * touches (a step, its dependents, a loop's region), except when a run ends or restarts.
 */
export function advance(
  state: RunState,
  event: RunEvent,
  now: number,
  options: TransitionOptions = {},
): TransitionResult {
  const run = new WorkingRun(state, now, options.secrets ?? {}, options.maskKey);
  const refusal = handle(run, event);
  if (refusal !== undefined) return { state, effects: [], error: refusal.message, refusal };
  run.finish();
  if (!run.changed) return { state, effects: [] };
  run.state.updatedAt = run.at;
  run.effects.push({ type: 'persist' });
  return { state: run.state, effects: run.effects };
}

function handle(run: WorkingRun, event: RunEvent): TransitionRefusal | undefined {
  switch (event.type) {
    case 'start':
      return start(run);
    case 'start-step':
      return startStep(run, event.step, event.brief);
    case 'step-started':
      return stepStarted(run, event.step, event.attempt, event.agent);
    case 'request-gate':
      return requestGate(run, event.step, event.summary);
    case 'report':
      return report(run, event);
    case 'complete-step':
      return completeStep(run, event.step, event.outcome);
    case 'gate-decided':
      return gateDecided(run, event.step, event.choice, event.comment);
    case 'agent-stopped':
      return agentStopped(run, event.step, event.attempt);
    case 'read-only-violated':
      return readOnlyViolated(run, event);
    case 'agent-lost':
      return agentLost(run, event.step, event.attempt, event.reason);
    case 'nudge-step':
      return nudge(run, event.step, event.message);
    case 'timeout':
      return timeout(run, event.step, event.attempt);
    case 'pause':
      return pause(run);
    case 'resume':
      return resume(run);
    case 'cancel':
      return cancelRun(run, event.reason);
    case 'restart-from':
      return restartFrom(run, event.step);
    case 'note':
      return note(run, event);
    case 'manager-lost':
      return managerLost(run, event.reason);
    default:
      return refuseEvent(
        'unknown-event',
        `unknown event ${JSON.stringify((event as { type?: unknown }).type)}`,
      );
  }
}

// ---- handlers -----------------------------------------------------------------------------------

function start(run: WorkingRun): TransitionRefusal | undefined {
  if (run.state.startedAt !== null) return refuseEvent('already-started', 'the run has already started');
  run.state.startedAt = run.at;
  const timeoutMs = run.state.ir.limits.timeoutMs;
  run.state.deadline = timeoutMs ? new Date(run.now + timeoutMs).toISOString() : null;
  run.record('run-started', `run ${run.state.id} of ${run.state.playbook} started`);
  for (const root of run.derived.roots) run.unblock(root);
  return undefined;
}

function startStep(run: WorkingRun, name: string, brief: string | undefined): TransitionRefusal | undefined {
  const ref = resolve(run, name);
  if (isEventRefusal(ref)) return ref;
  if (isGate(run, ref))
    return refuseEvent('is-a-gate', `${run.label(ref)} is a gate: open it with request-gate`);
  const why = cannotStart(run, ref);
  if (why) return why;
  const ir = run.ir(ref);
  const step = run.get(ref);
  const attempt = step.attempts.length + 1;
  const feedback = step.loop?.feedback ?? '';
  const loopCount = step.loop?.count ?? 0;
  const entry: (typeof step.attempts)[number] = { attempt, startedAt: run.at };
  if (step.loop) {
    entry.feedback = feedback;
    entry.loopCount = loopCount;
  }
  if (brief) entry.brief = run.scrub(brief);
  run.put(ref, { status: 'running', attempts: [...step.attempts, entry], reason: null });
  const scope = run.scope(ref);
  const stepName = run.name(ref);
  if (ir.kind === 'check') {
    const secretScope = run.scope(ref, {}, true);
    const env: Record<string, string> = {};
    for (const e of ir.env) env[e.name] = toText(render(e.value, secretScope));
    run.effects.push({
      type: 'start-check',
      step: stepName,
      attempt,
      commands: ir.run.map((t) => renderText(t, scope)),
      env,
      cwd: ir.cwd ? renderText(ir.cwd, scope) : null,
      timeoutMs: ir.timeoutMs,
    });
  } else {
    const role = run.derived.roles.get(ir.role ?? '') ?? run.derived.roles.get('implementer')!;
    run.effects.push({
      type: 'start-agent',
      step: stepName,
      attempt,
      title: ir.title ? renderText(ir.title, scope) : ir.name,
      role,
      provider: ir.provider ?? role.provider,
      model: ir.model ?? role.model,
      prompt: ir.prompt ? renderText(ir.prompt, scope) : '',
      feedback,
      loopCount,
      brief: entry.brief ?? '',
      inputs: ir.inputs.map((input) => ({ from: input.from, value: valueAt(scope, input.from) })),
      readOnly: ir.readOnly,
      timeoutMs: ir.timeoutMs,
    });
  }
  run.record('step-started', `${stepName} started (attempt ${attempt})`, ref, attempt);
  return undefined;
}

/** The value at a dotted path like `steps.plan.outputs.files` in a scope. */
function valueAt(scope: Scope, path: string): unknown {
  const [root, ...rest] = path.split('.');
  let expr: IrExpr = { kind: 'context', name: root! };
  for (const property of rest) expr = { kind: 'member', object: expr, property };
  return evaluate(expr, scope) ?? null;
}

function stepStarted(
  run: WorkingRun,
  name: string,
  attempt: number,
  agent: string,
): TransitionRefusal | undefined {
  const ref = resolve(run, name);
  if (isEventRefusal(ref)) return ref;
  const current = run.current(ref);
  if (!current || current.attempt !== attempt || current.endedAt !== undefined) return undefined;
  run.putAttempt(ref, { agent });
  return undefined;
}

function requestGate(
  run: WorkingRun,
  name: string,
  summary: string | undefined,
): TransitionRefusal | undefined {
  const ref = resolve(run, name);
  if (isEventRefusal(ref)) return ref;
  if (!isGate(run, ref))
    return refuseEvent('not-a-gate', `${run.label(ref)} is not a gate: start it with start-step`);
  const why = cannotStart(run, ref);
  if (why) return why;
  const ir = run.state.ir.steps[ref.index]!;
  const step = run.get(ref);
  const attempt = step.attempts.length + 1;
  const scope = run.scope(ref);
  const title = ir.gate?.title
    ? renderText(ir.gate.title, scope)
    : ir.title
      ? renderText(ir.title, scope)
      : ir.name;
  const shown =
    summary !== undefined ? run.scrub(summary) : ir.gate?.summary ? renderText(ir.gate.summary, scope) : '';
  const entry: (typeof step.attempts)[number] = { attempt, startedAt: run.at, title, gateSummary: shown };
  if (step.loop) {
    entry.feedback = step.loop.feedback;
    entry.loopCount = step.loop.count;
  }
  run.put(ref, {
    status: 'waiting',
    attempts: [...step.attempts, entry],
    gate: { title, summary: shown, openedAt: run.at },
  });
  run.effects.push({
    type: 'open-gate',
    step: ir.name,
    attempt,
    title,
    summary: shown,
    choices: ir.outcomes.map((o) => ({ name: o.name, label: o.label, comment: o.comment })),
  });
  run.record('gate-opened', `${ir.name} is waiting for a decision: ${title}`, ref, attempt);
  return undefined;
}

function report(
  run: WorkingRun,
  event: Extract<RunEvent, { type: 'report' }>,
): TransitionRefusal | undefined {
  const ref = resolve(run, event.step);
  if (isEventRefusal(ref)) return ref;
  if (isGate(run, ref))
    return refuseEvent('is-a-gate', `${run.label(ref)} is a gate: it takes a decision, not a report`);
  const step = run.get(ref);
  const current = run.current(ref);
  if (step.status === 'reported')
    return refuseEvent(
      'already-reported',
      `${run.label(ref)} has already reported attempt ${current?.attempt}; it waits for complete-step`,
    );
  if (step.status !== 'running' || !current)
    return refuseEvent('not-running', `${run.label(ref)} is not running (it is ${step.status})`);
  if (event.attempt !== undefined && event.attempt !== current.attempt)
    return refuseEvent(
      'wrong-attempt',
      `${run.label(ref)}: the report is for attempt ${event.attempt}, but the current attempt is ${current.attempt}`,
    );
  const outcome = outcomeOf(run, ref, event.outcome);
  if (isEventRefusal(outcome)) return outcome;
  const outputs = event.outputs ?? {};
  const ir = run.ir(ref);
  const problems = checkNamedValues(ir.outputSchema, outputs, 'output', run.label(ref));
  if (problems.length)
    return refuseEvent(
      'outputs-do-not-fit',
      `the report of ${run.label(ref)} does not fit its outputs: ${problems.join('; ')}`,
    );
  const summary = run.scrub(event.summary ?? '');
  run.putAttempt(ref, { outcome: outcome.name, summary, outputs: run.scrub(outputs), reportedAt: run.at });
  run.put(ref, { status: 'reported' });
  const stepName = run.name(ref);
  run.record(
    'step-reported',
    `${stepName} reported ${outcome.name}${summary ? `: ${summary}` : ''}`,
    ref,
    current.attempt,
  );
  run.wake('reported', `${stepName} reported ${outcome.name}${summary ? `: ${summary}` : ''}`, ref, {
    attempt: current.attempt,
    outcome: outcome.name,
  });
  return undefined;
}

function completeStep(run: WorkingRun, name: string, outcomeName: string): TransitionRefusal | undefined {
  const ref = resolve(run, name);
  if (isEventRefusal(ref)) return ref;
  if (isGate(run, ref))
    return refuseEvent(
      'is-a-gate',
      `${run.label(ref)} is a gate: it completes when a choice is made (gate-decided)`,
    );
  const step = run.get(ref);
  if (step.status !== 'reported')
    return refuseEvent(
      'not-reported',
      `${run.label(ref)} has not reported (it is ${step.status}); a step completes after its report`,
    );
  const outcome = outcomeOf(run, ref, outcomeName);
  if (isEventRefusal(outcome)) return outcome;
  const current = run.current(ref)!;
  const patch: Partial<typeof current> = { outcome: outcome.name, endedAt: run.at };
  if (current.outcome !== undefined && current.outcome !== outcome.name)
    patch.reportedOutcome = current.outcome;
  run.putAttempt(ref, patch);
  run.applyOutcome(ref, outcome, {
    report: {
      outcome: outcome.name,
      summary: current.summary ?? '',
      outputs: current.outputs ?? {},
      attempt: current.attempt,
    },
  });
  return undefined;
}

function gateDecided(
  run: WorkingRun,
  name: string,
  choiceName: string,
  comment: string | undefined,
): TransitionRefusal | undefined {
  const ref = resolve(run, name);
  if (isEventRefusal(ref)) return ref;
  if (!isGate(run, ref)) return refuseEvent('not-a-gate', `${run.label(ref)} is not a gate`);
  const step = run.get(ref);
  if (step.status !== 'waiting')
    return refuseEvent('not-waiting', `${run.label(ref)} is not open (it is ${step.status})`);
  const choice = outcomeOf(run, ref, choiceName);
  if (isEventRefusal(choice)) return choice;
  const text = run.scrub(comment ?? '').trim();
  if (choice.comment === 'required' && !text)
    return refuseEvent('comment-required', `choice "${choice.name}" of ${run.label(ref)} needs a comment`);
  const current = run.current(ref)!;
  const patch: Partial<typeof current> = { outcome: choice.name, endedAt: run.at };
  if (text) patch.comment = text;
  run.putAttempt(ref, patch);
  run.put(ref, { gate: null });
  const said = `${run.name(ref)} decided: ${choice.name}${text ? ` (${text})` : ''}`;
  run.record('gate-decided', said, ref, current.attempt);
  run.wake('gate-decided', said, ref, { attempt: current.attempt, outcome: choice.name });
  run.applyOutcome(ref, choice, { gate: { choice: choice.name, comment: text } });
  return undefined;
}

/** The current attempt of a running step, or undefined when the event is stale. */
function runningAttempt(run: WorkingRun, ref: Ref, attempt: number | undefined) {
  const current = run.current(ref);
  if (run.get(ref).status !== 'running' || !current || current.endedAt !== undefined) return undefined;
  if (attempt !== undefined && attempt !== current.attempt) return undefined;
  return current;
}

function agentStopped(
  run: WorkingRun,
  name: string,
  attempt: number | undefined,
): TransitionRefusal | undefined {
  const ref = resolve(run, name);
  if (isEventRefusal(ref)) return ref;
  const current = runningAttempt(run, ref, attempt);
  if (!current) return undefined;
  if (current.reminded) {
    lose(run, ref, 'its agent ended its turn again without a report');
    return undefined;
  }
  run.putAttempt(ref, { reminded: true });
  run.effects.push({
    type: 'remind-agent',
    step: run.name(ref),
    attempt: current.attempt,
    message: REMINDER,
  });
  run.record(
    'reminder',
    `${run.name(ref)} ended its turn without a report: reminded once`,
    ref,
    current.attempt,
  );
  return undefined;
}

function agentLost(
  run: WorkingRun,
  name: string,
  attempt: number | undefined,
  reason: string | undefined,
): TransitionRefusal | undefined {
  const ref = resolve(run, name);
  if (isEventRefusal(ref)) return ref;
  if (!runningAttempt(run, ref, attempt)) return undefined;
  lose(run, ref, reason ?? 'its agent no longer exists');
  return undefined;
}

/**
 * The read-only check (SPEC §3.3) failed: the agent of a read-only role changed the worktree, or the
 * worktree could not be checked. The attempt fails as a failed outcome does: it retries within
 * `retries`, else the step fails. A stale event (another attempt, a step no longer running) is ignored.
 */
function readOnlyViolated(
  run: WorkingRun,
  event: Extract<RunEvent, { type: 'read-only-violated' }>,
): TransitionRefusal | undefined {
  const ref = resolve(run, event.step);
  if (isEventRefusal(ref)) return ref;
  if (isGate(run, ref) || run.ir(ref).kind !== 'agent')
    return refuseEvent(
      'not-an-agent-step',
      `${run.label(ref)} is not an agent step: only a read-only role is checked`,
    );
  if (!run.ir(ref).readOnly)
    return refuseEvent(
      'not-read-only',
      `${run.label(ref)} is not read-only: its role may change the worktree`,
    );
  const current = runningAttempt(run, ref, event.attempt);
  if (!current) return undefined;
  const name = run.name(ref);
  const why =
    event.reason !== undefined
      ? run.scrub(event.reason)
      : `its read-only role changed the worktree: ${event.paths.map((p) => run.scrub(p)).join(', ')}`;
  run.effects.push({ type: 'stop-agent', step: name, attempt: current.attempt, reason: why });
  run.putAttempt(ref, { endedAt: run.at, ended: 'read-only' });
  run.record('read-only-violated', `${name} failed: ${why}`, ref, current.attempt);
  run.wake('read-only', `${name} failed (attempt ${current.attempt}): ${why}`, ref, {
    attempt: current.attempt,
  });
  run.retryOrFail(ref, `the read-only check (${why})`, 'failed');
  return undefined;
}

/** The lost-agent rule: the attempt is lost; the step retries within `retries`, else it is lost. */
function lose(run: WorkingRun, ref: Ref, why: string): void {
  const attempt = run.current(ref)!.attempt;
  run.putAttempt(ref, { endedAt: run.at, ended: 'lost' });
  run.record('agent-lost', `${run.name(ref)} lost: ${why}`, ref, attempt);
  run.wake('lost', `${run.name(ref)} lost (attempt ${attempt}): ${why}`, ref, { attempt });
  run.retryOrFail(ref, `its agent was lost (${why})`, 'lost');
}

function nudge(run: WorkingRun, name: string, message: string): TransitionRefusal | undefined {
  const ref = resolve(run, name);
  if (isEventRefusal(ref)) return ref;
  const current = runningAttempt(run, ref, undefined);
  if (!current)
    return refuseEvent(
      'not-running',
      `${run.label(ref)} is not running (it is ${run.get(ref).status}); only a running step can be nudged`,
    );
  const text = run.scrub(message);
  run.effects.push({ type: 'nudge-agent', step: run.name(ref), attempt: current.attempt, message: text });
  run.record('nudge', `${run.name(ref)} nudged: ${text}`, ref, current.attempt);
  return undefined;
}

/**
 * Notes are what outsiders write into the history (a backend's fault, a refused event, a runner's
 * tool denial, a step agent's refused report), so each is bounded and so is their number: a note is
 * scrubbed and cut at `NOTE_LIMITS.text` characters; one that repeats a recent note (same kind, step,
 * attempt and text) counts on that entry instead of adding one; past `NOTE_LIMITS.entries` note entries,
 * further notes are counted in a single entry. A runner or agent that sends the same refused request
 * for ever therefore grows the run file by nothing.
 */
function note(run: WorkingRun, event: Extract<RunEvent, { type: 'note' }>): undefined {
  const ref = event.step === undefined ? undefined : resolve(run, event.step);
  const known = ref === undefined || isEventRefusal(ref) ? undefined : ref;
  const scrubbed = run.scrub(event.text);
  const cut = scrubbed.length > NOTE_LIMITS.text ? `${scrubbed.slice(0, NOTE_LIMITS.text)}… (cut)` : scrubbed;
  const text = known || event.step === undefined ? cut : `${event.step}: ${cut}`;
  run.recordNote(event.kind, text, known, event.attempt);
  return undefined;
}

function timeout(
  run: WorkingRun,
  name: string | undefined,
  attempt: number | undefined,
): TransitionRefusal | undefined {
  if (name === undefined) {
    if (run.state.status !== 'running' && run.state.status !== 'paused') return undefined;
    const limit = run.state.ir.limits.timeoutMs;
    run.failRun(`the run ran past its timeout${limit ? ` of ${duration(limit)}` : ''}`, 'timeout');
    return undefined;
  }
  const ref = resolve(run, name);
  if (isEventRefusal(ref)) return ref;
  const current = runningAttempt(run, ref, attempt);
  if (!current) return undefined;
  const limit = duration(run.ir(ref).timeoutMs);
  run.effects.push({
    type: 'stop-agent',
    step: run.name(ref),
    attempt: current.attempt,
    reason: `timed out after ${limit}`,
  });
  run.putAttempt(ref, { endedAt: run.at, ended: 'timeout' });
  run.record('step-timeout', `${run.name(ref)} timed out after ${limit}`, ref, current.attempt);
  run.wake('timeout', `${run.name(ref)} timed out after ${limit} (attempt ${current.attempt})`, ref, {
    attempt: current.attempt,
  });
  run.retryOrFail(ref, `a timeout (${limit})`, 'failed');
  return undefined;
}

function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
