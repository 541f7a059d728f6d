/** The changes `diffPlaybooks` reports: what each is about, which way it moves a playbook's power. */
import type { Ir } from '../ir/ir.js';

/**
 * What a change does to a playbook's power: more (`widened`), less (`narrowed`), or something neither
 * more nor less that still matters (`changed`, e.g. a loop that now goes back to another step).
 */
export type Direction = 'widened' | 'narrowed' | 'changed';

export type ChangeKind =
  | 'playbook-added'
  | 'playbook-removed'
  | 'step-added'
  | 'step-removed'
  | 'gate-added'
  | 'gate-removed'
  | 'gate-condition'
  | 'gate-bypassed'
  | 'gate-guards'
  | 'gate-choice'
  | 'outcome'
  | 'loop-max'
  | 'retries'
  | 'timeout'
  | 'concurrency'
  | 'workspace'
  | 'tool'
  | 'step-role'
  | 'role-base'
  | 'commands'
  | 'secret-input'
  | 'secret-exposed'
  | 'ungated-path'
  | 'bound';

/** What a change is about, by its name in HEAD (in BASE for what was removed). */
export interface ChangeSubject {
  type: 'playbook' | 'step' | 'after' | 'role' | 'input';
  name: string;
  /** the name in BASE, when it differs (a step renamed as well as changed) */
  baseName?: string;
}

export interface PolicyChange {
  kind: ChangeKind;
  direction: Direction;
  subject: ChangeSubject;
  /** one line, for people: what changed, naming the thing */
  message: string;
  /** the value in BASE and in HEAD, where the change has one (a number, a list, a flag …) */
  before?: unknown;
  after?: unknown;
  /** the steps and after-tasks it concerns (a role's users, the steps a gate no longer guards …) */
  steps?: string[];
}

/** A step that can reach outside its worktree with no gate approved before it (PB700), and one path there. */
export interface UngatedStep {
  /** the step's or after-task's name */
  step: string;
  after?: boolean;
  /** the steps of one ungated path from the start, by name */
  path: string[];
}

export interface DiffOptions {
  /**
   * The seam for approval dominance (PB700): the steps of a playbook that can reach outside with no
   * gate approved before them. Given, `diffPlaybooks` reports each step that is ungated in HEAD and was
   * not in BASE as an `ungated-path` change (widened), and the other way round (narrowed). Absent, no
   * such change is reported.
   */
  ungatedSteps?: (ir: Ir) => readonly UngatedStep[];
  /**
   * The seam for the bounds of a run (the machine's explorer): given, a change of the most agent turns
   * or gate decisions a run can take is a `bound` change, widened when it grows (`bounds-diff.ts`).
   */
  bounds?: (ir: Ir) => DiffBounds | undefined;
}

/** What the diff compares of a playbook's bounds (the machine's `RunBounds` has these and more). */
export interface DiffBounds {
  agentTurns: number;
  gateDecisions: number;
  /** from a complete exploration; false: a static bound */
  explored: boolean;
}

/** The subject's name in BASE, when it is not its name in HEAD. */
export function renamed(baseName: string | undefined, name: string): { baseName?: string } {
  return baseName !== undefined && baseName !== name ? { baseName } : {};
}
