import type { Ir, IrAfterTask, IrStep } from '@kairoku-playbook/compiler';
import { createRun } from '../core/create-run.js';
import type { RunEvent } from '../core/events.js';
import { emptyVec, vecGet, vecToArray } from '../core/pvec.js';
import type { PVec } from '../core/pvec.js';
import { AFTER_PREFIX, isEnded } from '../core/state.js';
import type { HistoryEntry, RunState, StepRun, StepStatus } from '../core/state.js';
import { advance } from '../core/transition.js';
import { Lookup, evaluate } from '../expr/evaluate.js';
import { inputVariants, outputVariants } from './domains.js';
import { whenReads } from './reads.js';
import type { WhenReads } from './reads.js';

/**
 * The explorer's view of a playbook: the choices the world can make in a run state, applied with THE
 * transition function (`advance`, the one every backend uses), and the canonical key of a state.
 *
 * A *unit* is a step (`0..steps-1`, its IR index) or an after-task (`steps + i`).
 */

/** A choice of the world: what happens next in a run. */
export type Move =
  /** the run starts with the inputs of variant `variant` */
  | { kind: 'start'; variant: number }
  /** a running agent or check step reports `outcome` (with these outputs) and the manager applies it */
  | { kind: 'report'; unit: number; outcome: string; outputs: Record<string, unknown>; shown: string }
  /** a person decides an open gate */
  | { kind: 'decide'; unit: number; choice: string }
  /** the attempt ends without a report: the agent is lost (a check: it times out) */
  | { kind: 'lost'; unit: number }
  /** the manager starts a ready step (only when starts are not eager, see `eager`) */
  | { kind: 'begin'; unit: number };

export interface Applied {
  state: RunState;
  /** units started (an attempt begun: an agent, a check, a gate opened) */
  started: number[];
  /** what the transition function recorded, in order */
  history: HistoryEntry[];
}

const STATUS_CODE: Record<StepStatus, string> = {
  pending: 'p',
  ready: 'r',
  running: 'u',
  reported: 'R',
  waiting: 'w',
  completed: 'c',
  skipped: 's',
  failed: 'f',
  canceled: 'x',
  lost: 'l',
};

export class Model {
  readonly reads: WhenReads;
  /**
   * Start every step the moment it becomes ready (as autopilot does) instead of branching over when
   * to start it. Sound unless a condition reads a step's attempt count (see the README).
   */
  readonly eager: boolean;
  readonly inputs: Record<string, unknown>[];
  /** inputs some condition reads: the ones that tell the input variants apart */
  readonly readInputs: string[];
  readonly notes: string[] = [];
  readonly unitCount: number;
  private readonly unitByName = new Map<string, number>();
  private readonly reportMoves = new Map<string, Move[]>();
  private readonly fixedMoves = new Map<string, Move>();

  constructor(readonly ir: Ir) {
    this.reads = whenReads(ir);
    this.eager = !this.reads.attempts;
    const variants = inputVariants(ir, this.reads);
    if (variants.cut)
      this.notes.push(`only the first ${variants.values.length} combinations of input values were explored`);
    this.inputs = distinctVariants(ir, this.reads, variants.values);
    this.readInputs = ir.inputs
      .map((i) => i.name)
      .filter((name) => this.reads.allInputs || this.reads.inputs.has(name));
    this.unitCount = ir.steps.length + ir.after.length;
    ir.steps.forEach((s, i) => this.unitByName.set(s.name, i));
    ir.after.forEach((a, i) => this.unitByName.set(`${AFTER_PREFIX}${a.name}`, ir.steps.length + i));
  }

  isAfter(unit: number): boolean {
    return unit >= this.ir.steps.length;
  }

  irOf(unit: number): IrStep | IrAfterTask {
    const n = this.ir.steps.length;
    return unit < n ? this.ir.steps[unit]! : this.ir.after[unit - n]!;
  }

  /** `qa`, or `after.summarize` */
  nameOf(unit: number): string {
    return this.isAfter(unit) ? `${AFTER_PREFIX}${this.irOf(unit).name}` : this.irOf(unit).name;
  }

  unitOf(name: string): number | undefined {
    return this.unitByName.get(name);
  }

  runOf(state: RunState, unit: number): StepRun {
    const n = this.ir.steps.length;
    return unit < n ? vecGet(state.steps, unit) : state.after[unit - n]!;
  }

  // ---- applying a move ------------------------------------------------------------------------

  /** The state after a move, with the eager starts it leads to; or the refusal. */
  apply(state: RunState | undefined, move: Move): Applied | { error: string } {
    let current: RunState;
    let events: RunEvent[];
    if (move.kind === 'start') {
      current = createRun(this.ir, { id: 'explore', inputs: this.inputs[move.variant]!, now: 0 });
      events = [{ type: 'start' }];
    } else {
      // History is write-only in the core: starting each move from an empty one keeps states small
      // and leaves exactly this move's entries in it.
      current = { ...state!, history: emptyVec() };
      const name = this.nameOf(move.unit);
      switch (move.kind) {
        case 'report':
          events = [
            { type: 'report', step: name, outcome: move.outcome, outputs: move.outputs },
            { type: 'complete-step', step: name, outcome: move.outcome },
          ];
          break;
        case 'decide': {
          const choice = this.irOf(move.unit).outcomes.find((o) => o.name === move.choice);
          events = [
            {
              type: 'gate-decided',
              step: name,
              choice: move.choice,
              ...(choice?.comment === 'required' ? { comment: 'explored' } : {}),
            },
          ];
          break;
        }
        case 'lost':
          events = [
            this.irOf(move.unit).kind === 'check'
              ? { type: 'timeout', step: name }
              : { type: 'agent-lost', step: name, reason: 'explored' },
          ];
          break;
        case 'begin':
          events = [this.startEvent(move.unit)];
          break;
      }
    }
    const started: number[] = move.kind === 'begin' ? [move.unit] : [];
    const ready: number[] = [];
    for (const event of events) {
      const result = advance(current, event, 0);
      if (result.error !== undefined) return { error: result.error };
      current = result.state;
      for (const effect of result.effects)
        if (effect.type === 'step-ready') ready.push(this.unitByName.get(effect.step)!);
    }
    if (this.eager) {
      ready.sort((a, b) => a - b);
      for (const unit of ready) {
        if (this.runOf(current, unit).status !== 'ready') continue;
        const result = advance(current, this.startEvent(unit), 0);
        if (result.error !== undefined) return { error: result.error };
        current = result.state;
        started.push(unit);
      }
    }
    return { state: current, started, history: vecToArray(current.history) };
  }

  private startEvent(unit: number): RunEvent {
    const name = this.nameOf(unit);
    return this.irOf(unit).kind === 'gate'
      ? { type: 'request-gate', step: name }
      : { type: 'start-step', step: name };
  }

  // ---- the choices of the world ---------------------------------------------------------------

  /** Every move the world can make in a state (none: the run has ended and its after-tasks too). */
  moves(state: RunState): Move[] {
    const moves: Move[] = [];
    const n = this.ir.steps.length;
    if (state.status === 'running') {
      forEachLeaf(state.steps, (leaf, base) => {
        for (const offset of this.activeIn(leaf, base))
          this.movesOf(base + offset, leaf[offset]!.status, moves);
      });
    } else if (isEnded(state.status)) {
      state.after.forEach((task, i) => this.movesOf(n + i, task.status, moves));
    }
    return moves;
  }

  private movesOf(unit: number, status: StepStatus, moves: Move[]): void {
    const ir = this.irOf(unit);
    if (status === 'running') {
      for (const move of this.reportsOf(unit)) moves.push(move);
      moves.push(this.fixed('lost', unit));
    } else if (status === 'waiting') {
      for (const outcome of ir.outcomes) moves.push(this.fixed('decide', unit, outcome.name));
    } else if (status === 'ready' && !this.eager) {
      moves.push(this.fixed('begin', unit));
    }
  }

  private fixed(kind: 'lost' | 'begin' | 'decide', unit: number, choice = ''): Move {
    const key = `${kind}:${unit}:${choice}`;
    const found = this.fixedMoves.get(key);
    if (found) return found;
    const move: Move = kind === 'decide' ? { kind, unit, choice } : { kind, unit };
    this.fixedMoves.set(key, move);
    return move;
  }

  /** Report moves of a unit: each outcome with each variant of the outputs conditions read. */
  private reportsOf(unit: number): Move[] {
    const key = String(unit);
    let moves = this.reportMoves.get(key);
    if (moves) return moves;
    moves = [];
    const ir = this.irOf(unit);
    const step = this.reads.steps.get(unit);
    for (const outcome of ir.outcomes) {
      const variants = outputVariants(ir, outcome.name, this.reads, this.isAfter(unit));
      if (variants.cut)
        this.notes.push(
          `only the first ${variants.values.length} combinations of outputs of "${ir.name}" were explored`,
        );
      for (const outputs of variants.values) {
        // The outputs a condition reads are part of what happened; the others are filler.
        const names = Object.keys((ir.outputSchema.properties ?? {}) as object).filter(
          (o) => step && (step.allOutputs || step.outputs.has(o)),
        );
        const shown = names
          .map((o) => (o in outputs ? `${o}: ${JSON.stringify(outputs[o])}` : `no ${o}`))
          .join(', ');
        moves.push({ kind: 'report', unit, outcome: outcome.name, outputs, shown });
      }
    }
    this.reportMoves.set(key, moves);
    return moves;
  }

  // ---- per leaf of the steps' persistent vector ---------------------------------------------
  // Unchanged steps share their leaf (32 steps) with the state they came from, so what is computed
  // from a leaf is computed once: a state's key and moves cost O(steps / 32) plus the changed leaves.

  private readonly fragments = new WeakMap<object, { base: number; id: number; active: number[] }>();
  private readonly fragmentIds = new Map<string, number>();

  private leafFacts(leaf: readonly StepRun[], base: number): { id: number; active: number[] } {
    const cached = this.fragments.get(leaf);
    if (cached && cached.base === base) return cached;
    let text = '';
    const active: number[] = [];
    for (let offset = 0; offset < leaf.length; offset++) {
      const run = leaf[offset]!;
      text += `${this.stepKey(run, base + offset)}|`;
      const status = run.status;
      if (status === 'running' || status === 'waiting' || (status === 'ready' && !this.eager))
        active.push(offset);
    }
    let id = this.fragmentIds.get(text);
    if (id === undefined) {
      id = this.fragmentIds.size;
      this.fragmentIds.set(text, id);
    }
    const facts = { base, id, active };
    this.fragments.set(leaf, facts);
    return facts;
  }

  private fragmentId(leaf: readonly StepRun[], base: number): number {
    return this.leafFacts(leaf, base).id;
  }

  private activeIn(leaf: readonly StepRun[], base: number): number[] {
    return this.leafFacts(leaf, base).active;
  }

  /** What of one step can matter for what happens next (see `key`). */
  private stepKey(run: StepRun, i: number): string {
    const reads = this.reads;
    let key = STATUS_CODE[run.status];
    if (run.status === 'pending' || run.status === 'ready') key += run.unsettledNeeds;
    if (run.retriesUsed && !settledOrEnded(run.status)) key += `r${run.retriesUsed}`;
    if (reads.attempts) key += `a${run.attempts.length}`;
    const read = reads.steps.get(i);
    if (read && (run.status === 'completed' || run.status === 'skipped')) {
      if (read.outcome) key += `o${run.outcome ?? ''}`;
      if (read.summary) key += `m${JSON.stringify(run.summary)}`;
      if (read.allOutputs) key += `v${JSON.stringify(run.outputs)}`;
      else if (read.outputs.size) {
        const outputs = run.outputs ?? {};
        for (const name of read.outputs) key += `v${JSON.stringify(outputs[name] ?? null)}`;
      }
    }
    if (reads.loop.has(i) && run.loop && (run.status === 'pending' || run.status === 'ready'))
      key += `l${JSON.stringify(run.loop)}`;
    return key;
  }

  // ---- the canonical key ----------------------------------------------------------------------

  /**
   * What of a state can matter for what happens next: the run's status; per step its status, the
   * needs it still waits for, the retries it has used, and what conditions read of it (outcome,
   * outputs, summary, attempt count, loop); the loop counters; the after-tasks. Not: times, ids,
   * texts, history, attempts (unless a condition reads them). Once the run has ended, only its status
   * and the after-tasks matter (after-tasks read nothing that steers them).
   */
  key(state: RunState, variant: number): string {
    let key = '';
    if (isEnded(state.status)) {
      key = `E${state.status}`;
      for (const task of state.after)
        key += `|${STATUS_CODE[task.status]}${task.retriesUsed && !settledOrEnded(task.status) ? task.retriesUsed : ''}`;
      return key;
    }
    if (this.inputs.length > 1) key += `${variant}:`;
    key += `${state.status === 'running' ? '' : state.status}${state.settled}|`;
    forEachLeaf(state.steps, (leaf, base) => {
      key += `${this.fragmentId(leaf, base)},`;
    });
    const counters = Object.keys(state.loops)
      .filter((k) => state.loops[k])
      .sort();
    if (counters.length) key += `#${counters.map((k) => `${k}=${state.loops[k]}`).join(',')}`;
    return key;
  }
}

function settledOrEnded(status: StepStatus): boolean {
  return (
    status !== 'pending' &&
    status !== 'ready' &&
    status !== 'running' &&
    status !== 'reported' &&
    status !== 'waiting'
  );
}

/**
 * Input variants that steer a run the same way, kept once. Inputs steer a run only through `when`
 * conditions; a condition that reads inputs (and `run`) only has one value for the whole run. Two
 * variants that give every such condition the same value, and the same values to the inputs that
 * conditions reading steps too may read, have the same runs.
 */
function distinctVariants(
  ir: Ir,
  reads: WhenReads,
  variants: Record<string, unknown>[],
): Record<string, unknown>[] {
  const kept = new Map<string, Record<string, unknown>>();
  for (const inputs of variants) {
    const state = createRun(ir, { id: 'explore', inputs, now: 0 });
    const scope = {
      inputs: state.inputs,
      steps: new Lookup(() => null),
      run: { id: state.id, playbook: state.playbook, branch: state.branch, status: 'running' },
      loop: { count: 0, feedback: '' },
    };
    const signature = JSON.stringify([
      reads.inputOnly.map((index) => evaluate(ir.steps[index]!.when!.expr, scope) === true),
      [...reads.mixedInputs].map((name) => state.inputs[name] ?? null),
    ]);
    if (!kept.has(signature)) kept.set(signature, inputs);
  }
  return [...kept.values()];
}

/** Calls `fn` with each leaf (up to 32 items) of a persistent vector and the index of its first item. */
function forEachLeaf<T>(vec: PVec<T>, fn: (leaf: readonly T[], base: number) => void): void {
  let base = 0;
  const walk = (node: readonly unknown[], level: number) => {
    if (level === 0) {
      fn(node as readonly T[], base);
      base += node.length;
      return;
    }
    // (levels of 32 = 2^5 items, as in core/pvec.ts)
    for (const child of node) walk(child as readonly unknown[], level - 5);
  };
  if (vec.size) walk(vec.root, vec.shift);
}
