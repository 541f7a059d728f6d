import { regionSteps } from '@kairoku-playbook/compiler';
import type { IrAfterTask, IrOutcome, IrStep, IrTransition } from '@kairoku-playbook/compiler';
import { Lookup, evaluate, render, renderText } from '../expr/evaluate.js';
import type { Scope } from '../expr/evaluate.js';
import { derive } from './derived.js';
import type { Derived } from './derived.js';
import type { Effect } from './effects.js';
import { vecGet, vecPush, vecSet } from './pvec.js';
import { SecretMasker, secretPieces } from './secret-mask.js';
import { AFTER_PREFIX, NOTE_LIMITS, isEnded } from './state.js';
import type { Attempt, HistoryEntry, RunState, StepRun, StepStatus, WakeUp } from './state.js';

/** A step (`index` into `ir.steps`) or an after-task (`index` into `ir.after`). */
export type Ref = { after: false; index: number } | { after: true; index: number };

/** What a transition's templates see besides the run: the report or the gate decision. */
export interface TransitionContext {
  report?: { outcome: string; summary: string; outputs: Record<string, unknown>; attempt: number };
  gate?: { choice: string; comment: string };
}

export function isSettled(status: StepStatus): boolean {
  return status === 'completed' || status === 'skipped';
}

/**
 * A copy-on-write working copy of a run for one transition: reads fall through to the state it was
 * made from, writes replace single steps (a path copy of the persistent vector) and top-level fields.
 * The state it was made from is never changed. The rules of SPEC §3.2–3.3 live here, as methods.
 */
export class WorkingRun {
  /** the state this event makes: a shallow copy of the one it was made from, written field by field */
  readonly state: RunState;
  /** per-IR facts (names, dependents, outcomes), computed once per IR and cached */
  readonly derived: Derived;
  readonly at: string;
  readonly effects: Effect[] = [];
  changed = false;
  private readonly wakeups: WakeUp[] = [];
  /** steps whose needs just became settled; `settleReadiness` takes them from here */
  private readonly unblocked: number[] = [];

  /** built on the first scrub */
  private masker: SecretMasker | undefined;

  constructor(
    base: RunState,
    readonly now: number,
    readonly secrets: Record<string, unknown>,
    private readonly maskKey?: Uint8Array,
  ) {
    this.state = { ...base };
    this.derived = derive(base.ir);
    this.at = new Date(now).toISOString();
  }

  // ---- reading and writing -------------------------------------------------------------------

  get(ref: Ref): StepRun {
    return ref.after ? this.state.after[ref.index]! : vecGet(this.state.steps, ref.index);
  }

  step(index: number): StepRun {
    return vecGet(this.state.steps, index);
  }

  ir(ref: Ref): IrStep | IrAfterTask {
    return ref.after ? this.state.ir.after[ref.index]! : this.state.ir.steps[ref.index]!;
  }

  name(ref: Ref): string {
    return ref.after
      ? `${AFTER_PREFIX}${this.state.ir.after[ref.index]!.name}`
      : this.state.ir.steps[ref.index]!.name;
  }

  /** How messages name it: `step "qa"`, `after-task "summarize"`, `gate "ship"`. */
  label(ref: Ref): string {
    const ir = this.ir(ref);
    if (ref.after) return `after-task "${ir.name}"`;
    return `${ir.kind === 'gate' ? 'gate' : 'step'} "${ir.name}"`;
  }

  put(ref: Ref, patch: Partial<StepRun>): StepRun {
    const next = { ...this.get(ref), ...patch };
    if (ref.after) {
      const after = this.state.after.slice();
      after[ref.index] = next;
      this.state.after = after;
    } else {
      this.state.steps = vecSet(this.state.steps, ref.index, next);
    }
    this.changed = true;
    return next;
  }

  current(ref: Ref): Attempt | undefined {
    const attempts = this.get(ref).attempts;
    return attempts[attempts.length - 1];
  }

  putAttempt(ref: Ref, patch: Partial<Attempt>): void {
    const attempts = this.get(ref).attempts.slice();
    attempts[attempts.length - 1] = { ...attempts[attempts.length - 1]!, ...patch };
    this.put(ref, { attempts });
  }

  record(kind: string, text: string, ref?: Ref, attempt?: number): void {
    const entry: HistoryEntry = { at: this.at, kind, text };
    if (ref) entry.step = this.name(ref);
    if (attempt !== undefined) entry.attempt = attempt;
    this.state.history = vecPush(this.state.history, entry);
    this.changed = true;
  }

  /**
   * Records an outsider's note within `NOTE_LIMITS`: a repeat of a recent note counts on its entry,
   * and past the limit notes are counted in one entry rather than recorded.
   */
  recordNote(kind: string, text: string, ref?: Ref, attempt?: number): void {
    const step = ref ? this.name(ref) : undefined;
    const history = this.state.history;
    const log = this.state.notes ?? { entries: 0, dropped: 0 };
    for (let index = history.size - 1; index >= Math.max(0, history.size - NOTE_LIMITS.window); index--) {
      const entry = vecGet(history, index);
      if (entry.kind === kind && entry.text === text && entry.step === step && entry.attempt === attempt) {
        this.state.history = vecSet(history, index, {
          ...entry,
          count: (entry.count ?? 1) + 1,
          lastAt: this.at,
        });
        this.changed = true;
        return;
      }
    }
    if (log.entries < NOTE_LIMITS.entries) {
      this.record(kind, text, ref, attempt);
      this.state.notes = { ...log, entries: log.entries + 1 };
      return;
    }
    const dropped = log.dropped + 1;
    const counted: HistoryEntry = {
      at: this.at,
      kind: 'notes-dropped',
      text: `${dropped} more note${dropped === 1 ? ' was' : 's were'} not recorded: a run keeps at most ${NOTE_LIMITS.entries} (the last: ${kind}${step ? ` on ${step}` : ''})`,
    };
    if (log.droppedEntry === undefined) {
      this.state.history = vecPush(history, counted);
      this.state.notes = { ...log, dropped, droppedEntry: history.size };
    } else {
      const first = vecGet(history, log.droppedEntry);
      this.state.history = vecSet(history, log.droppedEntry, { ...counted, at: first.at, lastAt: this.at });
      this.state.notes = { ...log, dropped };
    }
    this.changed = true;
  }

  wake(
    kind: WakeUp['kind'],
    text: string,
    ref?: Ref,
    extra: { attempt?: number; outcome?: string } = {},
  ): void {
    const wakeup: WakeUp = { at: this.at, kind, text };
    if (ref) wakeup.step = this.name(ref);
    if (extra.attempt !== undefined) wakeup.attempt = extra.attempt;
    if (extra.outcome !== undefined) wakeup.outcome = extra.outcome;
    this.wakeups.push(wakeup);
  }

  /** Sends wake-ups held while the run was paused, merged with this transition's own. */
  release(held: readonly WakeUp[]): void {
    this.wakeups.unshift(...held);
  }

  /** Ends the transition: runs readiness to a fixed point and sends (or, paused, holds) wake-ups. */
  finish(): void {
    this.settleReadiness();
    if (this.wakeups.length) {
      if (this.state.status === 'paused') this.state.wakeups = [...this.state.wakeups, ...this.wakeups];
      else this.effects.push({ type: 'wake-manager', wakeups: this.wakeups.splice(0) });
      this.changed = true;
    }
  }

  // ---- templates -----------------------------------------------------------------------------

  scope(ref: Ref | undefined, context: TransitionContext = {}, withSecrets = false): Scope {
    const state = this.state;
    const self = ref && !ref.after ? ref.index : -1;
    const steps = new Lookup((name) => {
      const index = this.derived.stepIndex.get(name);
      if (index === undefined) return null;
      const run = this.step(index);
      // Inside its own transition a step reads its current report.
      if (index === self && context.report)
        return {
          outputs: context.report.outputs,
          outcome: context.report.outcome,
          status: run.status,
          summary: context.report.summary,
          attempt: run.attempts.length,
        };
      if (index === self && context.gate)
        return {
          outputs: {},
          outcome: context.gate.choice,
          status: run.status,
          summary: null,
          attempt: run.attempts.length,
        };
      return {
        outputs: run.outputs ?? {},
        outcome: run.outcome,
        status: run.status,
        summary: run.summary,
        attempt: run.attempts.length,
      };
    });
    const loop = ref ? this.get(ref).loop : null;
    const scope: Scope = {
      inputs: withSecrets ? { ...state.inputs, ...this.secrets } : state.inputs,
      steps,
      run: { id: state.id, playbook: state.playbook, branch: state.branch, status: state.status },
      loop: { count: loop?.count ?? 0, feedback: loop?.feedback ?? '' },
    };
    if (context.report) scope.report = context.report;
    if (context.gate) scope.gate = context.gate;
    return scope;
  }

  // ---- readiness -----------------------------------------------------------------------------

  /** A step became completed or skipped: its dependents may become ready. */
  settle(index: number): void {
    this.state.settled++;
    for (const dependent of this.derived.dependents[index]!) {
      const run = this.step(dependent);
      const unsettledNeeds = run.unsettledNeeds - 1;
      this.put({ after: false, index: dependent }, { unsettledNeeds });
      if (unsettledNeeds === 0 && run.status === 'pending') this.unblocked.push(dependent);
    }
  }

  /** Queues a pending step whose needs are all settled; `settleReadiness` decides what it becomes. */
  unblock(index: number): void {
    this.unblocked.push(index);
  }

  /**
   * Every unblocked step becomes ready, or skipped when its `when` is false (which settles it and
   * may unblock more); while paused they wait in `deferred`. Then: all settled → the run completes.
   */
  settleReadiness(): void {
    // `settle` appends while this loop runs; an index walk keeps each step O(1).
    for (let next = 0; next < this.unblocked.length; next++) {
      const index = this.unblocked[next]!;
      const run = this.step(index);
      if (run.status !== 'pending' || run.unsettledNeeds !== 0) continue;
      if (this.state.status === 'paused') {
        this.state.deferred = [...this.state.deferred, { step: index, retry: false }];
        continue;
      }
      if (this.state.status !== 'running') continue;
      const ref: Ref = { after: false, index };
      const when = this.state.ir.steps[index]!.when;
      if (when && evaluate(when.expr, this.scope(ref)) !== true) {
        this.put(ref, { status: 'skipped', reason: 'its when condition is false' });
        this.record('step-skipped', `${this.name(ref)} skipped: its when condition is false`, ref);
        this.settle(index);
        continue;
      }
      this.makeReady(ref, Boolean(when));
    }
    this.unblocked.length = 0;
    const n = this.state.ir.steps.length;
    if (this.state.settled === n && (this.state.status === 'running' || this.state.status === 'paused'))
      this.completeRun();
  }

  /** `whenHeld`: the step's `when` was just evaluated, true (the effect says so, for coverage). */
  makeReady(ref: Ref, whenHeld = false): void {
    this.put(ref, { status: 'ready' });
    const kind = ref.after ? this.state.ir.after[ref.index]!.kind : this.state.ir.steps[ref.index]!.kind;
    this.effects.push({
      type: 'step-ready',
      step: this.name(ref),
      kind,
      ...(whenHeld ? { when: true } : {}),
    });
  }

  // ---- outcomes and transitions --------------------------------------------------------------

  /** Applies the transition of `outcome` to a step whose attempt has just ended with it. */
  applyOutcome(ref: Ref, outcome: IrOutcome, context: TransitionContext): void {
    this.applyTransition(ref, outcome.name, outcome.transition, context);
  }

  private applyTransition(
    ref: Ref,
    outcome: string,
    transition: IrTransition,
    context: TransitionContext,
  ): void {
    switch (transition.kind) {
      case 'next':
        this.completeStep(ref, outcome);
        return;
      case 'end':
        this.completeStep(ref, outcome);
        if (!ref.after) this.endRun(`${this.name(ref)} ended the run with ${outcome}`);
        return;
      case 'fail':
        this.failStep(ref, 'failed', `${this.label(ref)} failed with outcome "${outcome}"`);
        return;
      case 'retry':
        this.retryOrFail(ref, `outcome "${outcome}"`, 'failed');
        return;
      case 'loop':
        if (ref.after) {
          this.failStep(ref, 'failed', `${this.label(ref)} cannot loop`);
          return;
        }
        this.fireLoop(ref.index, outcome, transition, context);
    }
  }

  completeStep(ref: Ref, outcome: string): void {
    const attempt = this.current(ref);
    this.put(ref, {
      status: 'completed',
      outcome,
      outputs: attempt?.outputs ?? {},
      summary: attempt?.summary ?? null,
      reason: null,
    });
    this.record('step-completed', `${this.name(ref)} completed with ${outcome}`, ref, attempt?.attempt);
    if (!ref.after) this.settle(ref.index);
  }

  /** The step fails (or is lost); a step's failure fails the run, an after-task's does not. */
  failStep(ref: Ref, status: 'failed' | 'lost', reason: string): void {
    this.put(ref, { status, reason });
    this.record(status === 'lost' ? 'step-lost' : 'step-failed', reason, ref, this.current(ref)?.attempt);
    if (!ref.after) this.failRun(reason);
  }

  /** A new attempt within `retries`; past them the step fails with `status`. */
  retryOrFail(ref: Ref, why: string, status: 'failed' | 'lost'): void {
    const run = this.get(ref);
    const retries = this.ir(ref).retries;
    if (run.retriesUsed >= retries) {
      const limit =
        retries === 0
          ? 'it has no retries'
          : `its ${retries} retr${retries === 1 ? 'y is' : 'ies are'} used up`;
      this.failStep(
        ref,
        status,
        `${this.label(ref)} ${status === 'lost' ? 'was lost' : 'failed'} after ${why}; ${limit}`,
      );
      return;
    }
    this.put(ref, { retriesUsed: run.retriesUsed + 1, status: 'pending' });
    this.record(
      'step-retry',
      `${this.name(ref)} retries after ${why} (retry ${run.retriesUsed + 1} of ${retries})`,
      ref,
      this.current(ref)?.attempt,
    );
    if (!ref.after && this.state.status === 'paused') {
      this.state.deferred = [...this.state.deferred, { step: ref.index, retry: true }];
      return;
    }
    this.makeReady(ref);
  }

  private fireLoop(
    index: number,
    outcome: string,
    loop: Extract<IrTransition, { kind: 'loop' }>,
    context: TransitionContext,
  ): void {
    const ref: Ref = { after: false, index };
    const count = this.state.loops[loop.counter] ?? 0;
    if (count >= loop.max) {
      this.record(
        'loop-exhausted',
        `${loop.counter} is exhausted (${count} of ${loop.max} loops): ${loop.exhausted} applies`,
        ref,
      );
      if (loop.exhausted === 'fail') {
        this.failStep(
          ref,
          'failed',
          `${this.label(ref)} failed: loop ${loop.counter} is exhausted after ${loop.max} loops`,
        );
        return;
      }
      this.applyTransition(ref, outcome, { kind: loop.exhausted }, context);
      return;
    }
    // Feedback is rendered before the reset, so it can read the outputs about to be cleared.
    const feedback = loop.feedback ? renderText(loop.feedback, this.scope(ref, context)) : '';
    const loops = { ...this.state.loops, [loop.counter]: count + 1 };
    const region = regionSteps(loop.reset);
    const inRegion = new Set(region);
    const reset: string[] = [];
    for (const member of region) {
      if (member === loop.target) continue;
      for (const counter of this.derived.countersByTarget.get(member) ?? []) {
        if (loops[counter]) {
          loops[counter] = 0;
          reset.push(counter);
        }
      }
    }
    this.state.loops = loops;
    const target = this.state.ir.steps[loop.target]!.name;
    this.record(
      'loop',
      `${this.state.ir.steps[index]!.name} ${outcome}: loop back to ${target} (${loop.counter} ${count + 1} of ${loop.max})`,
      ref,
      this.current(ref)?.attempt,
    );
    if (reset.length)
      this.record('loop-counters-reset', `loop counters set back to 0: ${reset.join(', ')}`, ref);
    this.resetSteps(region, index, `loop ${loop.counter}`);
    this.put(
      { after: false, index: loop.target },
      { loop: { count: count + 1, feedback, counter: loop.counter } },
    );
    if (this.state.deferred.length)
      this.state.deferred = this.state.deferred.filter((d) => !inRegion.has(d.step));
    for (const member of region) if (this.step(member).unsettledNeeds === 0) this.unblocked.push(member);
  }

  /**
   * Sets steps back to pending for another round (a loop's region, a restart). Running agents are
   * stopped and open gates closed; their attempts stay. `except` is the step whose own transition
   * caused the reset (its attempt has already ended).
   */
  resetSteps(indices: readonly number[], except: number, why: string): void {
    for (const index of indices) {
      const ref: Ref = { after: false, index };
      const run = this.step(index);
      if (index !== except) this.stopActive(ref, 'stopped', why);
      if (isSettled(run.status)) this.state.settled--;
      this.put(ref, {
        status: 'pending',
        retriesUsed: 0,
        loop: null,
        gate: null,
        outcome: null,
        outputs: null,
        summary: null,
        reason: null,
      });
    }
    for (const index of indices) {
      let unsettled = 0;
      for (const need of this.state.ir.steps[index]!.needs)
        if (!isSettled(this.step(need).status)) unsettled++;
      this.put({ after: false, index }, { unsettledNeeds: unsettled });
    }
  }

  /** Stops what is active in a step: the agent of a running attempt, an open gate. */
  stopActive(ref: Ref, ended: 'stopped' | 'canceled', why: string): boolean {
    const run = this.get(ref);
    const attempt = this.current(ref);
    if (!attempt || attempt.endedAt !== undefined) return false;
    if (run.status === 'running') {
      this.effects.push({ type: 'stop-agent', step: this.name(ref), attempt: attempt.attempt, reason: why });
    } else if (run.status === 'waiting') {
      this.effects.push({ type: 'close-gate', step: this.name(ref), attempt: attempt.attempt, reason: why });
    } else if (run.status !== 'reported') return false;
    this.putAttempt(ref, { endedAt: this.at, ended });
    this.record('step-stopped', `${this.name(ref)} stopped: ${why}`, ref, attempt.attempt);
    return true;
  }

  // ---- the end of a run ----------------------------------------------------------------------

  completeRun(): void {
    this.endWith('completed', null);
    this.record('run-completed', `run ${this.state.id} completed`);
  }

  /** `end`: the run completes now; running steps stop, steps not started are skipped. */
  endRun(why: string): void {
    if (isEnded(this.state.status)) return;
    this.stopAll('the run ended', (_ref, run) => {
      if (run.status !== 'pending' && run.status !== 'ready') return undefined;
      this.state.settled++;
      return { status: 'skipped', reason: 'the run ended before it started' };
    });
    this.endWith('completed', null);
    this.record('run-completed', `run ${this.state.id} completed: ${why}`);
  }

  failRun(
    reason: string,
    wakeKind: WakeUp['kind'] = 'run-ended',
    options: { afterTasks?: boolean } = {},
  ): void {
    if (isEnded(this.state.status)) return;
    this.stopAll('the run failed', () => undefined);
    this.endWith('failed', reason, wakeKind, options.afterTasks ?? true);
    this.record('run-failed', `run ${this.state.id} failed: ${reason}`);
  }

  cancelRun(reason: string): void {
    this.stopAll('the run was canceled', () => undefined);
    this.endWith('canceled', reason);
    this.record('run-canceled', `run ${this.state.id} canceled: ${reason}`);
  }

  /**
   * Stops every active step (once per run: the one scan of all steps a run makes when it ends).
   * Active steps become canceled; `rest` says what becomes of the others.
   */
  private stopAll(why: string, rest: (ref: Ref, run: StepRun) => Partial<StepRun> | undefined): void {
    for (let index = 0; index < this.state.steps.size; index++) {
      const ref: Ref = { after: false, index };
      const run = this.step(index);
      if (run.status === 'running' || run.status === 'reported' || run.status === 'waiting') {
        this.stopActive(ref, 'canceled', why);
        this.put(ref, { status: 'canceled', reason: why, gate: null });
        continue;
      }
      if (run.status === 'ready') this.put(ref, { status: 'pending' });
      const patch = rest(ref, run);
      if (patch) this.put(ref, patch);
    }
    this.state.deferred = [];
  }

  private endWith(
    status: 'completed' | 'failed' | 'canceled',
    reason: string | null,
    wakeKind: WakeUp['kind'] = 'run-ended',
    afterTasks = true,
  ): void {
    this.state.status = status;
    this.state.reason = reason;
    this.state.endedAt = this.at;
    this.state.outputs = this.playbookOutputs();
    this.wake(wakeKind, `run ${this.state.id} ${status}${reason ? `: ${reason}` : ''}`);
    if (status === 'canceled' || !afterTasks) return;
    this.state.ir.after.forEach((task, index) => {
      if (task.trigger !== 'auto' || !task.on.includes(status)) return;
      const ref: Ref = { after: true, index };
      if (this.get(ref).status !== 'pending') return;
      this.makeReady(ref);
    });
  }

  playbookOutputs(): Record<string, unknown> {
    const outputs: Record<string, unknown> = {};
    const scope = this.scope(undefined);
    for (const output of this.state.ir.outputs) {
      outputs[output.name] = output.value ? (render(output.value, scope) ?? null) : output.literal;
    }
    return outputs;
  }

  // ---- secrets -------------------------------------------------------------------------------

  /**
   * Secret values given to this process are masked where found; those it was not given (after a
   * restart, in a step agent's server) are found by the run's fingerprints, with the mask key.
   */
  private makeMasker(): SecretMasker {
    const known = secretPieces(Object.values(this.secrets));
    const prints = Object.values(this.state.secretFingerprints ?? {}).flat();
    return new SecretMasker(known, prints, this.maskKey, this.state.id);
  }

  /** Replaces secret values in text that came from outside (reports, comments, briefs). */
  scrub<T>(value: T): T {
    const masker = (this.masker ??= this.makeMasker());
    if (masker.empty) return value;
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return masker.mask(v);
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object')
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
      return v;
    };
    return walk(value) as T;
  }
}
