import type { Check, CheckContext } from '../check-context.js';
import { shown } from '../diagnostic.js';
import type { OffsetRange, RelatedLocation } from '../diagnostic.js';
import type { RoleDecl, StepDecl, TransitionDecl } from '../model/model.js';
import { BASE_POLICY, baseOf } from '../policy/base-policy.js';
import type { GatedPattern } from '../policy-file/policy-file.js';
import { rangeOf } from '../yaml/read-yaml.js';
import { commandPatternProblem, commandsOf, patternsOverlap } from './command-patterns.js';

/** The most hops of a path a PB700 lists: the ones nearest the step (a generated chain can be 2,000 deep). */
const MAX_HOPS = 16;

/** How a step may reach outside its worktree: the first command or pattern that matches a gated one. */
interface Reach {
  range: OffsetRange;
  /** what it may run: `runs "git push origin"`, `its role "deployer" may run "git *"` */
  what: string;
  /** the gated pattern it matches; none for a role that may run anything under a strict policy */
  gated: GatedPattern | undefined;
}

/** `, which reaches outside its worktree (…)`: why what a step may run counts. */
function reachesOutside(reach: Reach): string {
  if (!reach.gated) return 'which reaches outside its worktree under a strict policy';
  const by = reach.gated.file ? ` by ${reach.gated.file}` : '';
  return `which reaches outside its worktree ("${shown(reach.gated.pattern)}" is gated${by})`;
}

function reachHop(context: CheckContext, reach: Reach): RelatedLocation {
  return context.related(
    reach.range,
    reach.gated
      ? `it may run this: it matches "${shown(reach.gated.pattern)}"`
      : 'it may run any command: its role does not list the commands it runs',
  );
}

/** How a step can settle and let the steps that need it go on. */
interface Settling {
  /** its `when` can be false (it is skipped), with where the `when` is */
  skip: OffsetRange | undefined;
  /** its `when` is always false: it never starts */
  neverStarts: boolean;
  /** it can complete and go on: an outcome or choice `next`, or a loop exhausted into `next` */
  goesOn: boolean;
  /** a gate: a choice that goes on without approving (a loop exhausted into `next`), with its key */
  unapproved: { choice: string; range: OffsetRange } | undefined;
  /** an outcome or choice that ends the run (`end`, or a loop exhausted into `end`), with its key */
  ends: { name: string; range: OffsetRange } | undefined;
}

/**
 * PB700 (SPEC §4, approval dominance): a step that may run a gated command (a check step's commands; an
 * agent step's role's `run` patterns, or under `strict:` a role that may run anything) must have a gate
 * approved before it on every run that starts it. Otherwise a warning on the step, naming one path.
 *
 * Exact on the graph, in linear time. A step starts only when every step it needs is settled (completed or
 * skipped), and a loop resets its target with everything after it: so when a step starts, every ancestor
 * is settled, and the gates decided before it that still stand are its ancestor gates (any other gate can
 * be decided later, in another order of the same run). A gate approves when a person took a choice that is
 * `next`; it approves nothing when its `when` skipped it or a choice's loop ran out into `next`. So a step
 * can start unapproved iff every ancestor can settle and let its dependents go on without approving:
 * `free(s) = ∀ n ∈ needs(s): free(n) ∧ quiet(n)`, one pass in topological order. Each `when` is taken
 * as able to be true and false (the analysis reads no values), except one written as a constant.
 *
 * After-tasks: one that may start after a failed run has no gate before it (a run can fail before any
 * gate is decided: its timeout, a lost agent); one that starts only after a completed run is unapproved
 * iff every step can settle without approving, or some step can end the run while free.
 */
export const checkApprovalDominance: Check = (context) => {
  const { model } = context;
  const policy = context.policy;
  const reachOfRole = new Map<string, Reach | undefined>();
  const reachOf = (step: StepDecl): Reach | undefined => {
    if (step.kind === 'check') return commandReach(context, step, policy.gated);
    if (step.kind !== 'agent' || !step.role) return undefined;
    const role = model.roles.get(step.role.name);
    if (!role) return undefined;
    if (!reachOfRole.has(role.name))
      reachOfRole.set(role.name, roleReach(context, role, step.role.range, policy.strict, policy.gated));
    return reachOfRole.get(role.name);
  };
  const settling = model.steps.map(settlingOf);
  const analysis: Analysis = { context, settling, ...freeSteps(context, settling) };
  reportSteps(analysis, reachOf);
  reportAfterTasks(analysis, reachOf);
};

/** What the pass over the graph found, step by step (by index). */
interface Analysis {
  context: CheckContext;
  settling: Settling[];
  /** the step can start with no approving gate among its ancestors */
  free: Uint8Array;
  /** the need a free step's path comes through (-1: it needs nothing) */
  via: Int32Array;
  /** the gates (passed without approving) on that path */
  gatesOnPath: Int32Array;
}

/**
 * One pass in topological order: free (the step can start with no approving gate among its
 * ancestors) and quiet (and settle, letting its dependents go on, without approving).
 */
function freeSteps(
  context: CheckContext,
  settling: readonly Settling[],
): Pick<Analysis, 'free' | 'via' | 'gatesOnPath'> {
  const { graph } = context;
  const steps = context.model.steps;
  const n = steps.length;
  const free = new Uint8Array(n);
  const quiet = new Uint8Array(n);
  const via = new Int32Array(n).fill(-1);
  const gatesOnPath = new Int32Array(n);
  for (const i of graph.order) {
    if (graph.onCycle.has(i)) continue;
    // A need that names no step (PB200) or the step itself (PB208) is its own mistake: what would
    // come before the step is unknown, so nothing after it is reported.
    if (new Set(steps[i]!.needs.map((need) => need.name)).size !== graph.needs[i]!.length) continue;
    let isFree = true;
    let best = -1;
    for (const need of graph.needs[i]!) {
      if (!quiet[need]) {
        isFree = false;
        break;
      }
      if (best < 0 || gatesOnPath[need]! > gatesOnPath[best]!) best = need;
    }
    if (!isFree) continue;
    free[i] = 1;
    via[i] = best;
    const step = steps[i]!;
    const how = settling[i]!;
    const isGate = step.kind === 'gate';
    gatesOnPath[i] = (best >= 0 ? gatesOnPath[best]! : 0) + (isGate ? 1 : 0);
    quiet[i] = (
      isGate ? how.skip !== undefined || how.unapproved !== undefined : how.skip !== undefined || how.goesOn
    )
      ? 1
      : 0;
  }
  return { free, via, gatesOnPath };
}

/** One path from the start of the run to the step, every gate on it passed without approving. */
function pathTo({ context, settling, via }: Analysis, i: number): RelatedLocation[] {
  const steps = context.model.steps;
  const chain: number[] = [];
  for (let at = i; at >= 0; at = via[at]!) chain.push(at);
  chain.reverse();
  const hops: RelatedLocation[] = [];
  const first = Math.max(0, chain.length - MAX_HOPS);
  for (let k = first; k < chain.length; k++) {
    const step = steps[chain[k]!]!;
    if (k === 0)
      hops.push(
        context.related(step.keyRange, `the run starts "${shown(step.name)}" at once: it needs nothing`),
      );
    else {
      const previous = steps[chain[k - 1]!]!;
      const need = step.needs.find((ref) => ref.name === previous.name);
      const skipped =
        k === first && first > 0 ? ` (${first} steps before it on this path are not listed)` : '';
      hops.push(
        context.related(
          need?.range ?? step.keyRange,
          `"${shown(step.name)}" starts after "${shown(previous.name)}"${skipped}`,
        ),
      );
    }
    if (step.kind === 'gate' && k < chain.length - 1)
      hops.push(unapprovedHop(context, step, settling[chain[k]!]!));
  }
  return hops;
}

/** PB700 on each step that may reach outside and can start with no gate approved before it. */
function reportSteps(analysis: Analysis, reachOf: (step: StepDecl) => Reach | undefined): void {
  const { context, settling, free, gatesOnPath } = analysis;
  const steps = context.model.steps;
  for (let i = 0; i < steps.length; i++) {
    if (!free[i]) continue;
    const step = steps[i]!;
    if (settling[i]!.neverStarts) continue;
    const reach = reachOf(step);
    if (!reach) continue;
    const path = pathTo(analysis, i);
    const gates = gatesOnPath[i]!;
    context.report(
      'PB700',
      step.keyRange,
      `step "${shown(step.name)}" ${reach.what}, ${reachesOutside(reach)}, and can start with no gate approved before it: ${gates ? 'the gates before it can be passed without approving' : 'no gate comes before it'}; add a gate it needs`,
      {
        related: [reachHop(context, reach), ...path],
      },
    );
  }
}

/** PB700 on after-tasks: after a failed run, nothing was approved; after a completed one, maybe nothing was. */
function reportAfterTasks(analysis: Analysis, reachOf: (step: StepDecl) => Reach | undefined): void {
  const { context, settling, free } = analysis;
  const { model, graph } = context;
  const steps = model.steps;
  const n = steps.length;
  let completedFree: RelatedLocation[] | undefined | null = null;
  const completedUnapproved = (): RelatedLocation[] | undefined => {
    if (completedFree !== null) return completedFree;
    completedFree = undefined;
    for (let i = 0; i < n; i++) {
      const ends = settling[i]!.ends;
      if (free[i] && ends) {
        completedFree = [
          ...pathTo(analysis, i),
          context.related(ends.range, `"${shown(ends.name)}" ends the run: it completes`),
        ];
        return completedFree;
      }
    }
    if (graph.onCycle.size === 0 && steps.every((step, i) => settles(step, settling[i]!)))
      completedFree = steps
        .filter((step) => step.kind === 'gate')
        .slice(0, MAX_HOPS)
        .map((gate) => unapprovedHop(context, gate, settling[gate.index]!));
    return completedFree;
  };
  for (const task of model.after) {
    const reach = reachOf(task);
    if (!reach) continue;
    const onRange = task.onValue?.range ?? task.keyRange;
    let why: string;
    let related: RelatedLocation[];
    if (task.on.includes('failed')) {
      why = `may start after a failed run, and a run can fail before any gate is decided${task.onValue ? '' : ' ("on" is [completed, failed] unless it says otherwise)'}`;
      related = [context.related(onRange, 'it starts after a failed run')];
    } else {
      const path = completedUnapproved();
      if (!path) continue;
      why = 'may start after a run that completed with no gate approved';
      related = path;
    }
    context.report(
      'PB700',
      task.keyRange,
      `after-task "${shown(task.name)}" ${reach.what}, ${reachesOutside(reach)}, and ${why}; let it start only after a completed run that passed a gate`,
      {
        related: [reachHop(context, reach), ...related],
      },
    );
  }
}

/** Whether a step settles (completed or skipped) and goes on without any gate approving. */
function settles(step: StepDecl, how: Settling): boolean {
  return step.kind === 'gate'
    ? how.skip !== undefined || how.unapproved !== undefined
    : how.skip !== undefined || how.goesOn;
}

function unapprovedHop(context: CheckContext, gate: StepDecl, how: Settling): RelatedLocation {
  if (how.skip)
    return context.related(
      how.skip,
      `gate "${shown(gate.name)}" can be skipped: its "when" can be false, and a skipped gate approves nothing`,
    );
  if (how.unapproved)
    return context.related(
      how.unapproved.range,
      `gate "${shown(gate.name)}" can go on without approving: choice "${shown(how.unapproved.choice)}" loops, and when its loops run out it goes on`,
    );
  return context.related(gate.keyRange, `gate "${shown(gate.name)}"`);
}

function settlingOf(step: StepDecl): Settling {
  const how: Settling = {
    skip: undefined,
    neverStarts: false,
    goesOn: false,
    unapproved: undefined,
    ends: undefined,
  };
  const when = step.when;
  if (when) {
    const constant = 'node' in when ? constantOf(when.value) : when.value;
    if (constant !== true) how.skip = 'node' in when ? rangeOf(when.node) : when.range;
    if (constant === false) how.neverStarts = true;
  }
  for (const outcome of step.outcomes) {
    const range = outcome.keyRange ?? step.keyRange;
    const then = outcome.transition;
    if (!then) continue;
    const onward = onwardOf(then);
    if (onward === 'next') {
      how.goesOn = true;
      if (then.kind === 'loop' && step.kind === 'gate' && !how.unapproved)
        how.unapproved = { choice: outcome.name, range };
    }
    if (onward === 'end' && !how.ends) how.ends = { name: outcome.name, range };
  }
  return how;
}

/** Where a transition can lead the run on: `next`, `end`, or neither (it fails, or retries then fails). */
function onwardOf(then: TransitionDecl): 'next' | 'end' | undefined {
  if (then.kind === 'next' || then.kind === 'end') return then.kind;
  if (then.kind === 'loop') {
    const exhausted = then.exhausted?.kind ?? 'fail';
    return exhausted === 'next' || exhausted === 'end' ? exhausted : undefined;
  }
  return undefined;
}

/** A `when` written as a constant (`true`, `${{ false }}`): its value; otherwise undefined. */
function constantOf(text: string): boolean | undefined {
  const bare = text
    .trim()
    .replace(/^\$\{\{([\s\S]*)\}\}$/, '$1')
    .trim();
  return bare === 'true' ? true : bare === 'false' ? false : undefined;
}

/** A check step: the first of its commands that matches a gated pattern. */
function commandReach(
  context: CheckContext,
  step: StepDecl,
  gated: readonly GatedPattern[],
): Reach | undefined {
  for (const line of step.run) {
    for (const command of commandsOf(line.value)) {
      const match = gated.find((g) => patternsOverlap(command.pattern, g.pattern));
      if (match)
        return {
          range: context.rangeIn(line, command.start, command.end),
          what: `runs "${shown(line.value.slice(command.start, command.end))}"`,
          gated: match,
        };
    }
  }
  return undefined;
}

/** An agent step's role: the first of its `run` patterns that can match a gated one; under `strict`, any command. */
function roleReach(
  context: CheckContext,
  role: RoleDecl,
  use: OffsetRange,
  strict: boolean,
  gated: readonly GatedPattern[],
): Reach | undefined {
  const base = baseOf(role);
  if (!base || !BASE_POLICY[base].run) return undefined;
  const run = role.tools?.run;
  if (run && Array.isArray(run.value)) {
    for (const pattern of run.value) {
      // (an invalid pattern is PB504's)
      if (commandPatternProblem(pattern.value)) continue;
      const match = gated.find((g) => patternsOverlap(pattern.value, g.pattern));
      if (match)
        return {
          range: rangeOf(pattern.node),
          what: `may run "${shown(pattern.value)}" (its role "${shown(role.name)}" allows it)`,
          gated: match,
        };
    }
    return undefined;
  }
  if (run?.value === false || !strict) return undefined;
  return {
    range: run?.range ?? role.keyRange ?? use,
    what: `may run any command (its role "${shown(role.name)}" may)`,
    gated: undefined,
  };
}
