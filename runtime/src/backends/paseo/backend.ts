/* eslint-disable max-lines -- over the bound when the rule came in (2026-12-06): to be split, issue 22 */
import { stepIr, stepRun } from '@kairoku-playbook/machine';
import type { Effect, RunEvent, RunState } from '@kairoku-playbook/machine';
import { ReadOnlyGuard } from '../../worktree/read-only-guard.js';
import { CheckRunner } from '../../exec/check-runner.js';
import type { Backend, BackendContext, BackendEffect } from '../../driver/backend.js';
import { startReportEndpoint } from '../report-endpoint.js';
import type {
  ReportBinding,
  ReportEndpoint,
  ReportHandlers,
  SharedReportEndpoint,
  StepReport,
} from '../report-endpoint.js';
import { PaseoClient, PaseoError, createdAgentId, isObject } from './client.js';
import type { AgentUpdate, Log, Payload, PaseoClientOptions, StreamEvent } from './client.js';
import { MCP_SERVER_NAME, firstMessage } from './first-message.js';
import type { ReportContract, StartAgent } from './first-message.js';
import { BUSY, TURN_ENDS, turnStartedAnyway } from './turns.js';
import { keepRunBranch, prepareWorktree, runBranch } from './worktree.js';

export type StartCheck = Extract<Effect, { type: 'start-check' }>;

/** Runs check steps' commands (the runtime's `CheckRunner`, or a stand-in in tests). */
export interface CheckExecutor {
  start(effect: StartCheck, context: BackendContext): void;
  stop(step: string, attempt: number, reason: string): void;
  stopAll(reason: string): void | Promise<void>;
  /** whether the check behind a handle is still going */
  has?(agent: string | undefined): boolean;
}

export interface PaseoBackendOptions {
  /** the daemon: `HOST:PORT` (PASEO_HOST), default port 6767 */
  host: string;
  /** PASEO_PASSWORD, offered as the subprotocol `paseo.bearer.<password>` */
  password?: string;
  /** the workspace: the folder the run was started in */
  cwd: string;
  /** the playbook's `workspace:`; `new-worktree` gives the run a Paseo worktree of its own */
  workspace: 'current' | 'new-agent' | 'new-worktree';
  runId: string;
  /** the playbook's id */
  playbook: string;
  /** the run's branch for `new-worktree` (default `playbooks/<playbook>-<short id>`) */
  branch?: string;
  /** the run's worktree when it is already known (a run taken up again): nothing is made */
  worktree?: string;
  /** the manager's Paseo agent: step agents are labelled its children (`paseo.parent-agent-id`) */
  parentAgentId?: string;
  /** the provider of roles and steps that name none (default `claude`) */
  defaultProvider?: string;
  /** providers named by the playbook sent to another instead (`claude` → `codex`), as the CLI's `--paseo-provider FROM=TO` */
  providerMap?: Readonly<Record<string, string>>;
  /** the model of roles and steps that name none (default: the provider's own default) */
  defaultModel?: string;
  /**
   * after `send_agent_message_response {accepted: false}`, how long to look for the turn it may have
   * started all the same (default 15 s, the daemon's own wait for a run to start)
   */
  startConfirmMs?: number;
  /**
   * how long create_agent_request may take to answer (default 120 s): the daemon answers only once the
   * agent's process has started, which took 3 to 72 s (median 15 s) on a loaded 2-core machine
   */
  createTimeoutMs?: number;
  /** where the report endpoint listens (loopback only; port 0, the default, picks a free one) */
  endpoint?: { host?: string; port?: number };
  /**
   * a report endpoint shared by every run of a long-lived host (serve), used instead of one of the
   * backend's own (`endpoint` is then ignored): the backend attaches its run to it and never closes
   * it. When it is persistent, the agents `adopt` takes up after a restart report to it again.
   */
  reports?: SharedReportEndpoint;
  /** makes the runner of check steps, given the run's worktree (default: the runtime's `CheckRunner`) */
  checks?: (cwd: string) => CheckExecutor;
  /** timeouts and reconnection of the daemon connection */
  connection?: Pick<PaseoClientOptions, 'requestTimeoutMs' | 'handshakeTimeoutMs' | 'reconnect' | 'clientId'>;
  /** default: warnings and errors to standard error */
  log?: Log;
}

export const LABELS = {
  run: 'kairoku.run',
  playbook: 'kairoku.playbook',
  step: 'kairoku.step',
  attempt: 'kairoku.attempt',
  /** the port of the report endpoint the agent was given: whether a restarted runtime is still there */
  reportPort: 'kairoku.report-port',
  parent: 'paseo.parent-agent-id',
} as const;

/**
 * Paseo's providers that pass `config.systemPrompt` to the model (claude, codex, opencode, pi; read
 * off the daemon's providers). The others (copilot, and custom providers, which speak ACP) ignore it.
 */
export const SYSTEM_PROMPT_PROVIDERS: ReadonlySet<string> = new Set(['claude', 'codex', 'opencode', 'pi']);

/** A step's provider on Paseo: the one it (or its role) names, as mapped, else the default. */
export function providerOf(
  named: string | null,
  options: Pick<PaseoBackendOptions, 'defaultProvider' | 'providerMap'>,
): string {
  if (!named) return options.defaultProvider ?? 'claude';
  return options.providerMap?.[named] ?? named;
}

/** Paseo's limit on an explicit agent title. */
export const MAX_TITLE = 40;

/**
 * - `creating`: create_agent_request sent, no agent id yet
 * - `turn`: the agent's turn runs (after its first message, a reminder or a nudge)
 * - `idle`: its turn ended without a report; a reminder may follow
 * - `stopped`: stop-agent (cancel, timeout, loop reset): nothing it does counts any more
 * - `done`: the attempt's part is over (reported, lost, violated, or a newer attempt began)
 */
type Phase = 'creating' | 'turn' | 'idle' | 'stopped' | 'done';

interface Tracked {
  step: string;
  attempt: number;
  kind: 'agent' | 'check';
  phase: Phase;
  readOnly: boolean;
  context: BackendContext;
  agentId?: string;
  token?: string;
  /** the accepted report, fed to the run when its turn ends (read-only roles) or once it has started */
  report?: { event: Extract<RunEvent, { type: 'report' }>; fed: boolean };
  /** the connection drops counted when the current turn began (see `resync`) */
  turnEpoch: number;
  /** a nudge was sent during the turn: a `turn_canceled` that follows is the steer, not the end */
  steered?: boolean;
  /** an agent of an earlier process of the runtime that cannot report here: why, as the reason it is lost */
  orphan?: string;
  /** `turn_started` events seen from its agent (whether a message started a turn after all) */
  turnStarts?: number;
}

interface AgentInfo {
  status: string;
  labels: Record<string, string>;
  archived: boolean;
}

/**
 * The `paseo` backend (SPEC §6, seed 000): each agent step is a Paseo agent in the run's worktree,
 * labelled with its run, step and attempt, given the role's provider, model and instructions and the
 * step's first message, and the playbook's MCP server (only `report_step_result`, bound to its
 * attempt by a token of its own). Turn ends come from the `agent_stream` events every client
 * receives; a turn that ends without a report gives `agent-stopped` (the core answers with one
 * reminder, then the lost-agent rule). Check steps run locally in the worktree. Gates and the
 * manager's wake-ups are the host's, not this backend's. Agents and the worktree stay when the run
 * ends: nothing is ever archived. See docs/paseo.md.
 */
export class PaseoBackend implements Backend {
  readonly name = 'paseo';
  private readonly attempts = new Map<string, Tracked>();
  private readonly byAgent = new Map<string, Tracked>();
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
    this.guard = new ReadOnlyGuard(worktree);
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
            ? route.backend.onReport(binding, report)
            : 'the runtime is still starting; report again',
        onRejected: (reason, binding) => {
          if (binding && route.backend?.noteRejected(binding, reason)) return;
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
   * one when its turn ends. A read-only role's agent is lost the same way: the snapshot its report
   * would be checked against died with the old process. (Agents that no longer exist are lost by the
   * store's recovery, through `agentExists`.)
   */
  adopt(context: BackendContext): void {
    const state = context.state();
    for (const [agentId, info] of this.known) {
      if (this.byAgent.has(agentId) || info.archived) continue;
      const name = info.labels[LABELS.step];
      const attempt = Number(info.labels[LABELS.attempt]);
      const run = name === undefined ? undefined : stepRun(state, name);
      const current = run?.attempts[run.attempts.length - 1];
      if (!run || run.status !== 'running' || current?.attempt !== attempt || current.agent !== agentId)
        continue;
      const contract = contractOf(state, name!);
      const orphan = this.cannotReport(agentId, info, stepIr(state, name!)?.readOnly === true);
      const tracked: Tracked = {
        step: name!,
        attempt,
        kind: 'agent',
        phase: BUSY.has(info.status) ? 'turn' : 'idle',
        readOnly: false,
        context,
        agentId,
        turnEpoch: this.drops,
        ...(orphan !== undefined ? { orphan } : {}),
      };
      this.attempts.set(key(tracked.step, attempt), tracked);
      this.byAgent.set(agentId, tracked);
      if (orphan !== undefined) {
        if (tracked.phase === 'idle') this.loseOrphan(tracked);
        continue;
      }
      tracked.token = this.endpoint.mint({
        run: this.options.runId,
        step: tracked.step,
        attempt,
        ...(contract ? { outcomes: contract.outcomes, outputs: contract.outputs } : {}),
      });
      this.log('info', `paseo: ${tracked.step} (attempt ${attempt}) is Paseo agent ${agentId}, taken up`);
      if (tracked.phase === 'idle') {
        // Its turn ended while no runtime watched: a report it tried then found no endpoint.
        this.log(
          'info',
          `paseo: ${tracked.step} (attempt ${attempt}) ended its turn while the runtime was down`,
        );
        context.emit({ type: 'agent-stopped', step: tracked.step, attempt });
      }
    }
  }

  /** Why an adopted agent cannot report to this runtime, or undefined when it can. */
  private cannotReport(agentId: string, info: AgentInfo, readOnly: boolean): string | undefined {
    const lost = `Paseo agent ${agentId} outlived a restart of the runtime`;
    if (!this.endpoint.persistent) return `${lost}, and with it the token it reports with`;
    const given = info.labels[LABELS.reportPort];
    const here = new URL(this.endpoint.url).port;
    if (given !== here)
      return given === undefined
        ? `${lost}, and with it the token it reports with (it was not given this runtime's report endpoint)`
        : `${lost}: it reports to port ${given}, and the report endpoint listens on ${here} now (${given} was taken)`;
    if (readOnly)
      return `${lost}: its read-only role's report cannot be checked (the worktree's snapshot from its start died with the old process)`;
    return undefined;
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
    for (const tracked of this.attempts.values()) if (tracked.token) this.endpoint.revoke(tracked.token);
    for (const stop of this.unsubscribe) stop();
    await this.client.close();
    // A shared endpoint is the host's: only this run's handlers leave it.
    if (this.detach) this.detach();
    else await this.endpoint.close();
  }

  // ---- agents -------------------------------------------------------------------------------------

  private async startAgent(effect: StartAgent, context: BackendContext): Promise<void> {
    const { step, attempt } = effect;
    this.retire(step, attempt);
    const tracked: Tracked = {
      step,
      attempt,
      kind: 'agent',
      phase: 'creating',
      readOnly: effect.readOnly,
      context,
      turnEpoch: this.drops,
    };
    this.attempts.set(key(step, attempt), tracked);
    if (effect.readOnly) {
      const unreadable = this.guard.begin(step, attempt);
      if (unreadable) {
        tracked.phase = 'done';
        context.emit(unreadable);
        return;
      }
    }
    const contract = contractOf(context.state(), step);
    tracked.token = this.endpoint.mint({
      run: this.options.runId,
      step,
      attempt,
      ...(contract ? { outcomes: contract.outcomes, outputs: contract.outputs } : {}),
    });
    const request = this.createRequest(effect, tracked.token, contract);
    let agentId: string;
    try {
      agentId = await this.create(request, step, attempt);
    } catch (error) {
      if (tracked.phase !== 'creating') return;
      this.end(tracked);
      context.emit({
        type: 'agent-lost',
        step,
        attempt,
        reason: `Paseo could not create its agent: ${(error as Error).message}`,
      });
      return;
    }
    tracked.agentId = agentId;
    tracked.turnEpoch = this.drops;
    this.checkBranch();
    this.byAgent.set(agentId, tracked);
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
    if (tracked.report && !tracked.readOnly) this.feedReport(tracked);
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

  private createRequest(
    effect: StartAgent,
    token: string,
    contract: ReportContract | undefined,
  ): Payload & { labels: Record<string, string> } {
    const labels: Record<string, string> = {
      [LABELS.run]: this.options.runId,
      [LABELS.playbook]: this.options.playbook,
      [LABELS.step]: effect.step,
      [LABELS.attempt]: String(effect.attempt),
      [LABELS.reportPort]: new URL(this.endpoint.url).port,
    };
    if (this.options.parentAgentId) labels[LABELS.parent] = this.options.parentAgentId;
    const instructions = effect.role.instructions?.trim();
    const provider = providerOf(effect.provider, this.options);
    const model = effect.model ?? this.options.defaultModel;
    const config: Payload = {
      provider,
      cwd: this.worktree,
      title: agentTitle(effect.title, effect.attempt),
      ...(model ? { model } : {}),
      ...(effect.role.mode ? { modeId: effect.role.mode } : {}),
      ...(instructions ? { systemPrompt: instructions } : {}),
      mcpServers: {
        [MCP_SERVER_NAME]: {
          type: 'http',
          url: this.endpoint.url,
          headers: { Authorization: `Bearer ${token}` },
        },
      },
    };
    // Providers spoken to over ACP (copilot, custom `extends: "acp"` ones) ignore systemPrompt: the
    // role's instructions open their first message instead.
    const inMessage = Boolean(instructions) && !SYSTEM_PROMPT_PROVIDERS.has(provider);
    return { config, initialPrompt: firstMessage(effect, contract, { instructions: inMessage }), labels };
  }

  /**
   * create_agent_request; when the connection drops before the answer, the daemon may or may not
   * have made the agent, so it is looked for by its labels once the connection is back, and asked for
   * again only when it is not there. An answer that does not come in time is looked for the same way
   * (the daemon may have made the agent, which then works): found, it is watched; not found, the
   * attempt fails, without asking again (the daemon may still be making it).
   */
  private async create(request: Payload, step: string, attempt: number): Promise<string> {
    const byLabels = async () => {
      const found = await listAgents(this.client, {
        [LABELS.run]: this.options.runId,
        [LABELS.step]: step,
        [LABELS.attempt]: String(attempt),
      });
      return [...found].find(([, info]) => !info.archived)?.[0];
    };
    for (let tries = 0; ; tries++) {
      try {
        const answer = await this.client.request('create_agent_request', request, {
          timeoutMs: this.options.createTimeoutMs ?? 120_000,
        });
        if (answer.status === 'agent_create_failed')
          throw new PaseoError(`${String(answer.error ?? 'agent_create_failed')}`, {
            ...(typeof answer.errorCode === 'string' ? { code: answer.errorCode } : {}),
          });
        const agentId = createdAgentId(answer);
        if (!agentId) throw new PaseoError('the daemon answered create_agent_request without an agent id');
        return agentId;
      } catch (error) {
        if (!(error instanceof PaseoError)) throw error;
        if (error.details.timedOut) {
          const existing = await byLabels();
          if (existing) {
            this.log(
              'warn',
              `paseo: ${step}'s agent ${existing} was made, but Paseo answered too late (${error.message})`,
            );
            return existing;
          }
          throw error;
        }
        if (!error.details.connectionLost || tries > 0) throw error;
        const existing = await byLabels();
        if (existing) return existing;
      }
    }
  }

  /** A reminder (`remind-agent`) or a nudge: a follow-up message in the agent's conversation. */
  private async send(
    effect: Extract<BackendEffect, { type: 'remind-agent' | 'nudge-agent' }>,
  ): Promise<void> {
    const tracked = this.attempts.get(key(effect.step, effect.attempt));
    if (!tracked?.agentId || tracked.phase === 'stopped' || tracked.phase === 'done') {
      this.log('warn', `paseo: no agent of ${effect.step} (attempt ${effect.attempt}) to send a message to`);
      return;
    }
    // A message un-archives an agent on the daemon: what a person archived in Paseo (which also
    // cancels its turn, the end this reminder answers) stays archived. Asked first, once per reminder.
    if (effect.type === 'remind-agent' && (await this.archivedNow(tracked.agentId))) {
      if (tracked.phase === 'idle')
        this.lose(tracked, goneReason(tracked.agentId, this.known.get(tracked.agentId)));
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
    this.end(tracked);
    tracked.context.emit({
      type: 'agent-lost',
      step: tracked.step,
      attempt: tracked.attempt,
      reason: `its reminder could not be delivered to Paseo agent ${tracked.agentId}: ${refused}`,
    });
  }

  private stop(step: string, attempt: number, reason: string): void {
    const tracked = this.attempts.get(key(step, attempt));
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

  // ---- reports and turn ends --------------------------------------------------------------------

  /** A report refused for its revoked token, written into the run's history; false when the attempt is unknown. */
  private noteRejected(binding: ReportBinding, reason: string): boolean {
    const tracked =
      binding.run === this.options.runId ? this.attempts.get(key(binding.step, binding.attempt)) : undefined;
    if (!tracked) return false;
    tracked.context.emit({
      type: 'note',
      kind: 'refused',
      step: binding.step,
      attempt: binding.attempt,
      text: `a report_step_result call was refused: ${reason}`,
    });
    return true;
  }

  /**
   * A report from the endpoint: the run's refusal, or undefined when it is taken. It is submitted to
   * the run at once, unless it must wait: a read-only role's report waits for the end of its turn and
   * the git check (seed 000), and any report for an agent Paseo has not acknowledged yet waits for its
   * `step-started`. A report that waits is judged now (`refusalOf`, the driver's answer on the run as
   * it is) and fed later; a refused one is fed all the same, so the run records the refusal.
   */
  private onReport(binding: ReportBinding, report: StepReport): string | undefined {
    if (binding.run !== this.options.runId)
      return `this token belongs to run ${binding.run}, not to this one`;
    const tracked = this.attempts.get(key(binding.step, binding.attempt));
    if (!tracked || tracked.phase === 'stopped' || tracked.phase === 'done')
      return `attempt ${binding.attempt} of ${binding.step} has ended: its report is not taken`;
    if (tracked.report) return `attempt ${binding.attempt} of ${binding.step} has already reported`;
    const event: Extract<RunEvent, { type: 'report' }> = {
      type: 'report',
      step: binding.step,
      attempt: binding.attempt,
      outcome: report.outcome,
      ...(report.summary !== undefined ? { summary: report.summary } : {}),
      ...(report.outputs !== undefined ? { outputs: report.outputs } : {}),
    };
    if (tracked.readOnly || tracked.phase === 'creating') {
      const refusal = tracked.context.refusalOf(event);
      if (refusal !== undefined) {
        tracked.context.emit(event);
        return refusal;
      }
      tracked.report = { event, fed: false };
      return undefined;
    }
    // Set first: what the report sets off (a stop of this attempt, say) already sees it taken.
    tracked.report = { event, fed: true };
    const refusal = tracked.context.submit(event);
    if (refusal !== undefined) delete tracked.report;
    return refusal;
  }

  private feedReport(tracked: Tracked): void {
    if (!tracked.report || tracked.report.fed) return;
    tracked.report.fed = true;
    tracked.context.emit(tracked.report.event);
  }

  private onStream(stream: StreamEvent): void {
    if (this.closed) return;
    if (stream.event.type === 'turn_started') {
      const started = this.byAgent.get(stream.agentId);
      if (started) started.turnStarts = (started.turnStarts ?? 0) + 1;
      return;
    }
    if (stream.event.type === 'permission_requested') {
      this.notePermission(stream);
      return;
    }
    if (!TURN_ENDS.has(stream.event.type)) return;
    const tracked = this.byAgent.get(stream.agentId);
    if (!tracked) {
      // The answer to create_agent_request may come after the agent's first events.
      if (this.creating() && this.early.size < 1000) this.early.set(stream.agentId, stream.event);
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
    const tracked = this.byAgent.get(stream.agentId);
    if (!tracked) {
      if (this.creating() && this.earlyPermissions.size < 1000)
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
      this.loseOrphan(tracked);
      return;
    }
    if (tracked.report) {
      const violated = tracked.readOnly ? this.guard.end(step, attempt) : undefined;
      this.end(tracked);
      if (violated) context.emit(violated);
      else this.feedReport(tracked);
      return;
    }
    if (tracked.readOnly) {
      const violated = this.guard.end(step, attempt, true);
      if (violated) {
        this.end(tracked);
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

  private loseOrphan(tracked: Tracked): void {
    this.end(tracked);
    tracked.context.emit({
      type: 'agent-lost',
      step: tracked.step,
      attempt: tracked.attempt,
      reason: tracked.orphan!,
    });
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
    const tracked = this.byAgent.get(id);
    if (!info.archived || !tracked || (tracked.phase !== 'turn' && tracked.phase !== 'idle')) return;
    this.lose(tracked, goneReason(id, info));
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

  private lose(tracked: Tracked, reason: string): void {
    this.end(tracked);
    tracked.context.emit({ type: 'agent-lost', step: tracked.step, attempt: tracked.attempt, reason });
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
    for (const tracked of this.byAgent.values()) {
      if (tracked.phase !== 'turn' && tracked.phase !== 'idle') continue;
      const info = agents.get(tracked.agentId!);
      if (!info || info.archived) {
        this.end(tracked);
        tracked.context.emit({
          type: 'agent-lost',
          step: tracked.step,
          attempt: tracked.attempt,
          reason: goneReason(tracked.agentId!, info),
        });
        continue;
      }
      if (tracked.phase === 'turn' && tracked.turnEpoch < drops && !BUSY.has(info.status))
        this.turnEnded(tracked, { type: `turn ended while disconnected (${info.status})` });
    }
  }

  /** The client gave up (a refused password, an incompatible daemon): the agents cannot be watched. */
  private onFatal(error: PaseoError): void {
    if (this.closed) return;
    for (const tracked of this.attempts.values()) {
      if (tracked.kind !== 'agent' || tracked.phase === 'stopped' || tracked.phase === 'done') continue;
      this.end(tracked);
      tracked.context.emit({
        type: 'agent-lost',
        step: tracked.step,
        attempt: tracked.attempt,
        reason: `the runtime lost the Paseo daemon: ${error.message}`,
      });
    }
  }

  // ---- checks -----------------------------------------------------------------------------------

  private startCheck(effect: StartCheck, context: BackendContext): void {
    this.retire(effect.step, effect.attempt);
    this.attempts.set(key(effect.step, effect.attempt), {
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

  /** The attempt's part is over: its token is revoked, its read-only snapshot dropped. */
  private end(tracked: Tracked): void {
    tracked.phase = 'done';
    if (tracked.token) this.endpoint.revoke(tracked.token);
    this.guard.forget(tracked.step, tracked.attempt);
  }

  /** Whether an agent is being made (its events may come before the answer that names it). */
  private creating(): boolean {
    for (const tracked of this.attempts.values()) if (tracked.phase === 'creating') return true;
    return false;
  }

  /** A new attempt of a step begins: what is left of its earlier ones is dropped. */
  private retire(step: string, attempt: number): void {
    for (const [k, tracked] of this.attempts) {
      if (tracked.step !== step || tracked.attempt >= attempt) continue;
      if (tracked.phase !== 'stopped') this.end(tracked);
      else if (tracked.token) this.endpoint.revoke(tracked.token);
      this.attempts.delete(k);
    }
  }

  private fault(what: string, error: unknown): void {
    this.log('error', `paseo: failed ${what}: ${(error as Error).stack ?? String(error)}`);
  }
}

/** Why an agent is gone, from what the daemon lists (an archived agent is listed, marked). */
function goneReason(agentId: string, info: AgentInfo | undefined): string {
  return info?.archived
    ? `Paseo agent ${agentId} was archived`
    : `the Paseo daemon no longer has agent ${agentId} (it restarted without it)`;
}

/**
 * The daemon's agents with these labels (archived ones included, marked), by id. The daemon leaves
 * archived agents out of `fetch_agents_request` unless the filter asks for them (`includeArchived`).
 */
async function listAgents(
  client: PaseoClient,
  labels: Record<string, string>,
  subscriptionId?: string,
): Promise<Map<string, AgentInfo>> {
  const agents = new Map<string, AgentInfo>();
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const answer = await client.request('fetch_agents_request', {
      filter: { labels, includeArchived: true },
      // With `subscribe`, the daemon sends this session an `agent_update` whenever one of these agents
      // changes (one subscription per session: the backend's own connection).
      ...(subscriptionId && page === 0 ? { subscribe: { subscriptionId } } : {}),
      ...(cursor ? { page: { limit: 200, cursor } } : {}),
    });
    // Newer daemons answer `entries: [{agent, project}]`, older ones `agents: [agent]`.
    const rows = Array.isArray(answer.entries)
      ? answer.entries.map((e: unknown) => (isObject(e) ? e.agent : undefined))
      : Array.isArray(answer.agents)
        ? answer.agents
        : [];
    for (const row of rows) {
      if (!isObject(row) || typeof row.id !== 'string') continue;
      const rowLabels = isObject(row.labels) ? (row.labels as Record<string, string>) : {};
      // A daemon that ignores the filter must not hand this run another run's agents.
      if (Object.entries(labels).some(([name, value]) => rowLabels[name] !== value)) continue;
      agents.set(row.id, agentInfo(row));
    }
    const info = isObject(answer.pageInfo) ? answer.pageInfo : undefined;
    if (!info?.hasMore || typeof info.nextCursor !== 'string') break;
    cursor = info.nextCursor;
  }
  return agents;
}

/** What the backend keeps of an agent the daemon lists or updates. */
function agentInfo(row: Record<string, unknown>): AgentInfo {
  return {
    status: typeof row.status === 'string' ? row.status : 'unknown',
    labels: isObject(row.labels) ? (row.labels as Record<string, string>) : {},
    archived: typeof row.archivedAt === 'string' && row.archivedAt.length > 0,
  };
}

/** The backend's subscription to its run's agents. */
function subscription(runId: string): string {
  return `kairoku-playbook:${runId}`;
}

/** The step's outcomes and outputs, for the first message and the tool's description. */
function contractOf(state: RunState, name: string): ReportContract | undefined {
  const ir = stepIr(state, name);
  if (!ir) return undefined;
  return { outcomes: ir.outcomes.map((o) => o.name), outputs: ir.outputs.map((o) => `${o.name}: ${o.type}`) };
}

/** The agent's title in Paseo: the step's title, `#N` after the first attempt, within Paseo's limit. */
export function agentTitle(title: string, attempt: number): string {
  const suffix = attempt > 1 ? ` #${attempt}` : '';
  const text = title.replace(/\s+/g, ' ').trim() || 'step';
  const room = MAX_TITLE - suffix.length;
  return `${text.length > room ? `${text.slice(0, room - 1)}…` : text}${suffix}`;
}

function key(step: string, attempt: number): string {
  return `${step}#${attempt}`;
}

function defaultLog(level: string, message: string): void {
  if (level === 'warn' || level === 'error') process.stderr.write(`kairoku-playbook: ${message}\n`);
}
