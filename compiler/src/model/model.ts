import type { Node, Scalar } from 'yaml';
import type { OffsetRange } from '../diagnostic.js';
import type { Type } from '../types/type.js';

/** A string scalar of the source, kept with its node so any character of its value maps back to the file. */
export interface TextRef {
  value: string;
  node: Scalar;
}

export interface NameRef {
  name: string;
  range: OffsetRange;
}

export interface InputDecl {
  name: string;
  keyRange: OffsetRange;
  typeText: TextRef | undefined;
  /** set by the type-expression check when `typeText` parses */
  type: Type | undefined;
  defaultValue: { value: unknown; node: Node } | undefined;
  required: boolean;
  secret: boolean;
  multiline: boolean;
  description: string | undefined;
  pattern: TextRef | undefined;
  min: number | undefined;
  max: number | undefined;
  /** where each of the input's keys stands, for constraints that do not fit its type */
  fieldKeys: Map<string, OffsetRange>;
}

export type FixedBase = 'implementer' | 'reviewer' | 'planner' | 'researcher';
export const FIXED_ROLES: readonly FixedBase[] = ['implementer', 'reviewer', 'planner', 'researcher'];

export interface ToolsDecl {
  read?: { value: boolean; range: OffsetRange };
  edit?: { value: boolean; range: OffsetRange };
  write?: { value: boolean; range: OffsetRange };
  network?: { value: boolean; range: OffsetRange };
  run?: { value: boolean | TextRef[]; range: OffsetRange };
  mcp?: { value: boolean | TextRef[]; range: OffsetRange };
}

export interface RoleDecl {
  name: string;
  /** absent for fixed-table roles nobody declared */
  keyRange: OffsetRange | undefined;
  base: NameRef | undefined;
  /** the keys it was declared with (none for a fixed-table role nobody declared) */
  keys: NameRef[];
  /** whether it was declared as a mapping (a role of another shape is PB104 already) */
  isMapping: boolean;
  instructions: TextRef | undefined;
  provider: string | undefined;
  model: string | undefined;
  mode: string | undefined;
  tools: ToolsDecl | undefined;
}

export type SimpleTransition = 'next' | 'fail' | 'end' | 'retry';

export type TransitionDecl =
  | { kind: SimpleTransition; range: OffsetRange }
  | {
      kind: 'loop';
      range: OffsetRange;
      target: NameRef | undefined;
      max: { value: number; range: OffsetRange } | undefined;
      feedback: TextRef | undefined;
      exhausted: { kind: 'next' | 'fail' | 'end'; range: OffsetRange } | undefined;
    };

export interface OutcomeDecl {
  name: string;
  /** absent for the implicit default outcomes of a step kind */
  keyRange: OffsetRange | undefined;
  transition: TransitionDecl | undefined;
  label: string | undefined;
  comment: 'none' | 'optional' | 'required';
}

export interface OutputDecl {
  name: string;
  keyRange: OffsetRange;
  typeText: TextRef | undefined;
  type: Type | undefined;
  description: string | undefined;
}

export type StepKind = 'agent' | 'check' | 'gate';

export interface StepDecl {
  name: string;
  keyRange: OffsetRange;
  /** declaration order among the steps (or among the after-tasks) */
  index: number;
  isAfter: boolean;
  /** undefined when the step has none or several of prompt, run, gate (PB107) */
  kind: StepKind | undefined;
  /** the `prompt`, `run` and `gate` keys the step carries, for PB107 */
  kindKeys: NameRef[];
  /** false when the step's value is not a mapping (the schema check reports that, PB104) */
  isMapping: boolean;
  /** every key the step carries, with its range (the first of duplicates) */
  keys: NameRef[];
  title: TextRef | undefined;
  needs: NameRef[];
  when: TextRef | { value: boolean; range: OffsetRange } | undefined;
  role: NameRef | undefined;
  provider: string | undefined;
  model: string | undefined;
  prompt: TextRef | undefined;
  run: TextRef[];
  env: { name: string; keyRange: OffsetRange; text: TextRef | undefined; literal: string | undefined }[];
  cwd: TextRef | undefined;
  outputs: OutputDecl[];
  outcomes: OutcomeDecl[];
  outcomesDeclared: boolean;
  gate: { title: TextRef | undefined; summary: TextRef | undefined; range: OffsetRange } | undefined;
  timeout: TextRef | undefined;
  retries: number;
  labels: { name: string; text: TextRef | undefined; literal: string | undefined }[];
  trigger: 'auto' | 'manual';
  on: ('completed' | 'failed')[];
  /** `on` written as one status rather than a list (a list's items are checked by the schema) */
  onValue: NameRef | undefined;
}

export interface PlaybookModel {
  file: string;
  /** from `id:`, else derived from the file name */
  id: string;
  idRange: OffsetRange | undefined;
  version: number | undefined;
  title: TextRef | undefined;
  description: string | undefined;
  workspace: 'current' | 'new-agent' | 'new-worktree';
  labels: { name: string; text: TextRef | undefined; literal: string | undefined }[];
  inputs: InputDecl[];
  roles: Map<string, RoleDecl>;
  limits: {
    concurrency: number;
    timeout: TextRef | undefined;
    stepTimeout: TextRef | undefined;
    maxLoops: number;
  };
  steps: StepDecl[];
  stepByName: Map<string, StepDecl>;
  after: StepDecl[];
  outputs: { name: string; keyRange: OffsetRange; text: TextRef | undefined; literal: unknown }[];
}

/** The names of SPEC §4 PB105: steps, inputs, roles, outputs, outcomes, choices. */
const NAME = /^[a-z][a-z0-9_-]*$/;

/** Whether a name is valid (SPEC §4 PB105). */
export function isValidName(name: string): boolean {
  return NAME.test(name);
}
