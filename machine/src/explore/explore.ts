import type { Ir } from '@kairoku-playbook/compiler';
import { vecToArray } from '../core/pvec.js';
import { isEnded } from '../core/state.js';
import type { RunState, RunStatus } from '../core/state.js';
import { Model } from './model.js';
import type { Move } from './model.js';

/**
 * Bounded exhaustive exploration of a playbook (SPEC §3.2, §4 PB310/PB311, §7 `explore`): every run
 * the playbook allows, from the start, branching at every state over what the world can do next,
 * each step applied with THE transition function. `README.md` beside this file explains the strategy
 * and why it is sound.
 */

export const DEFAULT_MAX_STATES = 100_000;

export interface ExploreOptions {
  /** stop after this many distinct states (the budget); the result then says it is incomplete */
  maxStates?: number;
  /** stop after this many milliseconds of wall clock (default: no limit); incomplete likewise */
  maxMillis?: number;
  /** the clock for `maxMillis` (default `performance.now`) */
  clock?: () => number;
}

export interface UnitBound {
  /** `qa`, or `after.summarize` */
  name: string;
  kind: 'agent' | 'check' | 'gate';
  after: boolean;
  /** a manual after-task: started by a person, as often as they like; not explored */
  manual: boolean;
  /** the most attempts any run gives it (a lower bound when the exploration is incomplete) */
  maxAttempts: number;
  /** some run starts it (an agent or a check begins, a gate opens) */
  started: boolean;
  /** some run skips it because its `when` is false */
  skipped: boolean;
  /** some run completes or skips it and goes on (a completion that ends the run does not count) */
  settled: boolean;
}

/** A reachable state where the run waits forever (PB311): the moves from the start that reach it. */
export interface StuckRun {
  path: Move[];
  state: RunState;
  /** the first step that waits: a pending step, by its IR index */
  blocked: number;
  /** the needs it waits for (not completed or skipped) */
  waitingFor: number[];
}

export interface Exploration {
  ir: Ir;
  model: Model;
  /** every state was expanded: the numbers are exact; otherwise they are lower bounds */
  complete: boolean;
  maxStates: number;
  /** distinct states visited (run states up to what cannot matter, see `Model.key`) */
  states: number;
  transitions: number;
  units: UnitBound[];
  /** the most agent turns one run can take: agent-step and agent after-task attempts */
  worstTurns: number;
  /** a run that takes them */
  worstPath: Move[];
  /** how runs can end */
  endings: RunStatus[];
  /** stuck states, one per first blocked step, each with a shortest path */
  stuck: StuckRun[];
  /** a run that goes round forever (none under the current semantics), as moves to and round it */
  cycle: Move[] | null;
  /** every run ends: the exploration is complete, nothing is stuck and nothing goes round */
  allEnd: boolean;
  notes: string[];
  /** the exploration stopped at `maxMillis`, not at `maxStates` */
  outOfTime: boolean;
}

// eslint-disable-next-line max-lines-per-function -- over the bound when the rule came in (2026-12-06): to be split, issue 22
export function explore(ir: Ir, options: ExploreOptions = {}): Exploration {
  const maxStates = options.maxStates ?? DEFAULT_MAX_STATES;
  const model = new Model(ir);
  const n = ir.steps.length;
  const unitCount = model.unitCount;

  // The state graph, built breadth first (so the first path to a state is a shortest one). Node 0 is
  // "before the start"; its moves are the input variants.
  const index = new Map<string, number>();
  const states: (RunState | undefined)[] = [undefined];
  const variantOf: number[] = [-1];
  const parentEdge: number[] = [-1];
  const parentNode: number[] = [-1];
  const edgeStart: number[] = [];
  const edgeEnd: number[] = [];
  const edgeTo: number[] = [];
  const edgeMove: Move[] = [];
  const edgeStarted: (number[] | null)[] = [];
  const started = new Uint8Array(unitCount);
  const skipped = new Uint8Array(unitCount);
  const settled = new Uint8Array(unitCount);
  const endings = new Set<RunStatus>();
  const stuckNodes: number[] = [];
  const stuckStates = new Map<number, RunState>();
  const refusals = new Set<string>();
  let complete = true;

  const clock = options.clock ?? (() => performance.now());
  const deadline = options.maxMillis === undefined ? Infinity : clock() + options.maxMillis;
  let stoppedByClock = false;
  for (let node = 0; node < states.length; node++) {
    // (the clock is read every 64 states: reading it costs more than expanding a small state)
    if ((node & 63) === 63 && deadline !== Infinity && clock() > deadline) {
      // The states not expanded yet become leaves of the graph: what follows them is unknown.
      for (let rest = node; rest < states.length; rest++) {
        edgeStart[rest] = edgeTo.length;
        edgeEnd[rest] = edgeTo.length;
        states[rest] = undefined;
      }
      complete = false;
      stoppedByClock = true;
      break;
    }
    const state = states[node];
    states[node] = undefined;
    edgeStart[node] = edgeTo.length;
    const moves: Move[] =
      node === 0 ? model.inputs.map((_, variant) => ({ kind: 'start', variant })) : model.moves(state!);
    if (node !== 0 && moves.length === 0 && !isEnded(state!.status)) {
      stuckNodes.push(node);
      stuckStates.set(node, state!);
    }
    for (const move of moves) {
      const applied = model.apply(state, move);
      if ('error' in applied) {
        // Only a report whose generated outputs do not fit could be refused; say so once.
        refusals.add(applied.error);
        continue;
      }
      const next = applied.state;
      const variant = move.kind === 'start' ? move.variant : variantOf[node]!;
      const key = model.key(next, variant);
      let to = index.get(key);
      if (to === undefined) {
        if (states.length > maxStates) {
          complete = false;
          continue;
        }
        to = states.length;
        index.set(key, to);
        states.push(next);
        variantOf.push(variant);
        parentEdge.push(edgeTo.length);
        parentNode.push(node);
        if (isEnded(next.status)) endings.add(next.status);
      }
      for (const unit of applied.started) started[unit] = 1;
      for (const entry of applied.history) {
        if (entry.kind !== 'step-skipped' && entry.kind !== 'step-completed') continue;
        // (a step whose completion ends the run lets nothing after it run)
        if (entry.kind === 'step-completed' && next.status !== 'running') continue;
        const unit = model.unitOf(entry.step!);
        if (unit === undefined) continue;
        settled[unit] = 1;
        if (entry.kind === 'step-skipped') skipped[unit] = 1;
      }
      edgeTo.push(to);
      edgeMove.push(move);
      edgeStarted.push(applied.started.length ? applied.started : null);
    }
    edgeEnd[node] = edgeTo.length;
  }
  const count = states.length;
  const notes = [...model.notes];
  for (const refusal of refusals) notes.push(`a move was refused: ${refusal}`);

  const pathTo = (node: number): Move[] => {
    const path: Move[] = [];
    for (let at = node; at > 0; at = parentNode[at]!) path.push(edgeMove[parentEdge[at]!]!);
    return path.reverse();
  };

  // Post-order of the graph from node 0 (children before parents), and any cycle.
  const order: number[] = [];
  const color = new Uint8Array(count);
  const stackNode: number[] = [0];
  const stackEdge: number[] = [edgeStart[0]!];
  color[0] = 1;
  let cycle: Move[] | null = null;
  while (stackNode.length) {
    const top = stackNode.length - 1;
    const node = stackNode[top]!;
    const edge = stackEdge[top]!;
    if (edge < edgeEnd[node]!) {
      stackEdge[top] = edge + 1;
      const to = edgeTo[edge]!;
      if (color[to] === 0) {
        color[to] = 1;
        stackNode.push(to);
        stackEdge.push(edgeStart[to]!);
      } else if (color[to] === 1 && !cycle) {
        cycle = stackEdge.slice(0, top + 1).map((e) => edgeMove[e - 1]!);
      }
      continue;
    }
    color[node] = 2;
    order.push(node);
    stackNode.pop();
    stackEdge.pop();
  }

  // Longest paths over the acyclic graph: per unit, the most starts on one path from the start. A
  // step starts again only after a retry or a loop's reset (restart-from is not explored), so a step
  // with no retries and in no loop's region starts at most once in a run: it needs no pass.
  const dp = new Int32Array(count);
  const maxAttempts = new Array<number>(unitCount).fill(0);
  const again = new Uint8Array(unitCount);
  for (const step of ir.steps)
    for (const outcome of step.outcomes)
      if (outcome.transition.kind === 'loop')
        for (const [first, last] of outcome.transition.reset)
          for (let member = first; member <= last; member++) again[member] = 1;
  for (let unit = 0; unit < unitCount; unit++) {
    if (!started[unit]) continue;
    if (cycle) {
      maxAttempts[unit] = Infinity;
      continue;
    }
    if (!again[unit] && model.irOf(unit).retries === 0) {
      maxAttempts[unit] = 1;
      continue;
    }
    for (const node of order) {
      let best = 0;
      for (let edge = edgeStart[node]!; edge < edgeEnd[node]!; edge++) {
        const list = edgeStarted[edge];
        const value = (list && list.includes(unit) ? 1 : 0) + dp[edgeTo[edge]!]!;
        if (value > best) best = value;
      }
      dp[node] = best;
    }
    maxAttempts[unit] = dp[0]!;
  }
  const isAgent = (unit: number) => model.irOf(unit).kind === 'agent';
  const bestEdge = new Int32Array(count).fill(-1);
  for (const node of order) {
    let best = 0;
    for (let edge = edgeStart[node]!; edge < edgeEnd[node]!; edge++) {
      const list = edgeStarted[edge];
      let turns = 0;
      if (list) for (const unit of list) if (isAgent(unit)) turns++;
      const value = turns + dp[edgeTo[edge]!]!;
      if (value > best || bestEdge[node] === -1) {
        best = value;
        bestEdge[node] = edge;
      }
    }
    dp[node] = best;
  }
  const worstPath: Move[] = [];
  for (let edge = cycle ? -1 : bestEdge[0]!; edge >= 0; edge = bestEdge[edgeTo[edge]!]!)
    worstPath.push(edgeMove[edge]!);

  // Stuck states: one per first blocked step, with the shortest path (breadth first: the first found).
  const stuck: StuckRun[] = [];
  const seenBlocked = new Set<number>();
  for (const node of stuckNodes) {
    const state = stuckStates.get(node)!;
    const steps = vecToArray(state.steps);
    const blocked = steps.findIndex((s) => s.status === 'pending');
    if (seenBlocked.has(blocked)) continue;
    seenBlocked.add(blocked);
    const waitingFor =
      blocked < 0
        ? []
        : ir.steps[blocked]!.needs.filter((need) => {
            const status = steps[need]!.status;
            return status !== 'completed' && status !== 'skipped';
          });
    stuck.push({ path: pathTo(node), state, blocked, waitingFor });
  }

  const units: UnitBound[] = [];
  for (let unit = 0; unit < unitCount; unit++) {
    const ir = model.irOf(unit);
    const after = unit >= n;
    units.push({
      name: model.nameOf(unit),
      kind: ir.kind,
      after,
      manual: after && (ir as { trigger?: string }).trigger === 'manual',
      maxAttempts: maxAttempts[unit]!,
      started: started[unit] === 1,
      skipped: skipped[unit] === 1,
      settled: settled[unit] === 1,
    });
  }
  return {
    ir,
    model,
    complete,
    maxStates,
    states: count - 1,
    transitions: edgeTo.length,
    units,
    worstTurns: cycle ? Infinity : dp[0]!,
    worstPath,
    endings: (['completed', 'failed', 'canceled'] as const).filter((s) => endings.has(s)),
    stuck,
    cycle,
    allEnd: complete && stuck.length === 0 && cycle === null,
    notes,
    outOfTime: stoppedByClock,
  };
}
