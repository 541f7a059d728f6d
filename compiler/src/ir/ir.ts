/** The execution IR (SPEC §5): JSON, versioned, deterministic. Its JSON Schema is `ir.schema.json`. */

export const IR_VERSION = 1;

/** `[line, column]`, 1-based, column in UTF-16 code units: where an IR node came from. */
export type SourceLocation = [number, number];

export type IrExpr =
  | { kind: 'literal'; value: string | number | boolean | null }
  | { kind: 'context'; name: string }
  | { kind: 'member'; object: IrExpr; property: string }
  | { kind: 'index'; object: IrExpr; index: IrExpr }
  | { kind: 'not'; operand: IrExpr }
  | {
      kind: 'binary';
      operator: '&&' | '||' | '==' | '!=' | '<' | '<=' | '>' | '>=';
      left: IrExpr;
      right: IrExpr;
    }
  | { kind: 'call'; function: string; args: IrExpr[] }
  /** a list literal (`[a, b]`): a list of the items' values */
  | { kind: 'list'; items: IrExpr[] };

export type IrTemplatePart = { text: string } | { expr: IrExpr; at: SourceLocation };

/** A compiled template: `parts` interpolate as text; `single` keeps the one expression's type. */
export interface IrTemplate {
  parts: IrTemplatePart[];
  single: boolean;
  at: SourceLocation;
}

export type IrTransition =
  | { kind: 'next' | 'fail' | 'end' | 'retry' }
  | {
      kind: 'loop';
      target: number;
      max: number;
      feedback: IrTemplate | null;
      exhausted: 'next' | 'fail' | 'end';
      /**
       * the target and every step that transitively needs it, as inclusive ranges `[first, last]` of
       * step indices, ascending and apart (`regionSteps` lists them): a region listed step by step
       * grows with the square of the playbook (every loop of a 10,000-step playbook resets thousands
       * of steps), its ranges about linearly
       */
      reset: [number, number][];
      /** counter key: STEP.OUTCOME */
      counter: string;
    };

export interface IrOutcome {
  name: string;
  label: string | null;
  comment: 'none' | 'optional' | 'required';
  transition: IrTransition;
  at: SourceLocation | null;
}

export interface IrDerivedInput {
  /** `inputs.task`, `steps.plan.outputs.plan`, `steps.qa.outcome` … */
  from: string;
  /** the step it comes from, as an index into `steps`; null for run inputs */
  step: number | null;
}

export interface IrStep {
  index: number;
  name: string;
  kind: 'agent' | 'check' | 'gate';
  title: IrTemplate | null;
  needs: number[];
  when: { expr: IrExpr; at: SourceLocation } | null;
  role: string | null;
  provider: string | null;
  model: string | null;
  prompt: IrTemplate | null;
  run: IrTemplate[];
  env: { name: string; value: IrTemplate }[];
  cwd: IrTemplate | null;
  gate: { title: IrTemplate | null; summary: IrTemplate | null } | null;
  outputs: { name: string; type: string; description: string | null }[];
  outputSchema: Record<string, unknown>;
  outcomes: IrOutcome[];
  retries: number;
  timeoutMs: number;
  labels: { name: string; value: IrTemplate }[];
  inputs: IrDerivedInput[];
  layout: { row: number; column: number };
  /** a role with a read-only base: the worktree is checked with git after the step */
  readOnly: boolean;
  at: SourceLocation;
}

export interface IrAfterTask extends Omit<IrStep, 'needs' | 'when' | 'gate' | 'layout' | 'kind'> {
  kind: 'agent' | 'check';
  trigger: 'auto' | 'manual';
  on: ('completed' | 'failed')[];
}

export interface IrRole {
  name: string;
  base: 'implementer' | 'reviewer' | 'planner' | 'researcher';
  instructions: string | null;
  provider: string | null;
  model: string | null;
  mode: string | null;
  tools: {
    read: boolean;
    edit: boolean;
    write: boolean;
    network: boolean;
    run: boolean | string[];
    mcp: boolean | string[];
  };
}

export interface IrInput {
  name: string;
  type: string;
  description: string | null;
  required: boolean;
  secret: boolean;
  multiline: boolean;
  default?: unknown;
}

/**
 * The worst case of a run (issue 26), computed by the machine's explorer (`machine/src/explore/bounds.ts`
 * says how and why each number is sound); `compile` writes it into the IR it prints.
 */
export interface IrBounds {
  /** from the complete exploration (agent turns and decisions exact); false: the static bound */
  explored: boolean;
  /** the most agent turns one run can take (agent steps and auto agent after-tasks, retries included) */
  agentTurns: number;
  /** the most gate decisions a person can be asked for in one run */
  gateDecisions: number;
  /**
   * an upper bound on the longest chain of agent turns one after another (each starts after the one
   * before it ended): the critical path in turns; equal to `agentTurns` when nothing runs in parallel
   */
  chainTurns: number;
  /** an upper bound on a run's wall clock in ms from the timeouts, without people's time on gates */
  longestMs: number;
  /** per input assumption (the explorer's input variants), when there is more than one */
  perInput: { inputs: Record<string, unknown>; agentTurns: number; gateDecisions: number }[];
  /** per step and after-task: its own maximum attempts and why */
  units: { name: string; kind: 'agent' | 'check' | 'gate'; maxAttempts: number; why: string }[];
}

export interface Ir {
  ir: 1;
  id: string;
  title: string;
  description: string | null;
  workspace: 'current' | 'new-agent' | 'new-worktree';
  source: { file: string; sha256: string };
  labels: { name: string; value: IrTemplate }[];
  inputs: IrInput[];
  inputSchema: Record<string, unknown>;
  roles: IrRole[];
  limits: { concurrency: number; timeoutMs: number | null; stepTimeoutMs: number; maxLoops: number };
  steps: IrStep[];
  after: IrAfterTask[];
  outputs: { name: string; value: IrTemplate | null; literal: string | number | boolean | null }[];
  /** written by `compile` (the explorer's); absent otherwise */
  bounds?: IrBounds;
}
