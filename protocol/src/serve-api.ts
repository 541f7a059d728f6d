/**
 * The HTTP API of `kairoku-playbook serve` (base path `/api/v1`, JSON), the one source of it: serve,
 * the panel, the VS Code extension and the CLI read these types, and the JSON Schemas serve checks
 * requests and answers with are generated from them (`src/generated/serve-schemas.ts`, by
 * `npm run generate serve-schemas`; the tags `@minLength`, `@pattern`… are those schemas' bounds).
 * docs/serve.md describes each route.
 *
 * Auth: a session cookie (`kairoku_<hash>`, set by a login URL: docs/serve.md, "Sessions") or
 * `Authorization: Bearer <token>`; without either, 401 with a `RefusalBody`.
 */
import type { JsonDiagnostic } from './json-diagnostic.js';
/** Every 4xx body. `code` is stable (kebab-case), `message` one sentence that says what to do. */
export interface Refusal {
  /** @pattern ^[a-z0-9]+(-[a-z0-9]+)*$ */
  code: string;
  message: string;
  /** a JSON pointer into the request, e.g. "/inputs/repo" */
  field?: string;
}

export interface RefusalBody {
  refusal: Refusal;
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
  /**
   * open gates and permission requests
   * @asType integer
   * @minimum 0
   */
  waiting: number;
  /**
   * a run an older version made, which records no workspace: listed only when asked
   * (`GET /api/v1/runs?unowned=1`), shown but never operated on by this serve
   */
  unowned?: boolean;
}

/** A step of a run's graph, as the run view draws it (after-tasks marked). */
export interface RunGraphNode {
  name: string;
  kind: 'agent' | 'check' | 'gate';
  needs: string[];
  after?: boolean;
}

/** A loop of a run's graph, with how many times it went back. */
export interface RunGraphLoop {
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
  /**
   * @asType integer
   * @minimum 1
   */
  attempt?: number;
  text: string;
  /**
   * a note that came again: how many times in all
   * @asType integer
   * @minimum 2
   */
  count?: number;
}

/** One attempt of a step, exactly as the run file records it (timestamps ISO 8601). */
export interface AttemptView {
  /**
   * 1-based, counted over the step's whole life (loops and retries included)
   * @asType integer
   * @minimum 1
   */
  attempt: number;
  startedAt: string;
  endedAt?: string;
  /** the outcome applied (a gate: the choice taken); the reported one until the manager decides */
  outcome?: string;
  /** set when the manager applied another outcome than the one reported */
  reportedOutcome?: string;
  summary?: string;
  outputs?: Record<string, unknown>;
  reportedAt?: string;
  /** loop feedback handed to this attempt (empty on the first) */
  feedback?: string;
  loopCount?: number;
  /** the manager's brief for this attempt */
  brief?: string;
  /** the backend's handle on the agent (for the lost-agent rule after a restart) */
  agent?: string;
  /** the agent ended its turn without a report and was reminded once */
  reminded?: boolean;
  /** how an attempt without an outcome ended */
  ended?: 'lost' | 'timeout' | 'stopped' | 'canceled' | 'read-only';
  /** gates: the comment given with the choice */
  comment?: string;
  /** gates: the title and summary shown when it opened */
  title?: string;
  gateSummary?: string;
}

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
    /**
     * who manages the run when serve does not drive it itself: a manager agent (as the run records it),
     * or, with `making`, the manager agent serve is still making (a Start on a new agent)
     */
    manager?: { name: string; making?: boolean };
    outputs?: Record<string, unknown> | null;
    /** secrets as "••••" */
    inputs: Record<string, unknown>;
  };
  graph: { nodes: RunGraphNode[]; loops: RunGraphLoop[] };
  steps: StepDetail[];
  after: StepDetail[];
  actions: { cancel: boolean; pause: boolean; resume: boolean; archive: boolean; restartFrom: string[] };
  /**
   * increases with every write of the run file
   * @asType integer
   */
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
  /** a start with the workspace's current agent as the manager (`GET /api/v1/current-agent` names it) */
  currentAgent?: boolean;
  /** a worktree of the run's own, on a new branch (the playbook's `workspace: new-worktree`, for this run) */
  worktree: boolean;
  /**
   * present when the provider and model of the run's steps that name none can be chosen (paseo):
   * serve's defaults, which the form starts with
   */
  agents?: { defaultProvider: string; defaultModel?: string };
}

/**
 * The worst case of a run of a playbook (`compile`'s IR bounds, from the explorer): what the start form
 * says before a Start ("at most 17 agent turns, 3 decisions").
 */
export interface RunBounds {
  /** true: from a complete exploration (agent turns and decisions exact); false: a sound upper bound */
  explored: boolean;
  /** the most agent turns one run can take (retries, loops and after-tasks included) */
  agentTurns: number;
  /** the most gate decisions a person can be asked for in one run */
  gateDecisions: number;
  /** the longest chain of agent turns one after another (the critical path, in turns) */
  chainTurns: number;
  /** an upper bound on a run's wall clock in ms from the timeouts, without people's time at gates */
  longestMs: number;
}

/** GET /api/v1/bounds?playbook=ID: the worst case of a run of the playbook, or why there is none */
export interface BoundsAnswer {
  playbook: string;
  bounds?: RunBounds;
  why?: string;
}

/** GET /api/v1/current-agent: the agent a Start with the current agent would make the manager */
export interface CurrentAgentAnswer {
  /** the workspace's most recent agent that manages no run, if there is one */
  agent?: {
    id: string;
    /** its title in Paseo, as the form names it */
    title: string;
    provider: string;
    /** at work now: the kickoff waits for the end of its turn */
    busy: boolean;
  };
  /** why there is none: the form offers a new agent instead */
  why?: string;
  /**
   * why the agent there is may not have the playbook's tools (its provider reads no MCP server from the
   * workspace): the form says so and offers a new agent first; a Start with it is judged by its first turn
   */
  warning?: string;
}

/** POST /api/v1/runs */
export interface StartRequest {
  /**
   * a PlaybookCard id
   * @minLength 1
   * @maxLength 4096
   */
  playbook: string;
  inputs: Record<string, unknown>;
  options?: {
    newAgent?: boolean;
    /**
     * the Paseo agent to make the run's manager: the workspace's current agent, as
     * `GET /api/v1/current-agent` named it (`paseo`; seed 000's default Start)
     * @pattern ^[A-Za-z0-9][A-Za-z0-9._-]*$
     * @maxLength 200
     */
    currentAgent?: string;
    worktree?: boolean;
    /**
     * a provider id as Paseo spells them (`claude`, `codex`, a custom `my-acp`)
     * @pattern ^[A-Za-z0-9][A-Za-z0-9._-]*$
     * @maxLength 100
     */
    provider?: string;
    /**
     * a model name as a provider spells it (`claude-sonnet-4-5`, `openai/gpt-5`): no blank, no control character
     * @pattern ^[^\s\u0000-\u001f\u007f]+$
     * @maxLength 200
     */
    model?: string;
  };
}

/** 201 to POST /api/v1/runs */
export interface StartAnswer {
  run: RunListItem;
  warnings: string[];
}

/**
 * GET /api/v1/runs[?archived=1|only][&unowned=1][&status=S][&playbook=P][&text=T][&limit=N[&offset=M]]:
 * newest first; with `limit`, a page, runs with work going first. Without `limit`, every run that
 * matches (the answer of earlier versions).
 */
export interface RunsAnswer {
  runs: RunListItem[];
  /**
   * how many runs match the filters, in all pages
   * @asType integer
   * @minimum 0
   */
  total?: number;
  /**
   * the `offset` of the next page, when there is one
   * @asType integer
   * @minimum 0
   */
  next?: number;
}

/**
 * 201 to POST /api/v1/login-urls (API clients only, with the bearer token: `kairoku-playbook serve
 * --login-url`): a new login URL, which logs one browser in, once, within ten minutes.
 */
export interface LoginUrlAnswer {
  url: string;
}

/** POST /api/v1/runs/:id/restart */
export interface RestartRequest {
  /**
   * @minLength 1
   * @maxLength 200
   */
  step: string;
}

/** POST /api/v1/runs/:id/gates/:step */
export interface GateDecisionRequest {
  /**
   * @minLength 1
   * @maxLength 200
   */
  choice: string;
  /** @maxLength 100000 */
  comment?: string;
}

/** POST /api/v1/runs/:id/steps/:step/nudge */
export interface NudgeRequest {
  /**
   * @minLength 1
   * @maxLength 100000
   */
  message: string;
}

/** POST /api/v1/runs/:id/cancel (`reason`, recorded in the run's history, is optional: `{}` will do) */
export interface CancelRequest {
  /** @maxLength 100000 */
  reason?: string;
}

/** The body of POST .../pause, /resume, /archive, /steps/:step/retry, /after/:name/start. */
export type EmptyRequest = Record<string, never>;

// ---- server-sent events (GET /api/v1/events) -------------------------------------------------------

/** `event: run`: a run file was written. */
export type RunEventData = RunListItem & { version: number };

/** `event: runs-removed`: run files were removed (`runs prune`): drop them from the list. */
export interface RunsRemovedEventData {
  ids: string[];
}

/** `event: playbooks`: a playbook changed (reload GET /api/v1/playbooks). */
export type PlaybooksEventData = Record<string, never>;

/**
 * `event: reset`: the Last-Event-ID a client reconnected with is older than what the server keeps;
 * reload everything.
 */
export type ResetEventData = Record<string, never>;

export type ServerEventName = 'run' | 'runs-removed' | 'playbooks' | 'reset';
