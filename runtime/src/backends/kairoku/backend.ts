import { randomUUID } from 'node:crypto';
import { isEnded, stepIr } from '@kairoku-playbook/machine';
import type { RunEvent } from '@kairoku-playbook/machine';
import type { Backend, BackendContext, BackendEffect } from '../../driver/backend.js';
import { reportService } from '../report-endpoint.js';
import type { ReportBinding, ReportEndpoint, StepReport } from '../report-endpoint.js';
import { buildDispatch, outputLines } from './dispatch.js';
import type { RunTarget, StartAgent, StartCheck } from './dispatch.js';
import {
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_MISS_LIMIT,
  LIMITS,
  bound,
  checkBody,
  describeProblems,
  errorBody,
} from './protocol.js';
import type {
  ClaimRequest,
  ClaimResponse,
  CuratedEvent,
  Dispatch,
  DrainAckRequest,
  ErrorCode,
  HeartbeatRequest,
  HeartbeatResponse,
  Route,
  Terminal,
  UpdateRequest,
  UpdateResponse,
} from './protocol.js';
import { endEvent } from './dispatch-end.js';
import { ReadyQueue } from './ready-queue.js';
import { dispatchView, newRunner, runnerView } from './records.js';
import type { DispatchEnd, DispatchRecord, DispatchView, RunnerRecord, RunnerView } from './records.js';
import { startKairokuServer } from './server.js';
import type { KairokuServer, KairokuServerOptions, ProtocolHandler } from './server.js';

export type { DispatchEnd, DispatchView, RunnerView } from './records.js';

/** How `listen` binds: what the address may be, and TLS. */
export type ListenOptions = Pick<
  KairokuServerOptions,
  'allowNonLoopback' | 'tls' | 'requireTlsOffLoopback' | 'allowWildcard' | 'publicUrl'
>;

export interface KairokuBackendOptions {
  /** the one app credential every runner presents (RF-011, RF-012), at least 16 characters */
  appToken: string;
  /** where runs' dispatches go unless `setTarget` says otherwise for a run */
  target: RunTarget;
  /** how often runners heartbeat (default 5 s) */
  heartbeatIntervalMs?: number;
  /** heartbeats a runner may miss before its dispatches are failed (default 3, RF-013) */
  missLimit?: number;
  /**
   * the step agents' report endpoint; without it, `listen` serves one on its own listener (`/mcp`).
   * Whoever starts one must send its reports to `acceptReport`.
   */
  reports?: ReportEndpoint;
  clock?: () => number;
  /** faults that belong to no run: a bad credential, a malformed request, an unknown dispatch */
  onFault?: (text: string) => void;
}

/** curated events kept per dispatch */
const EVENTS_KEPT = 200;
/**
 * Curated events of one dispatch written to the run's history (RF-003): the agent's messages, phase
 * changes and statuses (tool calls and results stay in the dispatch's view, denials are `tool-denied`
 * notes), at most this many; the runner's log has them all.
 */
const HISTORY_EVENTS_PER_DISPATCH = 30;
const HISTORY_KINDS: ReadonlySet<string> = new Set(['message', 'phase', 'status']);
/** ended dispatches kept for late updates and views, oldest dropped first */
const ENDED_KEPT = 10_000;
const AGENT_PREFIX = 'kairoku:';

/**
 * The `kairoku` backend (SPEC §6, docs/kairoku-protocol.md): the runtime holds the queue and runner
 * daemons dial out to claim from it. Each start-agent or start-check effect becomes a queued dispatch;
 * a claim hands one only to a runner that fits it; the runner's updates and terminal status come back
 * as run events. One backend serves any number of runs (it is keyed by run id), so one listener and
 * one queue serve a whole fleet.
 */
export class KairokuBackend implements Backend, ProtocolHandler {
  readonly name = 'kairoku';
  private readonly intervalMs: number;
  private readonly missLimit: number;
  private readonly clock: () => number;
  private readonly dispatchTable = new Map<string, DispatchRecord>();
  private readonly byAttempt = new Map<string, DispatchRecord>();
  private readonly ended: string[] = [];
  private readonly queue = new ReadyQueue<DispatchRecord>((d) => d.state === 'queued');
  private readonly runners = new Map<string, RunnerRecord>();
  private readonly contexts = new Map<string, BackendContext>();
  private readonly targets = new Map<string, RunTarget>();
  private reports: ReportEndpoint | undefined;
  private server: KairokuServer | undefined;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private minted = 0;

  constructor(private readonly options: KairokuBackendOptions) {
    this.intervalMs = options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS;
    this.missLimit = options.missLimit ?? DEFAULT_MISS_LIMIT;
    this.clock = options.clock ?? Date.now;
    this.reports = options.reports;
  }

  /**
   * Serves the runner routes on `host:port` (port 0 picks one) and, unless one was given, the step
   * agents' report endpoint on the same listener (`/mcp`), so an agent reaches it wherever its runner
   * reaches the app. The host is judged by what it resolves to (`resolveBindAddress`): loopback only
   * unless `allowNonLoopback` (or, with `requireTlsOffLoopback`, unless `tls`), and the wildcard only
   * by name and with TLS. Resolves to the app URL runners are given.
   */
  async listen(host = '127.0.0.1', port = 0, bind: ListenOptions = {}): Promise<string> {
    if (this.server) throw new Error(`already listening on ${this.server.url}`);
    const service = this.reports
      ? undefined
      : reportService({
          onReport: (binding, report) => this.acceptReport(binding, report),
          onRejected: (reason, binding) => {
            const context = binding ? this.contexts.get(binding.run) : undefined;
            if (context && binding)
              context.emit({
                type: 'note',
                kind: 'refused',
                step: binding.step,
                attempt: binding.attempt,
                text: `a report_step_result call was refused: ${reason}`,
              });
            else this.fault(`a step agent's report was refused: ${reason}`);
          },
        });
    const server = await startKairokuServer(this, {
      host,
      port,
      appToken: this.options.appToken,
      ...bind,
      ...(service ? { reports: service } : {}),
    });
    if (service)
      this.reports = {
        url: `${server.url}/mcp`,
        mint: service.mint,
        revoke: service.revoke,
        deny: service.deny,
        liveTokens: service.liveTokens,
        // The listener is the app's: it closes with the backend.
        close: () => Promise.resolve(),
      };
    this.server = server;
    this.sweeper = setInterval(() => this.sweep(), Math.max(10, Math.floor(this.intervalMs / 2)));
    this.sweeper.unref();
    return server.url;
  }

  /** the app URL, once listening */
  get url(): string | undefined {
    return this.server?.url;
  }

  /** the report endpoint step agents are given */
  get reportEndpoint(): ReportEndpoint | undefined {
    return this.reports;
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    for (const record of this.dispatchTable.values()) if (record.state !== 'ended') this.revoke(record);
    await this.server?.close();
    this.server = undefined;
  }

  /** Sends one run's dispatches to another repository or machine than the default target. */
  setTarget(run: string, target: RunTarget): void {
    this.targets.set(run, target);
  }

  /** Asks a runner to drain: it stops claiming, finishes what it holds and acknowledges. */
  drain(runner: string): boolean {
    const record = this.runners.get(runner);
    if (record) record.drain = true;
    return record !== undefined;
  }

  // ---- Backend ----------------------------------------------------------------------------------

  perform(effect: BackendEffect, context: BackendContext): void {
    const run = context.state().id;
    this.contexts.set(run, context);
    switch (effect.type) {
      case 'start-agent':
      case 'start-check':
        this.enqueue(effect, context);
        return;
      case 'stop-agent':
        this.stop(run, effect.step, effect.attempt);
        return;
      case 'remind-agent':
        // Never asked for: a dispatch whose process ended without a report is lost at once (the
        // process is gone, and relaunching a prompt is what RF-013 forbids).
        context.emit({
          type: 'agent-lost',
          step: effect.step,
          attempt: effect.attempt,
          reason: 'a Kairoku dispatch cannot be reminded: its process has ended',
        });
        return;
      case 'nudge-agent':
        context.emit({
          type: 'note',
          kind: 'backend',
          step: effect.step,
          attempt: effect.attempt,
          text: 'the nudge was not delivered: Kairoku runners take no messages during a dispatch (v1 has no steering)',
        });
        return;
      case 'open-gate':
      case 'close-gate':
      case 'wake-manager':
        return;
    }
  }

  agentExists(agent: string | undefined): boolean {
    if (agent === undefined || !agent.startsWith(AGENT_PREFIX)) return false;
    const record = this.dispatchTable.get(agent.slice(AGENT_PREFIX.length));
    return record !== undefined && record.state !== 'ended' && !record.canceled;
  }

  private enqueue(effect: StartAgent | StartCheck, context: BackendContext): void {
    const state = context.state();
    const target = this.targets.get(state.id) ?? this.options.target;
    const id = `d-${randomUUID()}`;
    let token: string | undefined;
    let document: Dispatch;
    try {
      if (effect.type === 'start-agent') {
        if (!this.reports) throw new Error('the kairoku backend has no report endpoint: call listen() first');
        const ir = stepIr(state, effect.step);
        const binding: ReportBinding = {
          run: state.id,
          step: effect.step,
          attempt: effect.attempt,
          outcomes: ir ? ir.outcomes.map((o) => o.name) : [],
          outputs: outputLines(ir),
        };
        token = this.reports.mint(binding);
        this.minted++;
      }
      document = buildDispatch(
        id,
        effect,
        state,
        target,
        token === undefined ? undefined : { url: this.reports!.url, token },
      );
      const problems = checkBody('dispatch', document);
      if (problems.length)
        throw new Error(`the dispatch does not fit its schema: ${describeProblems(problems)}`);
    } catch (error) {
      if (token !== undefined) {
        this.reports?.revoke(token);
      }
      const why = `could not queue a dispatch: ${(error as Error).message}`;
      context.emit({ type: 'agent-lost', step: effect.step, attempt: effect.attempt, reason: why });
      return;
    }
    const record: DispatchRecord = {
      id,
      run: state.id,
      step: effect.step,
      attempt: effect.attempt,
      kind: document.kind,
      readOnly: document.agent?.readOnly ?? false,
      repository: target.repository,
      machine: target.machine ?? null,
      document,
      state: 'queued',
      canceled: false,
      reported: false,
      lastSeq: 0,
      events: [],
      historyEvents: 0,
    };
    if (token !== undefined) record.token = token;
    this.dispatchTable.set(id, record);
    this.byAttempt.set(attemptKey(record.run, record.step, record.attempt), record);
    this.queue.push(record, record.repository, record.machine);
    context.emit({
      type: 'step-started',
      step: effect.step,
      attempt: effect.attempt,
      agent: `${AGENT_PREFIX}${id}`,
    });
  }

  private stop(run: string, step: string, attempt: number): void {
    const record = this.byAttempt.get(attemptKey(run, step, attempt));
    if (!record || record.state === 'ended' || record.canceled) return;
    record.canceled = true;
    this.revoke(record);
    // Queued: it simply never goes out. Held: the runner learns it on its next heartbeat or update
    // and tears it down; its terminal status then ends it here.
    if (record.state === 'queued') this.end(record, 'withdrawn', 'stopped before a runner claimed it');
  }

  // ---- reports from step agents -----------------------------------------------------------------

  /**
   * A step agent's report, from the report endpoint: fed to the run (its refusal goes back to the
   * agent). A read-only role's report is checked now and fed in only when the runner's worktree check
   * comes back clean with the dispatch's terminal status (SPEC §3.3).
   */
  acceptReport(binding: ReportBinding, report: StepReport): string | undefined {
    const record = this.byAttempt.get(attemptKey(binding.run, binding.step, binding.attempt));
    if (!record || record.state !== 'held' || record.canceled)
      return `step "${binding.step}" (attempt ${binding.attempt}) is not running on a runner any more`;
    const context = this.contexts.get(record.run);
    if (!context) return `run ${record.run} is not served by this backend`;
    const event: RunEvent = { type: 'report', step: record.step, attempt: record.attempt, ...report };
    if (record.readOnly) {
      if (record.heldReport) return `step "${record.step}" has already reported attempt ${record.attempt}`;
      const refusal = context.refusalOf(event);
      if (refusal !== undefined) {
        this.note(record, 'refused', `report from the agent was refused: ${refusal}`);
        return refusal;
      }
      record.heldReport = report;
      delete record.token; // the endpoint revokes it on this acceptance
      return undefined;
    }
    const refusal = context.submit(event);
    if (refusal === undefined) {
      record.reported = true;
      delete record.token;
    }
    return refusal;
  }

  // ---- the routes -------------------------------------------------------------------------------

  handle(route: Route, body: unknown): { status: number; body: unknown } {
    switch (route) {
      case 'heartbeat':
        return { status: 200, body: this.heartbeat(body as HeartbeatRequest) };
      case 'claim':
        return this.claim(body as ClaimRequest);
      case 'update':
        return this.update(body as UpdateRequest);
      case 'drain-ack':
        return this.drainAck(body as DrainAckRequest);
    }
  }

  fault(text: string, body?: unknown): void {
    // A malformed update that still names a dispatch we know is noted in that run too.
    const id = (body as { dispatch?: unknown } | undefined)?.dispatch;
    const record = typeof id === 'string' ? this.dispatchTable.get(id) : undefined;
    if (record) this.note(record, 'backend', text);
    this.options.onFault?.(text);
  }

  private heartbeat(request: HeartbeatRequest): HeartbeatResponse {
    const now = this.clock();
    let runner = this.runners.get(request.runner);
    if (!runner) {
      // What the heartbeat says is filled in below, as for a runner already known.
      runner = newRunner(request.runner, now);
      this.runners.set(runner.id, runner);
    }
    Object.assign(runner, {
      machine: request.machine,
      version: request.version,
      repositories: request.repositories,
      max: request.capacity.max,
      running: request.capacity.running,
      lastHeartbeat: now,
      draining: request.draining ?? false,
    });
    const listed = new Set(request.held);
    const cancel: string[] = [];
    for (const id of request.held) {
      const record = this.dispatchTable.get(id);
      if (!record || record.runner !== runner.id || record.state === 'ended' || record.canceled)
        cancel.push(id);
    }
    // What the app gave this runner more than an interval ago and the runner no longer lists is gone
    // from it (a lost claim response, a restarted runner): failed, never relaunched (RF-013).
    for (const id of [...runner.held]) {
      const record = this.dispatchTable.get(id)!;
      if (!listed.has(id) && now - (record.claimedAt ?? now) > this.intervalMs)
        this.end(record, 'lost', `runner ${runner.id} no longer holds it: failed, not relaunched (RF-013)`);
    }
    return { intervalMs: this.intervalMs, missLimit: this.missLimit, cancel, drain: runner.drain };
  }

  private claim(request: ClaimRequest): {
    status: number;
    body: ClaimResponse | ReturnType<typeof errorBody>;
  } {
    const runner = this.runners.get(request.runner);
    if (!runner)
      return refuse(
        409,
        'unknown-runner',
        `runner ${request.runner} is not known or missed its heartbeats: send a heartbeat, then claim`,
      );
    if (runner.drain || runner.draining) return { status: 200, body: { dispatches: [] } };
    const room = Math.min(
      request.free,
      LIMITS.dispatchesPerClaim,
      Math.max(0, runner.max - runner.held.size),
    );
    const taken = room > 0 ? this.queue.take(request.repositories, request.machine, room) : [];
    const now = this.clock();
    for (const record of taken) {
      record.state = 'held';
      record.runner = runner.id;
      record.claimedAt = now;
      runner.held.add(record.id);
    }
    return { status: 200, body: { dispatches: taken.map((d) => d.document) } };
  }

  private update(request: UpdateRequest): {
    status: number;
    body: UpdateResponse | ReturnType<typeof errorBody>;
  } {
    const record = this.dispatchTable.get(request.dispatch);
    if (!record) {
      const message = `dispatch ${request.dispatch} is not known to this app: tear it down`;
      this.options.onFault?.(`refused an update from runner ${request.runner}: ${message}`);
      return refuse(409, 'unknown-dispatch', message);
    }
    const what = `dispatch ${record.id} (${record.step}, attempt ${record.attempt})`;
    if (record.runner !== request.runner) {
      const holder = record.runner ? `runner ${record.runner} holds it` : 'no runner holds it';
      const message = `runner ${request.runner} does not hold ${what}: ${holder}`;
      this.note(record, 'backend', `refused an update: ${message}`);
      return refuse(409, 'not-held', message);
    }
    if (request.seq <= record.lastSeq)
      return { status: 200, body: { accepted: true, duplicate: true, cancel: record.canceled } };
    if (record.state === 'ended') {
      const message = `${what} has ended (${record.end}${record.reason ? `: ${record.reason}` : ''}): tear it down`;
      this.note(record, 'backend', `refused an update from runner ${request.runner}: ${message}`);
      return refuse(409, 'dispatch-ended', message);
    }
    record.lastSeq = request.seq;
    if (request.phase) record.phase = request.phase;
    for (const event of request.events) this.keepEvent(record, event);
    if (request.terminal) this.finish(record, request.terminal);
    return { status: 200, body: { accepted: true, duplicate: false, cancel: record.canceled } };
  }

  private drainAck(request: DrainAckRequest): { status: number; body: unknown } {
    const runner = this.runners.get(request.runner);
    const holding = [...(runner?.held ?? [])].filter((id) => this.dispatchTable.get(id)?.state !== 'ended');
    if (request.held.length || holding.length)
      return refuse(
        409,
        'still-holding',
        `runner ${request.runner} still holds ${[...new Set([...request.held, ...holding])].join(', ')}: finish or tear them down and report their terminal status first`,
      );
    this.runners.delete(request.runner);
    return { status: 200, body: { acknowledged: true } };
  }

  // ---- ends -------------------------------------------------------------------------------------

  /** Heartbeat expiry (RF-013): a runner silent past the miss limit loses its dispatches. */
  sweep(): void {
    const now = this.clock();
    const limit = this.intervalMs * this.missLimit;
    for (const runner of [...this.runners.values()]) {
      if (now - runner.lastHeartbeat <= limit) continue;
      this.runners.delete(runner.id);
      const why = `runner ${runner.id} missed its heartbeats (none for ${now - runner.lastHeartbeat} ms, the limit is ${this.missLimit} × ${this.intervalMs} ms): failed, not relaunched (RF-013)`;
      for (const id of [...runner.held]) this.end(this.dispatchTable.get(id)!, 'lost', why);
    }
    this.forgetEndedRuns();
  }

  /**
   * Lets go of the runs that ended with nothing of theirs still queued or held, so a long-lived
   * server does not keep every run it ever served (a restarted run brings its context back).
   */
  private forgetEndedRuns(): void {
    const busy = new Set<string>();
    for (const record of this.dispatchTable.values()) if (record.state !== 'ended') busy.add(record.run);
    for (const [run, context] of this.contexts)
      if (!busy.has(run) && isEnded(context.state().status)) this.contexts.delete(run);
  }

  /** Runs the backend still serves (tests, views). */
  get servedRuns(): string[] {
    return [...this.contexts.keys()];
  }

  private finish(record: DispatchRecord, terminal: Terminal): void {
    this.end(record, terminal.status, terminal.reason, terminal);
  }

  /** Ends a dispatch once: revokes its token, frees its runner's slot, and tells the run what happened. */
  private end(
    record: DispatchRecord,
    end: DispatchEnd,
    reason: string | undefined,
    terminal?: Terminal,
  ): void {
    if (record.state === 'ended') return;
    record.state = 'ended';
    record.end = end;
    if (reason !== undefined) record.reason = bound(reason, LIMITS.reason);
    if (record.runner) this.runners.get(record.runner)?.held.delete(record.id);
    this.revoke(record);
    this.byAttempt.delete(attemptKey(record.run, record.step, record.attempt));
    this.ended.push(record.id);
    if (this.ended.length > ENDED_KEPT) this.dispatchTable.delete(this.ended.shift()!);
    if (record.canceled) return;
    const event = endEvent(record, end, reason, terminal);
    const context = this.contexts.get(record.run);
    if (event && context) context.emit(event);
  }

  private revoke(record: DispatchRecord): void {
    if (record.token === undefined) return;
    this.reports?.revoke(record.token);
    delete record.token;
  }

  private keepEvent(record: DispatchRecord, event: CuratedEvent): void {
    record.events.push(event);
    if (record.events.length > EVENTS_KEPT) record.events.splice(0, record.events.length - EVENTS_KEPT);
    // RF-017: every denial is an event in the run's history.
    if (event.kind === 'denial') this.note(record, 'tool-denied', `tool call denied: ${event.text}`);
    else if (HISTORY_KINDS.has(event.kind) && record.historyEvents <= HISTORY_EVENTS_PER_DISPATCH) {
      record.historyEvents++;
      this.note(
        record,
        'agent',
        record.historyEvents > HISTORY_EVENTS_PER_DISPATCH
          ? `further events of dispatch ${record.id} are in its view and the runner's log, not here`
          : `${event.kind}: ${event.text}`,
      );
    }
  }

  private note(
    record: DispatchRecord,
    kind: 'refused' | 'backend' | 'tool-denied' | 'agent',
    text: string,
  ): void {
    this.contexts
      .get(record.run)
      ?.emit({ type: 'note', kind, text, step: record.step, attempt: record.attempt });
  }

  // ---- views ------------------------------------------------------------------------------------

  dispatches(run?: string): DispatchView[] {
    const views: DispatchView[] = [];
    for (const d of this.dispatchTable.values())
      if (run === undefined || d.run === run) views.push(dispatchView(d));
    return views;
  }

  runnerViews(): RunnerView[] {
    return [...this.runners.values()].map(runnerView);
  }

  /** tokens minted for dispatches, and how many of them are still live (none, once every run ends) */
  tokens(): { minted: number; live: number } {
    let live = 0;
    for (const d of this.dispatchTable.values()) if (d.token !== undefined) live++;
    return { minted: this.minted, live };
  }

  /** ready dispatches waiting for a runner */
  queued(): number {
    return this.queue.size();
  }
}

function attemptKey(run: string, step: string, attempt: number): string {
  return `${run}\n${step}\n${attempt}`;
}

function refuse(
  status: number,
  code: ErrorCode,
  message: string,
): { status: number; body: ReturnType<typeof errorBody> } {
  return { status, body: errorBody(code, message) };
}
