import { ReadOnlyGuard } from '../../worktree/read-only-guard.js';
import { StoredReadOnlyGuard } from '../../worktree/stored-guard.js';
import { CheckRunner } from '../../exec/check-runner.js';
import type { Backend, BackendContext, BackendEffect } from '../../driver/backend.js';
import { startReportEndpoint } from '../report-endpoint.js';
import type { ReportEndpoint, ReportHandlers } from '../report-endpoint.js';
import { adoptAgents } from './adopt.js';
import { Attempts } from './attempts.js';
import type { Tracked } from './attempts.js';
import { LABELS } from './backend-options.js';
import type { CheckExecutor, PaseoBackendOptions, StartCheck } from './backend-options.js';
import { PaseoClient, isObject } from './client.js';
import type { AgentUpdate, Log, PaseoError, StreamEvent } from './client.js';
import {
  agentInfo,
  createAgent,
  createAgentRequest,
  goneReason,
  listAgents,
  subscription,
} from './daemon-agents.js';
import type { AgentInfo } from './daemon-agents.js';
import type { StartAgent } from './first-message.js';
import { BUSY, TURN_ENDS, turnStartedAnyway } from './turns.js';
import { keepRunBranch, prepareWorktree, runBranch } from './worktree.js';

export { LABELS, MAX_TITLE, SYSTEM_PROMPT_PROVIDERS, agentTitle, providerOf } from './backend-options.js';
export type { CheckExecutor, PaseoBackendOptions, StartCheck } from './backend-options.js';

/**
 * The `paseo` backend (SPEC §6, seed 000): each agent step is a Paseo agent in the run's worktree,
 * labelled with its run, step and attempt, given the role's provider, model and instructions and the
 * step's first message, and the playbook's MCP server (only `report_step_result`, bound to its
 * attempt by a token of its own). Turn ends come from the `agent_stream` events every client
 * receives; a turn that ends without a report gives `agent-stopped` (the core answers with one
 * reminder, then the lost-agent rule). Check steps run locally in the worktree. Gates and the
 * manager's wake-ups (the host's) and archiving agents (serve's run-watch.ts) are not. See docs/paseo.md.
 */
export class PaseoBackend implements Backend {
  readonly name = 'paseo';
  private readonly attempts: Attempts;
  /** turn ends of agents whose create_agent_request has not been answered yet */
  private readonly early = new Map<string, StreamEvent['event']>();
  /** permission requests that came before the answer to create_agent_request, as turn ends may */
  private readonly earlyPermissions = new Map<string, StreamEvent['event']>();
  private readonly guard: ReadOnlyGuard;
  private checks: CheckExecutor | undefined;
  private readonly unsubscribe: (() => void)[] = [];
  /** connection drops so far: a turn begun before the last one may have ended unseen */
  private drops = 0;
  private closed = false;

  private constructor(
    private readonly options: PaseoBackendOptions,
    readonly client: PaseoClient,
    readonly endpoint: ReportEndpoint,
    /** the run's handlers on a shared endpoint, detached by `close` (undefined: the endpoint is its own) */
    private readonly detach: (() => void) | undefined,
    /** the run's folder: its Paseo worktree, or the workspace */
    readonly worktree: string,
    /** the run's branch when it has a worktree of its own */
    readonly branch: string | undefined,
    /** this run's agents as the daemon lists them (at connect, after each reconnection, and made since) */
    private known: Map<string, AgentInfo>,
    private readonly log: Log,
  ) {
    this.guard = new ReadOnlyGuard(
      worktree,
      options.snapshots !== undefined
        ? { guard: new StoredReadOnlyGuard(options.snapshots), run: options.runId }
        : undefined,
    );
    this.attempts = new Attempts(options.runId, endpoint, this.guard);
    this.unsubscribe.push(
      client.onStream((event) => this.onStream(event)),
      client.onAgentUpdate((update) => this.onAgentUpdate(update)),
      client.onDisconnect(() => {
        this.drops++;
      }),
      client.onReconnect(() => {
        this.resync().catch((error: unknown) => this.fault('after reconnecting', error));
      }),
      client.onFatal((error) => this.onFatal(error)),
    );
  }

  /**
   * Connects to the daemon, starts the report endpoint, prepares the run's worktree and lists the
   * run's existing agents. Rejects with a clear error when the daemon is down or refuses.
   */
  static async connect(options: PaseoBackendOptions): Promise<PaseoBackend> {
    const log = options.log ?? defaultLog;
    const client = await PaseoClient.connect({
      ...(options.connection ?? {}),
      host: options.host,
      ...(options.password !== undefined ? { password: options.password } : {}),
      log,
    });
    let endpoint: ReportEndpoint | undefined;
    let detach: (() => void) | undefined;
    try {
      // The endpoint comes first (its address goes into every agent's config); reports reach the
      // backend once it exists.
      const route: { backend?: PaseoBackend } = {};
      const handlers: ReportHandlers = {
        onReport: (binding, report) =>
          route.backend
            ? route.backend.attempts.onReport(binding, report)
            : 'the runtime is still starting; report again',
        onRejected: (reason, binding) => {
          if (binding && route.backend?.attempts.noteRejected(binding, reason)) return;
          log('warn', `paseo: a report was refused before it reached the run: ${reason}`);
        },
      };
      if (options.reports) {
        endpoint = options.reports;
        detach = options.reports.attach(options.runId, handlers);
      } else endpoint = await startReportEndpoint({ ...(options.endpoint ?? {}), ...handlers });
      let worktree = options.worktree ?? options.cwd;
      let branch: string | undefined;
      if (options.worktree === undefined && options.workspace === 'new-worktree') {
        const made = await prepareWorktree(client, {
          cwd: options.cwd,
          branch: options.branch ?? runBranch(options.playbook, options.runId),
          log,
        });
        worktree = made.path;
        branch = made.branch;
      } else if (options.workspace === 'new-worktree') {
        branch = options.branch ?? runBranch(options.playbook, options.runId);
      }
      const known = await listAgents(client, { [LABELS.run]: options.runId }, subscription(options.runId));
      route.backend = new PaseoBackend(options, client, endpoint, detach, worktree, branch, known, log);
      return route.backend;
    } catch (error) {
      if (detach) detach();
      else await endpoint?.close();
      await client.close();
      throw error;
    }
  }

  /**
   * Why the agent behind a handle is gone (archived in Paseo, or not on the daemon), or undefined
   * while it exists: the reason the lost-agent rule gives.
   */
  agentGone(agent: string | undefined): string | undefined {
    if (agent === undefined) return 'its agent was never acknowledged by Paseo';
    if (this.agentExists(agent)) return undefined;
    return goneReason(agent, this.known.get(agent));
  }

  /** Whether the agent behind a handle still exists on the daemon (not archived): the lost-agent rule. */
  agentExists(agent: string | undefined): boolean {
    if (agent === undefined) return false;
    if (this.checks?.has?.(agent)) return true;
    const info = this.known.get(agent);
    return info !== undefined && !info.archived;
  }

  perform(effect: BackendEffect, context: BackendContext): void {
    if (this.closed) return;
    switch (effect.type) {
      case 'start-agent': {
        const starting = this.startAgent(effect, context).catch((error: unknown) =>
          this.fault(`starting ${effect.step}`, error),
        );
        // close waits for creations under way, to stop the agents they make after it.
        this.starting.add(starting);
        // `starting` never rejects (its failure is logged above): this only forgets it once settled.
        void starting.finally(() => this.starting.delete(starting));
        return;
      }
      case 'start-check':
        this.startCheck(effect, context);
        return;
      case 'stop-agent':
        this.stop(effect.step, effect.attempt, effect.reason);
        return;
      case 'remind-agent':
      case 'nudge-agent':
        this.send(effect).catch((error: unknown) => this.fault(`messaging ${effect.step}`, error));
        return;
      case 'open-gate':
      case 'close-gate':
      case 'wake-manager':
        // The host's: gates are asked on the terminal or the panel, the manager is woken by the host.
        return;
    }
  }

  /**
   * After a restart of the runtime: watch the run's agents that outlived the old process. With a
   * persistent report endpoint (serve's, at the port the agent was given), its token is minted again
   * (the same token: an HMAC of its attempt under the store's key) and the attempt goes on as any
   * other: its report lands, and a turn that ended without one (while nothing watched) gets the
   * reminder. Otherwise it cannot report any more: one whose turn already ended is lost now, a running
   * one when its turn ends. A read-only role's agent is checked against the snapshot kept under the
   * store's home (`snapshots`), and lost the same way without one. (Agents that no longer exist are
   * lost by the store's recovery, through `agentExists`.)
   */
  adopt(context: BackendContext): void {
    adoptAgents(context, {
      known: this.known,
      attempts: this.attempts,
      endpoint: this.endpoint,
      guard: this.guard,
      drops: this.drops,
      log: this.log,
    });
  }

  /** Stops checks and closes the connection and the report endpoint; agents and the worktree stay. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.checks?.stopAll('the runtime is stopping');
    // A create_agent_request under way (the daemon can take seconds) makes an agent nobody will
    // watch: it is stopped once its answer comes (startAgent), within the request's timeout.
    await Promise.allSettled([...this.starting]);
    // A cancel sent just before (the run's own Ctrl-C, a timeout) still reaches the daemon.
    await Promise.allSettled([...this.cancels]);
    this.attempts.revokeAll();
    for (const stop of this.unsubscribe) stop();
    await this.client.close();
    // A shared endpoint is the host's: only this run's handlers leave it.
    if (this.detach) this.detach();
    else await this.endpoint.close();
  }

  // ---- agents -------------------------------------------------------------------------------------

  private async startAgent(effect: StartAgent, context: BackendContext): Promise<void> {
    const { step, attempt } = effect;
    this.attempts.retire(step, attempt);
    const tracked: Tracked = {
      step,
      attempt,
      kind: 'agent',
      phase: 'creating',
      readOnly: effect.readOnly,
      context,
      turnEpoch: this.drops,
    };
    this.attempts.add(tracked);
    if (effect.readOnly) {
      const unreadable = this.guard.begin(step, attempt);
      if (unreadable) {
        tracked.phase = 'done';
        context.emit(unreadable);
        return;
      }
    }
    const contract = this.attempts.mint(tracked, context.state());
    const request = createAgentRequest(effect, tracked.token!, contract, {
      options: this.options,
      endpointUrl: this.endpoint.url,
      worktree: this.worktree,
    });
    let agentId: string;
    try {
      agentId = await createAgent(
        this.client,
        request,
        { runId: this.options.runId, step, attempt },
        { timeoutMs: this.options.createTimeoutMs ?? 120_000, log: this.log },
      );
    } catch (error) {
      if (tracked.phase !== 'creating') return;
      this.attempts.lose(tracked, `Paseo could not create its agent: ${(error as Error).message}`);
      return;
    }
    this.attempts.bind(tracked, agentId);
    tracked.turnEpoch = this.drops;
    this.checkBranch();
    this.known.set(agentId, { status: 'running', labels: request.labels, archived: false });
    if (this.closed || tracked.phase === 'stopped') {
      // Stopped while Paseo was making it, or the runtime is stopping and nothing will watch it: its
      // first turn is already under way. Not awaited: cancel logs its own failure, and close waits
      // for the creations and then the cancels in flight.
      this.log('info', `paseo: stopping agent ${agentId} of ${step}, made after the attempt was stopped`);
      if (tracked.token) this.endpoint.revoke(tracked.token);
      // Not awaited: cancel logs its own failure, and close waits for it.
      void this.cancel(agentId);
      return;
    }
    if (tracked.phase !== 'creating') return;
    tracked.phase = 'turn';
    context.emit({ type: 'step-started', step, attempt, agent: agentId });
    this.log('info', `paseo: ${step} (attempt ${attempt}) is Paseo agent ${agentId}`);
    if (tracked.report && !tracked.readOnly) this.attempts.feedReport(tracked);
    const asked = this.earlyPermissions.get(agentId);
    if (asked) {
      this.earlyPermissions.delete(agentId);
      this.notePermission({ agentId, event: asked } as StreamEvent);
    }
    const early = this.early.get(agentId);
    if (early) {
      this.early.delete(agentId);
      this.turnEnded(tracked, early);
    }
  }

  /**
   * The run's branch after an agent was made in its worktree: a daemon that renames a worktree's
   * branch after its first agent's first message ("first agent branch auto-name") is undone, and said.
   */
  private checkBranch(): void {
    if (this.branch === undefined || this.worktree === this.options.cwd) return;
    try {
      keepRunBranch(this.worktree, this.branch, this.log);
    } catch (error) {
      this.log('error', `paseo: ${(error as Error).message}`);
    }
  }

  /** A reminder (`remind-agent`) or a nudge: a follow-up message in the agent's conversation. */
  private async send(
    effect: Extract<BackendEffect, { type: 'remind-agent' | 'nudge-agent' }>,
  ): Promise<void> {
    const tracked = this.attempts.get(effect.step, effect.attempt);
    if (!tracked?.agentId || tracked.phase === 'stopped' || tracked.phase === 'done') {
      this.log('warn', `paseo: no agent of ${effect.step} (attempt ${effect.attempt}) to send a message to`);
      return;
    }
    // A message un-archives an agent on the daemon: what a person archived in Paseo (which also
    // cancels its turn, the end this reminder answers) stays archived. Asked first, once per reminder.
    if (effect.type === 'remind-agent' && (await this.archivedNow(tracked.agentId))) {
      if (tracked.phase === 'idle')
        this.attempts.lose(tracked, goneReason(tracked.agentId, this.known.get(tracked.agentId)));
      return;
    }
    const before = tracked.phase;
    if (before === 'turn' && effect.type === 'nudge-agent') tracked.steered = true;
    if (before !== 'turn') {
      tracked.phase = 'turn';
      tracked.turnEpoch = this.drops;
    }
    let refused: string | undefined;
    const startsBefore = tracked.turnStarts ?? 0;
    try {
      const answer = await this.client.request('send_agent_message_request', {
        agentId: tracked.agentId,
        text: effect.message,
      });
      if (answer.accepted === false) {
        refused = String(answer.error ?? 'not accepted');
        // The daemon answers `accepted: false` ("Agent X failed to start") after a failed turn
        // although it dispatched the message and starts the turn: believe the agent, not the answer.
        const startedAnyway = await turnStartedAnyway(
          this.client,
          tracked.agentId,
          () => tracked.phase !== 'turn' || (tracked.turnStarts ?? 0) > startsBefore,
          { waitMs: this.options.startConfirmMs ?? 15_000, stopped: () => this.closed },
        );
        if (startedAnyway) {
          this.log(
            'info',
            `paseo: Paseo said the message to ${effect.step} was not accepted (${refused}), but its turn started`,
          );
          return;
        }
      }
    } catch (error) {
      refused = (error as Error).message;
    }
    if (refused === undefined || this.closed) return;
    if (effect.type === 'nudge-agent') {
      // A nudge that does not arrive leaves the attempt as it was.
      this.log('warn', `paseo: the nudge to ${effect.step} did not arrive: ${refused}`);
      tracked.steered = false;
      if (tracked.phase === 'turn' && before === 'idle') tracked.phase = 'idle';
      return;
    }
    if (tracked.phase !== 'turn') return;
    this.attempts.lose(
      tracked,
      `its reminder could not be delivered to Paseo agent ${tracked.agentId}: ${refused}`,
    );
  }

  private stop(step: string, attempt: number, reason: string): void {
    const tracked = this.attempts.get(step, attempt);
    if (!tracked) return;
    if (tracked.kind === 'check') {
      tracked.phase = 'done';
      this.checks?.stop(step, attempt, reason);
      return;
    }
    const before = tracked.phase;
    tracked.phase = 'stopped';
    if (tracked.token) this.endpoint.revoke(tracked.token);
    this.guard.forget(step, attempt);
    if (before === 'turn' && tracked.agentId) {
      this.log('info', `paseo: canceling the turn of ${step} (attempt ${attempt}): ${reason}`);
      // Not awaited: cancel logs its own failure, and close waits for the cancels in flight.
      void this.cancel(tracked.agentId);
    }
  }

  /** Stops an agent's turn; `close` waits for the cancels still in flight. */
  private cancel(agentId: string): Promise<void> {
    const sent = this.client.request('cancel_agent_request', { agentId }).then(
      () => undefined,
      (error: unknown) =>
        this.log('warn', `paseo: could not cancel agent ${agentId}: ${(error as Error).message}`),
    );
    this.cancels.add(sent);
    // `sent` never rejects (its failure is logged above): this only forgets it once settled.
    void sent.finally(() => this.cancels.delete(sent));
    return sent;
  }

  private readonly cancels = new Set<Promise<void>>();
  /** startAgent calls under way (their create_agent_request may not be answered yet) */
  private readonly starting = new Set<Promise<void>>();

  // ---- turn ends -------------------------------------------------------------------------------

  private onStream(stream: StreamEvent): void {
    if (this.closed) return;
    if (stream.event.type === 'turn_started') {
      const started = this.attempts.ofAgent(stream.agentId);
      if (started) started.turnStarts = (started.turnStarts ?? 0) + 1;
      return;
    }
    if (stream.event.type === 'permission_requested') {
      this.notePermission(stream);
      return;
    }
    if (!TURN_ENDS.has(stream.event.type)) return;
    const tracked = this.attempts.ofAgent(stream.agentId);
    if (!tracked) {
      // The answer to create_agent_request may come after the agent's first events.
      if (this.attempts.creating() && this.early.size < 1000) this.early.set(stream.agentId, stream.event);
      return;
    }
    if (stream.event.type === 'turn_canceled' && tracked.steered) {
      tracked.steered = false;
      return;
    }
    this.turnEnded(tracked, stream.event);
  }

  /**
   * A step agent waiting for a permission does nothing until someone answers it in Paseo (the
   * runtime never approves on its behalf): said in the run's history, so the person watching the run
   * knows why the step does not move (its timeout still applies).
   */
  private notePermission(stream: StreamEvent): void {
    const tracked = this.attempts.ofAgent(stream.agentId);
    if (!tracked) {
      if (this.attempts.creating() && this.earlyPermissions.size < 1000)
        this.earlyPermissions.set(stream.agentId, stream.event);
      return;
    }
    if (tracked.phase !== 'turn') return;
    const request = stream.event.request as { name?: unknown; title?: unknown; tool?: unknown } | undefined;
    const what = [request?.title, request?.name, request?.tool].find((v) => typeof v === 'string');
    tracked.context.emit({
      type: 'note',
      kind: 'backend',
      step: tracked.step,
      attempt: tracked.attempt,
      text: `the agent is waiting for a permission${what ? ` (${String(what)})` : ''}: answer it in Paseo`,
    });
  }

  /** The agent's turn ended (seen, or found on reconnection): feed the report, or say it stopped. */
  private turnEnded(tracked: Tracked, event: { type: string; [key: string]: unknown }): void {
    if (tracked.phase !== 'turn') return;
    tracked.phase = 'idle';
    tracked.steered = false;
    const { step, attempt, context } = tracked;
    if (tracked.orphan) {
      this.attempts.loseOrphan(tracked);
      return;
    }
    if (tracked.report) {
      const violated = tracked.readOnly ? this.guard.end(step, attempt) : undefined;
      this.attempts.end(tracked);
      if (violated) context.emit(violated);
      else this.attempts.feedReport(tracked);
      return;
    }
    if (tracked.readOnly) {
      const violated = this.guard.end(step, attempt, true);
      if (violated) {
        this.attempts.end(tracked);
        context.emit(violated);
        return;
      }
    }
    const why = event.type === 'turn_failed' && typeof event.error === 'string' ? `: ${event.error}` : '';
    this.log(
      'info',
      `paseo: ${step} (attempt ${attempt}) ended its turn without a report (${event.type}${why})`,
    );
    context.emit({ type: 'agent-stopped', step, attempt });
  }

  /**
   * The subscription's `agent_update`s: an agent of the run archived in Paseo (by a person, in its app)
   * is lost. On the daemon, archiving interrupts the running turn (`turn_canceled`), then marks the agent
   * archived and closes it about a second later; a turn begun in between (the reminder for the canceled
   * turn) is ended by the close without any stream event, so without this the run would wait on it.
   */
  private onAgentUpdate(update: AgentUpdate): void {
    if (this.closed || update.kind !== 'upsert') return;
    const id = String(update.agent.id);
    const info = agentInfo(update.agent);
    if (info.labels[LABELS.run] !== this.options.runId) return;
    this.known.set(id, info);
    const tracked = this.attempts.ofAgent(id);
    if (!info.archived || !tracked || (tracked.phase !== 'turn' && tracked.phase !== 'idle')) return;
    this.attempts.lose(tracked, goneReason(id, info));
  }

  /** Whether the daemon has the agent archived now (what it last said, else asked). */
  private async archivedNow(agentId: string): Promise<boolean> {
    if (this.known.get(agentId)?.archived) return true;
    try {
      const answer = await this.client.request('fetch_agent_request', { agentId });
      if (!isObject(answer.agent)) return false;
      const info = agentInfo(answer.agent);
      if (info.archived) this.known.set(agentId, info);
      return info.archived;
    } catch {
      // Not known: the reminder is sent, and says itself whether it arrived.
      return false;
    }
  }

  // ---- reconnection -----------------------------------------------------------------------------

  /**
   * After a reconnection: what happened while the connection was down. An agent the daemon no longer
   * has (it restarted without it, or it was archived) is lost; a turn begun before the drop that is no
   * longer running ended unseen, and is handled as if its end had been seen.
   */
  private async resync(): Promise<void> {
    const drops = this.drops;
    const agents = await listAgents(
      this.client,
      { [LABELS.run]: this.options.runId },
      subscription(this.options.runId),
    );
    if (this.closed) return;
    this.known = agents;
    for (const tracked of this.attempts.withAgents()) {
      if (tracked.phase !== 'turn' && tracked.phase !== 'idle') continue;
      const info = agents.get(tracked.agentId!);
      if (!info || info.archived) {
        this.attempts.lose(tracked, goneReason(tracked.agentId!, info));
        continue;
      }
      if (tracked.phase === 'turn' && tracked.turnEpoch < drops && !BUSY.has(info.status))
        this.turnEnded(tracked, { type: `turn ended while disconnected (${info.status})` });
    }
  }

  /** The client gave up (a refused password, an incompatible daemon): the agents cannot be watched. */
  private onFatal(error: PaseoError): void {
    if (this.closed) return;
    for (const tracked of this.attempts.all()) {
      if (tracked.kind !== 'agent' || tracked.phase === 'stopped' || tracked.phase === 'done') continue;
      this.attempts.lose(tracked, `the runtime lost the Paseo daemon: ${error.message}`);
    }
  }

  // ---- checks -----------------------------------------------------------------------------------

  private startCheck(effect: StartCheck, context: BackendContext): void {
    this.attempts.retire(effect.step, effect.attempt);
    this.attempts.add({
      step: effect.step,
      attempt: effect.attempt,
      kind: 'check',
      phase: 'turn',
      readOnly: false,
      context,
      turnEpoch: this.drops,
    });
    this.checks ??= this.options.checks
      ? this.options.checks(this.worktree)
      : new CheckRunner({ worktree: this.worktree });
    this.checks.start(effect, context);
  }

  // ---- bookkeeping ------------------------------------------------------------------------------

  private fault(what: string, error: unknown): void {
    this.log('error', `paseo: failed ${what}: ${(error as Error).stack ?? String(error)}`);
  }
}

function defaultLog(level: string, message: string): void {
  if (level === 'warn' || level === 'error') process.stderr.write(`kairoku-playbook: ${message}\n`);
}
