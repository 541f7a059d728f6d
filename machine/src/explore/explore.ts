import type { Ir } from '@kairoku-playbook/compiler';
import { vecToArray } from '../core/pvec.js';
import { isEnded } from '../core/state.js';
import type { RunState, RunStatus } from '../core/state.js';
import { exploredBounds, staticBounds } from './bounds.js';
import type { RunBounds } from './bounds.js';
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
  /** the worst case of a run (`bounds.ts`): exact when complete, else a static bound */
  bounds: RunBounds;
}

export function explore(ir: Ir, options: ExploreOptions = {}): Exploration {
  const maxStates = options.maxStates ?? DEFAULT_MAX_STATES;
  const model = new Model(ir);
  const graph = buildGraph(model, maxStates, options);
  const count = graph.nodes;
  const notes = [...model.notes];
  for (const refusal of graph.refusals) notes.push(`a move was refused: ${refusal}`);
  const { order, cycle } = postOrder(graph);
  const maxAttempts = mostAttempts(ir, model, graph, order, cycle);
  const worst = worstTurns(model, graph, order, cycle);
  const stuck = stuckRuns(ir, graph);
  const bounds = cycle
    ? unbounded(staticBounds(ir))
    : graph.complete
      ? exploredBounds(ir, graph, order, maxAttempts, model.inputs)
      : staticBounds(ir);
  return {
    ir,
    model,
    complete: graph.complete,
    maxStates,
    states: count - 1,
    transitions: graph.edgeTo.length,
    units: unitBounds(model, ir.steps.length, graph, maxAttempts),
    worstTurns: cycle ? Infinity : worst.turns,
    worstPath: worst.path,
    endings: (['completed', 'failed', 'canceled'] as const).filter((s) => graph.endings.has(s)),
    stuck,
    cycle,
    allEnd: graph.complete && stuck.length === 0 && cycle === null,
    notes,
    outOfTime: graph.stoppedByClock,
    bounds,
  };
}

/** Runs that go round forever (none under the current semantics): no bound. */
function unbounded(bounds: RunBounds): RunBounds {
  const units = bounds.units.map((u) => ({ ...u, maxAttempts: Infinity }));
  return {
    ...bounds,
    agentTurns: Infinity,
    gateDecisions: Infinity,
    chainTurns: Infinity,
    longestMs: Infinity,
    units,
  };
}

/**
 * The state graph, built breadth first (so the first path to a state is a shortest one). Node 0 is
 * "before the start"; its moves are the input variants. Edges are numbered in the order they were
 * found; a node's edges are `edgeStart[node]` up to `edgeEnd[node]`.
 */
interface StateGraph {
  /** the nodes (distinct states, and node 0) */
  nodes: number;
  parentEdge: number[];
  parentNode: number[];
  edgeStart: number[];
  edgeEnd: number[];
  edgeTo: number[];
  edgeMove: Move[];
  /** the units each edge starts (null: none) */
  edgeStarted: (number[] | null)[];
  /** per unit: some run starts it, skips it, settles it and goes on */
  started: Uint8Array;
  skipped: Uint8Array;
  settled: Uint8Array;
  endings: Set<RunStatus>;
  /** states where the run waits forever, in the order found */
  stuckNodes: number[];
  stuckStates: Map<number, RunState>;
  refusals: Set<string>;
  complete: boolean;
  stoppedByClock: boolean;
}

function buildGraph(model: Model, maxStates: number, options: ExploreOptions): StateGraph {
  const index = new Map<string, number>();
  const states: (RunState | undefined)[] = [undefined];
  const variantOf: number[] = [-1];
  const graph = emptyGraph(model.unitCount);
  const { edgeStart, edgeEnd, edgeTo } = graph;
  const clock = options.clock ?? (() => performance.now());
  const deadline = options.maxMillis === undefined ? Infinity : clock() + options.maxMillis;
  for (let node = 0; node < states.length; node++) {
    // (the clock is read every 64 states: reading it costs more than expanding a small state)
    if ((node & 63) === 63 && deadline !== Infinity && clock() > deadline) {
      // The states not expanded yet become leaves of the graph: what follows them is unknown.
      for (let rest = node; rest < states.length; rest++) {
        edgeStart[rest] = edgeTo.length;
        edgeEnd[rest] = edgeTo.length;
        states[rest] = undefined;
      }
      graph.complete = false;
      graph.stoppedByClock = true;
      break;
    }
    const state = states[node];
    states[node] = undefined;
    edgeStart[node] = edgeTo.length;
    const moves: Move[] =
      node === 0 ? model.inputs.map((_, variant) => ({ kind: 'start', variant })) : model.moves(state!);
    if (node !== 0 && moves.length === 0 && !isEnded(state!.status)) {
      graph.stuckNodes.push(node);
      graph.stuckStates.set(node, state!);
    }
    for (const move of moves) {
      const applied = model.apply(state, move);
      if ('error' in applied) {
        // Only a report whose generated outputs do not fit could be refused; say so once.
        graph.refusals.add(applied.error);
        continue;
      }
      const next = applied.state;
      const variant = move.kind === 'start' ? move.variant : variantOf[node]!;
      const key = model.key(next, variant);
      let to = index.get(key);
      if (to === undefined) {
        if (states.length > maxStates) {
          graph.complete = false;
          continue;
        }
        to = states.length;
        index.set(key, to);
        states.push(next);
        variantOf.push(variant);
        graph.parentEdge.push(edgeTo.length);
        graph.parentNode.push(node);
        if (isEnded(next.status)) graph.endings.add(next.status);
      }
      noteUnits(model, graph, applied, next);
      edgeTo.push(to);
      graph.edgeMove.push(move);
      graph.edgeStarted.push(applied.started.length ? applied.started : null);
    }
    edgeEnd[node] = edgeTo.length;
  }
  graph.nodes = states.length;
  return graph;
}

function emptyGraph(unitCount: number): StateGraph {
  return {
    nodes: 0,
    parentEdge: [-1],
    parentNode: [-1],
    edgeStart: [],
    edgeEnd: [],
    edgeTo: [],
    edgeMove: [],
    edgeStarted: [],
    started: new Uint8Array(unitCount),
    skipped: new Uint8Array(unitCount),
    settled: new Uint8Array(unitCount),
    endings: new Set<RunStatus>(),
    stuckNodes: [],
    stuckStates: new Map<number, RunState>(),
    refusals: new Set<string>(),
    complete: true,
    stoppedByClock: false,
  };
}

/** What a move did to the units: those it started, and those it settled (skipped or completed). */
function noteUnits(
  model: Model,
  graph: StateGraph,
  applied: { started: number[]; history: { kind: string; step?: string | undefined }[] },
  next: RunState,
): void {
  for (const unit of applied.started) graph.started[unit] = 1;
  for (const entry of applied.history) {
    if (entry.kind !== 'step-skipped' && entry.kind !== 'step-completed') continue;
    // (a step whose completion ends the run lets nothing after it run)
    if (entry.kind === 'step-completed' && next.status !== 'running') continue;
    const unit = model.unitOf(entry.step!);
    if (unit === undefined) continue;
    graph.settled[unit] = 1;
    if (entry.kind === 'step-skipped') graph.skipped[unit] = 1;
  }
}

/** The moves from the start to a node, along the first (shortest) path that found it. */
function pathTo(graph: StateGraph, node: number): Move[] {
  const path: Move[] = [];
  for (let at = node; at > 0; at = graph.parentNode[at]!) path.push(graph.edgeMove[graph.parentEdge[at]!]!);
  return path.reverse();
}

/** Post-order of the graph from node 0 (children before parents), and any cycle. */
function postOrder(graph: StateGraph): { order: number[]; cycle: Move[] | null } {
  const { edgeStart, edgeEnd, edgeTo, edgeMove } = graph;
  const order: number[] = [];
  const color = new Uint8Array(graph.nodes);
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
  return { order, cycle };
}

/**
 * Longest paths over the acyclic graph: per unit, the most starts on one path from the start. A
 * step starts again only after a retry or a loop's reset (restart-from is not explored), so a step
 * with no retries and in no loop's region starts at most once in a run: it needs no pass.
 */
function mostAttempts(
  ir: Ir,
  model: Model,
  graph: StateGraph,
  order: readonly number[],
  cycle: Move[] | null,
): number[] {
  const { edgeStart, edgeEnd, edgeTo, edgeStarted } = graph;
  const unitCount = model.unitCount;
  const dp = new Int32Array(graph.nodes);
  const maxAttempts = new Array<number>(unitCount).fill(0);
  const again = new Uint8Array(unitCount);
  for (const step of ir.steps)
    for (const outcome of step.outcomes)
      if (outcome.transition.kind === 'loop')
        for (const [first, last] of outcome.transition.reset)
          for (let member = first; member <= last; member++) again[member] = 1;
  for (let unit = 0; unit < unitCount; unit++) {
    if (!graph.started[unit]) continue;
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
  return maxAttempts;
}

/** The most agent turns one run can take, and a run that takes them (none when runs go round). */
function worstTurns(
  model: Model,
  graph: StateGraph,
  order: readonly number[],
  cycle: Move[] | null,
): { turns: number; path: Move[] } {
  const { edgeStart, edgeEnd, edgeTo, edgeStarted, edgeMove } = graph;
  const dp = new Int32Array(graph.nodes);
  const isAgent = (unit: number) => model.irOf(unit).kind === 'agent';
  const bestEdge = new Int32Array(graph.nodes).fill(-1);
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
  const path: Move[] = [];
  for (let edge = cycle ? -1 : bestEdge[0]!; edge >= 0; edge = bestEdge[edgeTo[edge]!]!)
    path.push(edgeMove[edge]!);
  return { turns: dp[0]!, path };
}

/** Stuck states: one per first blocked step, with the shortest path (breadth first: the first found). */
function stuckRuns(ir: Ir, graph: StateGraph): StuckRun[] {
  const stuck: StuckRun[] = [];
  const seenBlocked = new Set<number>();
  for (const node of graph.stuckNodes) {
    const state = graph.stuckStates.get(node)!;
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
    stuck.push({ path: pathTo(graph, node), state, blocked, waitingFor });
  }
  return stuck;
}

function unitBounds(model: Model, n: number, graph: StateGraph, maxAttempts: readonly number[]): UnitBound[] {
  const units: UnitBound[] = [];
  for (let unit = 0; unit < model.unitCount; unit++) {
    const ir = model.irOf(unit);
    const after = unit >= n;
    units.push({
      name: model.nameOf(unit),
      kind: ir.kind,
      after,
      manual: after && (ir as { trigger?: string }).trigger === 'manual',
      maxAttempts: maxAttempts[unit]!,
      started: graph.started[unit] === 1,
      skipped: graph.skipped[unit] === 1,
      settled: graph.settled[unit] === 1,
    });
  }
  return units;
}
