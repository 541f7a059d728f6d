import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { IrRole } from '@kairoku-playbook/compiler';
import { literalKind } from '../bind-address.js';
import { LIMITS, SCHEMAS, SCHEMA_BASE } from './schemas.js';

/**
 * The Kairoku runner protocol, v1 (docs/kairoku-protocol.md): the types of its payloads, and one ajv
 * check per request and response, shared by the runtime (the app, which holds the queue) and the
 * reference runner (which dials out).
 */

export const PROTOCOL_VERSION = 1;

/** The fixed role table of a runner (RF-009): a dispatch names one of these, or is refused. */
export const ROLES = ['implementer', 'reviewer', 'planner', 'researcher'] as const;
export type FixedRole = (typeof ROLES)[number];

export function isFixedRole(role: string): role is FixedRole {
  return (ROLES as readonly string[]).includes(role);
}

/** RF-018: a dispatch's wall clock when the step does not say. */
export const DEFAULT_WALL_CLOCK_MS = 3_600_000;
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 5000;
/** heartbeats a runner may miss before its dispatches are failed (RF-013) */
export const DEFAULT_MISS_LIMIT = 3;
/** RF-020: the active flush */
export const DEFAULT_FLUSH_MS = 2000;

export { LIMITS };

export type Route = 'heartbeat' | 'claim' | 'update' | 'drain-ack';
export const ROUTES: readonly Route[] = ['heartbeat', 'claim', 'update', 'drain-ack'];

/** A role's tool policy as data (RF-017): the IR's normalised one. */
export type ToolPolicy = IrRole['tools'];

export interface Dispatch {
  id: string;
  run: string;
  playbook: string;
  /** a step name, or `after.NAME` for an after-task */
  step: string;
  attempt: number;
  kind: 'agent' | 'check';
  title: string;
  repository: string;
  baseBranch: string;
  /** the run's branch (`playbooks/<playbook>-<short id>`), '' when it has none */
  branch: string;
  /** the machine the dispatch asks for, null for any */
  machine: string | null;
  wallClockMs: number;
  agent?: {
    role: string;
    playbookRole: string;
    instructions: string | null;
    provider: string | null;
    model: string | null;
    mode: string | null;
    policy: ToolPolicy;
    readOnly: boolean;
    firstMessage: string;
    outcomes: string[];
    report: { url: string; token: string; tool: 'report_step_result' };
  };
  check?: { commands: string[]; env: Record<string, string>; cwd: string | null };
}

export type EventKind =
  'message' | 'tool-call' | 'tool-result' | 'denial' | 'phase' | 'stderr' | 'status' | 'codegraph';

export interface CuratedEvent {
  at: string;
  kind: EventKind;
  text: string;
  tool?: string;
}

export interface HeartbeatRequest {
  runner: string;
  machine: string;
  version: string;
  capacity: { running: number; max: number };
  repositories: string[];
  held: string[];
  draining?: boolean;
}

export interface HeartbeatResponse {
  intervalMs: number;
  missLimit: number;
  /** dispatches the runner must tear down: canceled, failed, or not its own */
  cancel: string[];
  /** stop claiming, finish what you hold, then send drain-ack */
  drain: boolean;
}

export interface ClaimRequest {
  runner: string;
  machine: string;
  repositories: string[];
  free: number;
}

export interface ClaimResponse {
  dispatches: Dispatch[];
}

export type TerminalStatus = 'completed' | 'failed' | 'timed-out' | 'canceled' | 'refused' | 'interrupted';

export interface CheckResult {
  outcome: 'pass' | 'fail';
  passed: number;
  failed: number;
  skipped: number;
  todo: number;
  exit_code: number;
  summary: string;
}

export interface Terminal {
  status: TerminalStatus;
  reason?: string;
  exitCode?: number | null;
  check?: CheckResult;
  /** read-only dispatches: what the agent changed in its worktree (empty when nothing) */
  worktreeChanges?: string[];
}

export interface UpdateRequest {
  runner: string;
  dispatch: string;
  seq: number;
  phase?: 'preparing' | 'running' | 'tearing-down';
  events: CuratedEvent[];
  terminal?: Terminal;
}

export interface UpdateResponse {
  accepted: true;
  duplicate: boolean;
  cancel: boolean;
}

export interface DrainAckRequest {
  runner: string;
  held: string[];
}

export interface DrainAckResponse {
  acknowledged: true;
}

export interface CapacityResponse {
  running: number;
  max: number;
  draining?: boolean;
  runner?: string;
}

export type ErrorCode =
  | 'unauthorized'
  | 'bad-request'
  | 'not-found'
  | 'method-not-allowed'
  | 'too-large'
  | 'unknown-runner'
  | 'unknown-dispatch'
  | 'not-held'
  | 'dispatch-ended'
  | 'still-holding'
  | 'internal';

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown>[] };
}

export interface RequestOf {
  heartbeat: HeartbeatRequest;
  claim: ClaimRequest;
  update: UpdateRequest;
  'drain-ack': DrainAckRequest;
}

export interface ResponseOf {
  heartbeat: HeartbeatResponse;
  claim: ClaimResponse;
  update: UpdateResponse;
  'drain-ack': DrainAckResponse;
}

let compiled: Map<string, ValidateFunction> | undefined;

function validators(): Map<string, ValidateFunction> {
  if (compiled) return compiled;
  const ajv = new Ajv({ allErrors: true, strict: false });
  for (const schema of Object.values(SCHEMAS)) ajv.addSchema(schema);
  compiled = new Map();
  for (const name of Object.keys(SCHEMAS))
    compiled.set(name, ajv.getSchema(`${SCHEMA_BASE}${name}.schema.json`)!);
  return compiled;
}

export interface SchemaProblem {
  /** where, as a JSON pointer into the body */
  path: string;
  message: string;
  keyword: string;
  params: Record<string, unknown>;
}

/**
 * Checks a body against a named schema (`claim.request`, `dispatch`, ...): the problems, empty when
 * it fits.
 */
export function checkBody(name: string, body: unknown): SchemaProblem[] {
  const validate = validators().get(name);
  if (!validate) throw new Error(`no Kairoku protocol schema named "${name}"`);
  if (validate(body)) return [];
  return (validate.errors ?? []).slice(0, 50).map(problem);
}

function problem(error: ErrorObject): SchemaProblem {
  return {
    path: error.instancePath || '/',
    message: error.message ?? 'is invalid',
    keyword: error.keyword,
    params: error.params as Record<string, unknown>,
  };
}

/** The problems in one line each, for messages. */
export function describeProblems(problems: SchemaProblem[]): string {
  return problems.map((p) => `${p.path} ${p.message}`).join('; ');
}

export function errorBody(code: ErrorCode, message: string, details?: SchemaProblem[]): ErrorBody {
  const body: ErrorBody = { error: { code, message } };
  if (details?.length) body.error.details = details.map((d) => ({ ...d }));
  return body;
}

/** Cuts a text to `max` characters, marking the cut. */
export function bound(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A wildcard bind would put a listener on every interface: refused (RF-006). Judged without a
 * resolver, for allow-lists that decide at once; a listener resolves its host with
 * `resolveBindAddress`, which also sees through `0`, `0x0` or a name.
 */
export function isWildcard(host: string): boolean {
  return literalKind(host) === 'wildcard';
}

/** A loopback address or `localhost`, judged without a resolver (see `isWildcard`). */
export function isLoopback(host: string): boolean {
  return literalKind(host) === 'loopback';
}

/** Splits `HOST:PORT` (`[::1]:8080` for IPv6). */
export function parseHostPort(value: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]*)\]|([^:]*)):(\d{1,5})$/.exec(value.trim());
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port > 65535) return undefined;
  return { host: match[1] ?? match[2] ?? '', port };
}
