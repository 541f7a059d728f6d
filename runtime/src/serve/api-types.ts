/**
 * The HTTP API of `kairoku-playbook serve` (base path `/api/v1`, JSON), shared by the host and the
 * panel: this file is the canonical copy; the panel keeps its own (`panel/src/api/api-types.ts`),
 * held equal to this one by a test. docs/serve.md describes each route.
 *
 * Auth: the cookie `kairoku_session` (HttpOnly, SameSite=Strict, Path=/) or `Authorization: Bearer
 * <token>`; without either, 401 with a `RefusalBody`.
 */
import type { Attempt } from '@kairoku-playbook/machine';

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

/** A diagnostic exactly as `check --format json` prints one (the one validate). */
export interface JsonDiagnostic {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: 'error' | 'warning' | 'info';
  code: string;
  message: string;
  related?: {
    file: string;
    line: number;
    column: number;
    endLine: number;
    endColumn: number;
    message: string;
  }[];
}

export type InputType = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'list' | 'object' | 'any';

/** A start-form field, built from one of the IR's inputs. */
export interface InputField {
  name: string;
  title?: string;
  description?: string;
  type: InputType;
  /** string inputs declared multiline (or with a long default) */
  multiline?: boolean;
  /** enum */
  choices?: string[];
  /** a list's element type */
  element?: InputType;
  required: boolean;
  secret: boolean;
  /** never present for a secret input */
  default?: unknown;
}

export interface PlaybookCard {
  /** the path relative to the workspace, '/' separators: ".paseo/playbooks/pr.yml" */
  id: string;
  title: string;
  description?: string;
  diagnostics: JsonDiagnostic[];
  canStart: boolean;
  /** why not, when there are errors */
  why?: string;
  /** [] when the playbook does not compile */
  inputs: InputField[];
  /** the IR's JSON Schema of the inputs: the page validates with it, the server again */
  inputSchema?: Record<string, unknown>;
  /** what the backend supports */
  startOptions: StartOptionsOffered;
}

/** as the run file spells it (SPEC: `canceled`) */
export type RunStatusName = 'running' | 'paused' | 'completed' | 'failed' | 'canceled';

export interface RunListItem {
  id: string;
  /** the playbook's id (as declared in the file) */
  playbook: string;
  title: string;
  status: RunStatusName;
  startedAt: string;
  endedAt?: string;
  archived: boolean;
  /** false: a completed run whose tab has not been opened yet (it stays green) */
  seen: boolean;
  /** open gates and permission requests */
  waiting: number;
}

export interface GraphNode {
  name: string;
  kind: 'agent' | 'check' | 'gate';
  needs: string[];
  after?: boolean;
}

export interface GraphLoop {
  from: string;
  to: string;
  outcome: string;
  max: number;
  count: number;
}

export interface ChoiceView {
  name: string;
  label: string | null;
  comment: 'none' | 'optional' | 'required';
}

/** One entry of a step's history, as the detail sheet lists it. */
export interface StepActivity {
  at: string;
  /** the history entry's kind: `step-started`, `agent`, `tool-denied`, … */
  kind: string;
  attempt?: number;
  text: string;
  /** a note that came again: how many times in all */
  count?: number;
}

/** One attempt of a step, exactly as the run file records it (timestamps ISO 8601). */
export type AttemptView = Attempt;

/** The MCP server's StepView (runtime/src/mcp/views.ts), plus what the panel needs. */
export interface StepDetail {
  /** after-tasks are named `after.NAME` */
  name: string;
  kind: 'agent' | 'check' | 'gate';
  status: string;
  outcome: string | null;
  summary: string | null;
  outputs: Record<string, unknown> | null;
  reason: string | null;
  attempts: AttemptView[];
  gate?: { title: string; summary: string; choices: ChoiceView[] };
  inputs?: { name: string; source: string; value: unknown }[];
  brief?: string;
  role?: { name: string; instructions: string };
  /**
   * the step's entries of the run's history, the last STEP_ACTIVITY_SHOWN: its transitions, and the
   * notes backends and runners wrote (an agent's curated events, RF-003; tool denials, RF-017)
   */
  activity: StepActivity[];
  canNudge: boolean;
  canRetry: boolean;
  /** after-tasks: whether Start is offered now */
  startable?: boolean;
  /** after-tasks: the run statuses they start on */
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
  graph: { nodes: GraphNode[]; loops: GraphLoop[] };
  steps: StepDetail[];
  after: StepDetail[];
  actions: { cancel: boolean; pause: boolean; resume: boolean; archive: boolean; restartFrom: string[] };
  /** increases with every write of the run file */
  version: number;
}

// ---- requests and answers ------------------------------------------------------------------------

/** GET /api/v1/playbooks */
export interface PlaybooksAnswer {
  playbooks: PlaybookCard[];
}

/** The start form's options beyond the inputs, as the host's backend supports them. */
export interface StartOptionsOffered {
  newAgent: boolean;
  /** a worktree of the run's own, on a new branch (the playbook's `workspace: new-worktree`, for this run) */
  worktree: boolean;
  /**
   * present when the provider and model of the run's steps that name none can be chosen (paseo):
   * serve's defaults, which the form starts with
   */
  agents?: { defaultProvider: string; defaultModel?: string };
}

/** POST /api/v1/runs */
export interface StartRequest {
  /** a PlaybookCard id */
  playbook: string;
  inputs: Record<string, unknown>;
  options?: {
    newAgent?: boolean;
    worktree?: boolean;
    /** a provider id as Paseo spells them (`claude`, `codex`, a custom `my-acp`) */
    provider?: string;
    model?: string;
  };
}

/** 201 to POST /api/v1/runs */
export interface StartAnswer {
  run: RunListItem;
  warnings: string[];
}

/** GET /api/v1/runs[?archived=1], newest first */
export interface RunsAnswer {
  runs: RunListItem[];
}

/** POST /api/v1/runs/:id/restart */
export interface RestartRequest {
  step: string;
}

/** POST /api/v1/runs/:id/gates/:step */
export interface GateDecisionRequest {
  choice: string;
  comment?: string;
}

/** POST /api/v1/runs/:id/steps/:step/nudge */
export interface NudgeRequest {
  message: string;
}

/** POST /api/v1/runs/:id/cancel (`reason`, recorded in the run's history, is optional: `{}` will do) */
export interface CancelRequest {
  reason?: string;
}

/** The body of POST .../pause, /resume, /archive, /steps/:step/retry, /after/:name/start. */
export type EmptyRequest = Record<string, never>;

// ---- server-sent events (GET /api/v1/events) -------------------------------------------------------

/** `event: run`: a run file was written. */
export type RunEventData = RunListItem & { version: number };

/** `event: playbooks`: a playbook changed (reload GET /api/v1/playbooks). */
export type PlaybooksEventData = Record<string, never>;

/**
 * `event: reset`: the Last-Event-ID a client reconnected with is older than what the server keeps;
 * reload everything.
 */
export type ResetEventData = Record<string, never>;

export type ServerEventName = 'run' | 'playbooks' | 'reset';
