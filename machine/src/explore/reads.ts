import type { Ir, IrExpr } from '@kairoku-playbook/compiler';

/**
 * What the playbook's `when` conditions can read. `when` is the only expression whose value steers a
 * run (transitions are data, outcomes and choices come from the world), so this says which parts of
 * a run's state and inputs the explorer must tell apart, and which literals are worth trying as
 * values (the "interesting" values of a condition are the constants it compares with).
 */
export interface StepReads {
  /** output names read; `all` when the outputs object is read whole */
  outputs: Set<string>;
  allOutputs: boolean;
  outcome: boolean;
  status: boolean;
  summary: boolean;
  attempt: boolean;
}

export interface WhenReads {
  /** inputs read by some condition */
  inputs: Set<string>;
  /** some condition reads `inputs` whole */
  allInputs: boolean;
  /** step index → what conditions read of it */
  steps: Map<number, StepReads>;
  /** some condition reads `steps` whole (or a step by a computed name): read everything of every step */
  allSteps: boolean;
  /** steps whose own condition reads `loop` */
  loop: Set<number>;
  /** literals of the conditions that read an input (`inputs.NAME`) or an output (`STEP.NAME`) */
  literals: Map<string, unknown[]>;
  /** some condition reads a step's attempt count: attempts are part of the state that matters */
  attempts: boolean;
  /** steps whose condition reads inputs (and constants) only: its value is fixed for a run */
  inputOnly: number[];
  /** inputs read by a condition that also reads steps or `loop` */
  mixedInputs: Set<string>;
}

type Path = (string | number)[];

const STEP_FIELDS = ['outputs', 'outcome', 'status', 'summary', 'attempt'] as const;

export function whenReads(ir: Ir): WhenReads {
  const reads = emptyReads();
  const stepIndex = new Map(ir.steps.map((s) => [s.name, s.index]));
  for (const step of ir.steps) {
    if (!step.when) continue;
    const paths: Path[] = [];
    const literals: unknown[] = [];
    collect(step.when.expr, paths, literals);
    const keys: string[] = [];
    for (const path of paths) {
      const [root, first] = path;
      if (root === 'inputs') {
        if (typeof first !== 'string') reads.allInputs = true;
        else {
          reads.inputs.add(first);
          keys.push(`inputs.${first}`);
        }
      } else if (root === 'loop') {
        reads.loop.add(step.index);
      } else if (root === 'steps') {
        readStepPath(reads, stepIndex, path, keys);
      }
      // `run.*` is constant during a run; `report`, `gate` do not exist in a condition.
    }
    const runOnly = paths.every((p) => p[0] === 'inputs' || p[0] === 'run');
    if (runOnly) reads.inputOnly.push(step.index);
    else
      for (const path of paths)
        if (path[0] === 'inputs') {
          if (typeof path[1] === 'string') reads.mixedInputs.add(path[1]);
          else for (const input of ir.inputs) reads.mixedInputs.add(input.name);
        }
    for (const key of keys) {
      const list = reads.literals.get(key) ?? [];
      for (const literal of literals) if (!list.includes(literal)) list.push(literal);
      reads.literals.set(key, list);
    }
  }
  if (reads.allSteps) for (const step of ir.steps) readAll(reads, stepReads(reads, step.index));
  return reads;
}

function emptyReads(): WhenReads {
  return {
    inputs: new Set(),
    allInputs: false,
    steps: new Map(),
    allSteps: false,
    loop: new Set(),
    literals: new Map(),
    attempts: false,
    inputOnly: [],
    mixedInputs: new Set(),
  };
}

/** What conditions read of one step, made on first use. */
function stepReads(reads: WhenReads, index: number): StepReads {
  let found = reads.steps.get(index);
  if (!found) {
    found = {
      outputs: new Set(),
      allOutputs: false,
      outcome: false,
      status: false,
      summary: false,
      attempt: false,
    };
    reads.steps.set(index, found);
  }
  return found;
}

function readAll(reads: WhenReads, step: StepReads): void {
  step.allOutputs = step.outcome = step.status = step.summary = step.attempt = true;
  reads.attempts = true;
}

/** A `steps.NAME…` path of a condition: the field it reads, or all of the step (or of every step). */
function readStepPath(
  reads: WhenReads,
  stepIndex: ReadonlyMap<string, number>,
  path: Path,
  keys: string[],
): void {
  const [, first, second, third] = path;
  const index = typeof first === 'string' ? stepIndex.get(first) : undefined;
  if (index === undefined) {
    reads.allSteps = true;
    reads.attempts = true;
    return;
  }
  const target = stepReads(reads, index);
  if (second === undefined || !(STEP_FIELDS as readonly unknown[]).includes(second)) {
    readAll(reads, target);
  } else if (second === 'outputs') {
    if (typeof third !== 'string') target.allOutputs = true;
    else {
      target.outputs.add(third);
      keys.push(`${first}.${third}`);
    }
  } else {
    target[second as Exclude<(typeof STEP_FIELDS)[number], 'outputs'>] = true;
    if (second === 'attempt') reads.attempts = true;
  }
}

/** The longest member chain from a context root (`steps.plan.outputs.files`), or undefined. */
function pathOf(expr: IrExpr): Path | undefined {
  switch (expr.kind) {
    case 'context':
      return [expr.name];
    case 'member': {
      const base = pathOf(expr.object);
      return base && [...base, expr.property];
    }
    case 'index': {
      if (expr.index.kind !== 'literal') return undefined;
      const key = expr.index.value;
      if (typeof key !== 'string' && typeof key !== 'number') return undefined;
      const base = pathOf(expr.object);
      return base && [...base, key];
    }
    default:
      return undefined;
  }
}

function collect(expr: IrExpr, paths: Path[], literals: unknown[]): void {
  const path = pathOf(expr);
  if (path) {
    paths.push(path);
    return;
  }
  switch (expr.kind) {
    case 'literal':
      if (!literals.includes(expr.value)) literals.push(expr.value);
      return;
    case 'member':
      collect(expr.object, paths, literals);
      return;
    case 'index':
      collect(expr.object, paths, literals);
      collect(expr.index, paths, literals);
      return;
    case 'not':
      collect(expr.operand, paths, literals);
      return;
    case 'binary':
      collect(expr.left, paths, literals);
      collect(expr.right, paths, literals);
      return;
    case 'call':
      for (const arg of expr.args) collect(arg, paths, literals);
      return;
    case 'list':
      for (const item of expr.items) collect(item, paths, literals);
      return;
    case 'context':
      return;
  }
}
