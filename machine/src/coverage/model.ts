import type { Ir, IrOutcome, IrStep, SourceLocation } from '@kairoku-playbook/compiler';
import { AFTER_PREFIX } from '../core/state.js';

/**
 * What playbook coverage counts (issue 26), read from the IR alone: the lines (each step and after-task,
 * hit when it starts or its gate opens) and the branches (each outcome of a step or after-task, each
 * choice of a gate, each loop taken and exhausted, each `when` true and false). A hit is keyed by the
 * item's `key`, which names it by step and outcome, never by line, so coverage recorded before an edit
 * still names the same outcomes after it.
 */

/** A step or after-task: reached when it starts (a gate: when it opens). */
export interface CoverageLine {
  key: string;
  /** the run's name for it: the step's, or `after.NAME` */
  unit: string;
  kind: 'agent' | 'check' | 'gate' | 'after';
  /** 1-based line of the step's name in the playbook */
  line: number;
}

export type CoverageBranchKind = 'outcome' | 'choice' | 'loop' | 'when';

/** One arm of a decision: an outcome, a choice, a loop taken or exhausted, a `when` true or false. */
export interface CoverageBranch {
  key: string;
  kind: CoverageBranchKind;
  /** the step or after-task (`after.NAME`) the decision belongs to */
  unit: string;
  /** the outcome or choice; for a loop `taken` or `exhausted`, for a `when` `true` or `false` */
  arm: string;
  /** for a loop: its counter, STEP.OUTCOME */
  counter?: string;
  /** 1-based line of the outcome, choice, loop or `when` in the playbook */
  line: number;
  /** the decision it is an arm of, numbered from 0 in the order of the playbook (lcov's block) */
  block: number;
}

export interface CoverageModel {
  lines: CoverageLine[];
  branches: CoverageBranch[];
}

/** The keys a run's hits are counted under (`recordTransition`) and the model lists. */
export const coverageKeys = {
  reached: (unit: string) => `reached ${unit}`,
  outcome: (unit: string, outcome: string) => `outcome ${unit} ${outcome}`,
  loop: (counter: string, arm: 'taken' | 'exhausted') => `loop ${counter} ${arm}`,
  when: (step: string, value: boolean) => `when ${step} ${String(value)}`,
} as const;

function lineOf(at: SourceLocation | null | undefined, fallback: number): number {
  return at?.[0] ?? fallback;
}

/** The lines and branches of a playbook, in the order of its steps, then its after-tasks. */
export function coverageModel(ir: Ir): CoverageModel {
  const model: CoverageModel = { lines: [], branches: [] };
  let block = 0;
  for (const step of ir.steps) {
    const line = lineOf(step.at, 1);
    model.lines.push({ key: coverageKeys.reached(step.name), unit: step.name, kind: step.kind, line });
    if (step.when) {
      const at = lineOf(step.when.at, line);
      for (const value of [true, false])
        model.branches.push({
          key: coverageKeys.when(step.name, value),
          kind: 'when',
          unit: step.name,
          arm: String(value),
          line: at,
          block,
        });
      block++;
    }
    block = outcomeBranches(model, step.name, step.kind, step.outcomes, line, block);
  }
  for (const task of ir.after) {
    const unit = `${AFTER_PREFIX}${task.name}`;
    const line = lineOf(task.at, 1);
    model.lines.push({ key: coverageKeys.reached(unit), unit, kind: 'after', line });
    block = outcomeBranches(model, unit, task.kind, task.outcomes, line, block);
  }
  return model;
}

/** A unit's outcomes (one decision), then each of its loops (one decision each: taken or exhausted). */
function outcomeBranches(
  model: CoverageModel,
  unit: string,
  kind: IrStep['kind'],
  outcomes: readonly IrOutcome[],
  line: number,
  block: number,
): number {
  const outcomeBlock = block++;
  for (const outcome of outcomes)
    model.branches.push({
      key: coverageKeys.outcome(unit, outcome.name),
      kind: kind === 'gate' ? 'choice' : 'outcome',
      unit,
      arm: outcome.name,
      line: lineOf(outcome.at, line),
      block: outcomeBlock,
    });
  for (const outcome of outcomes) {
    const transition = outcome.transition;
    if (transition.kind !== 'loop') continue;
    for (const arm of ['taken', 'exhausted'] as const)
      model.branches.push({
        key: coverageKeys.loop(transition.counter, arm),
        kind: 'loop',
        unit,
        arm,
        counter: transition.counter,
        line: lineOf(outcome.at, line),
        block,
      });
    block++;
  }
  return block;
}
