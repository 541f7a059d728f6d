/**
 * The serve API's shapes as the page reads them (issue 9; the contract the host implements in
 * runtime/src/serve/api-types.ts). The page imports nothing of the playbook packages: panel/test/api-types.test.ts
 * holds this copy to the runtime's (every answer serve sends reads as these types; every request the
 * page sends is one serve accepts), as the extension's protocol copy is held to the language server's.
 */

/** Every 4xx body. `code` is stable (kebab-case), `message` one sentence that says what to do. */
export interface Refusal {
  code: string;
  message: string;
  /** a JSON pointer into the request, e.g. "/inputs/repo" */
  field?: string;
}
export interface RefusalBody {
  refusal: Refusal;
}

/** A diagnostic exactly as `check --format json` prints one. */
export interface JsonDiagnostic {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: 'error' | 'warning' | 'info';
  code: string;
  message: string;
}

export type InputType = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'list' | 'object' | 'any';

export interface InputField {
  name: string;
  title?: string;
  description?: string;
  type: InputType;
  /** string inputs declared multiline (or with a long default) */
  multiline?: boolean;
  /** enum */
  choices?: string[];
  /** list element type */
  element?: InputType;
  required: boolean;
  secret: boolean;
  /** never present for a secret input */
  default?: unknown;
}

export interface PlaybookCard {
  /** path relative to the workspace, '/' separators */
  id: string;
  title: string;
  description?: string;
  diagnostics: JsonDiagnostic[];
  canStart: boolean;
  /** why not, when there are errors */
  why?: string;
  /** [] when the playbook does not compile */
  inputs: InputField[];
  /** the IR's JSON Schema of the inputs */
  inputSchema?: Record<string, unknown>;
  /** what the backend supports */
  startOptions: {
    newAgent: boolean;
    worktree: boolean;
    /** present when the provider and model of steps that name none can be chosen (paseo): serve's defaults */
    agents?: { defaultProvider: string; defaultModel?: string };
  };
}

/** The runtime writes 'canceled'; the contract says 'cancelled': the page takes both. */
export type RunStatus = 'running' | 'paused' | 'completed' | 'failed' | 'cancelled' | 'canceled';

export interface RunListItem {
  id: string;
  playbook: string;
  title: string;
  status: RunStatus;
  startedAt: string;
  endedAt?: string;
  archived: boolean;
  /** false: a completed run whose tab has not been opened yet (stays green) */
  seen: boolean;
  /** open gates and permission requests */
  waiting: number;
}

export interface GraphNodeView {
  name: string;
  kind: 'agent' | 'check' | 'gate';
  needs: string[];
  after?: boolean;
}
export interface GraphLoopView {
  from: string;
  to: string;
  outcome: string;
  max: number;
  count: number;
}

export interface AttemptView {
  attempt: number;
  startedAt?: string;
  endedAt?: string;
  outcome?: string;
  summary?: string;
  outputs?: Record<string, unknown>;
}

export interface GateChoice {
  name: string;
  label: string | null;
  comment: 'none' | 'optional' | 'required';
}

/** One entry of a step's history (`kind`: step-started, agent, tool-denied, …). */
export interface StepActivity {
  at: string;
  kind: string;
  attempt?: number;
  text: string;
  /** a note that came again: how many times in all */
  count?: number;
}

export interface StepDetail {
  name: string;
  kind: 'agent' | 'check' | 'gate';
  status: string;
  outcome: string | null;
  summary: string | null;
  outputs: Record<string, unknown> | null;
  reason: string | null;
  attempts: AttemptView[];
  gate?: { title: string; summary: string; choices: GateChoice[] };
  inputs?: { name: string; source: string; value: unknown }[];
  brief?: string;
  role?: { name: string; instructions: string };
  /** the step's latest history entries: its transitions, and what its agent and runner noted */
  activity: StepActivity[];
  canNudge: boolean;
  canRetry: boolean;
  /** after-tasks: whether Start is offered now, and the run ends it follows */
  startable?: boolean;
  on?: string[];
}

export interface RunDetail {
  run: RunListItem & {
    /** the backend the run's agents run on: `sim` (simulated: no model, generated outputs), `paseo`, … */
    backend: string;
    reason?: string;
    outputs?: Record<string, unknown> | null;
    /** secrets as "••••" */
    inputs: Record<string, unknown>;
  };
  graph: { nodes: GraphNodeView[]; loops: GraphLoopView[] };
  steps: StepDetail[];
  after: StepDetail[];
  actions: { cancel: boolean; pause: boolean; resume: boolean; archive: boolean; restartFrom: string[] };
  /** increases with every write of the run file */
  version: number;
}

export interface StartRequest {
  playbook: string;
  inputs: Record<string, unknown>;
  options?: { newAgent?: boolean; worktree?: boolean; provider?: string; model?: string };
}
export interface StartAnswer {
  run: RunListItem;
  warnings: string[];
}

/** `event: run` data */
export type RunEvent = RunListItem & { version: number };
