import { join } from 'node:path';
import { AFTER_PREFIX, hasWorkGoing, isEnded, vecToArray } from '@kairoku-playbook/machine';
import type { RunState, WakeUp } from '@kairoku-playbook/machine';
import type { Driver } from '../../driver/driver.js';
import type { RunHost } from '../../host/run-host.js';
import type { RunStore } from '../../store/run-store.js';
import type { Backend, BackendEffect } from '../../driver/backend.js';
import { performCarried } from '../../host/outbox.js';
import { PaseoBackend } from './backend.js';
import type { PaseoBackendOptions } from './backend.js';
import { PaseoClient } from './client.js';
import type { Log } from './client.js';
import { managerAgentOf } from './manager-agent.js';
import { ManagerWaker } from './manager-waker.js';
import { StoreBackedContext } from './store-context.js';

/** How `kairoku-playbook mcp --agents paseo` reaches the daemon and whom it wakes. */
export interface PaseoAgentsOptions {
  /** the daemon: `HOST:PORT` (PASEO_HOST; default 127.0.0.1:6767) */
  host?: string;
  /** PASEO_PASSWORD */
  password?: string;
  /**
   * the manager's Paseo agent (`--manager-agent`, else PASEO_AGENT_ID): step agents are labelled its
   * children, and it is sent the wake-ups; without one, wake-ups are only the results' `events`
   */
  managerAgent?: string;
  /** the provider of roles and steps that name none (default `claude`) */
  defaultProvider?: string;
  /** providers named by playbooks sent to another instead */
  providerMap?: PaseoBackendOptions['providerMap'];
  /** the model of roles and steps that name none */
  defaultModel?: string;
  /** timeouts and reconnection of the daemon connections (tests shorten them) */
  connection?: PaseoBackendOptions['connection'];
  /**
   * the run serve made this server's manager agent for (`--managed-run`): without `managerAgent`, the
   * manager is the Paseo agent the run names, once serve has recorded it
   */
  managerOfRun?: string;
  /** how often timeouts, cancel requests and the manager's status are looked at (default 1 s) */
  tickMs?: number;
  /** how often the daemon is asked whether the manager agent still exists (default 10 s) */
  managerWatchMs?: number;
  /** makes the runner of check steps (default: the runtime's `CheckRunner`), as for `PaseoBackend` */
  checks?: PaseoBackendOptions['checks'];
}

export interface PaseoHostOptions extends PaseoAgentsOptions {
  store: RunStore;
  /** the server's workspace: its active paseo runs are taken up at start */
  workspace: string;
  clock: () => number;
  /**
   * the host whose managed changes (`RunHost.change`) apply what the runs' agents feed in: the
   * protocol's, which holds the runs' secrets and tells its subscribers (made once the daemon is
   * reached, so asked for when a run is first hosted)
   */
  runHost: () => RunHost;
  log: (line: string) => void;
}

interface HostedRun {
  id: string;
  context: StoreBackedContext;
  backend?: PaseoBackend;
  connecting?: Promise<void>;
  /** effects made before the backend was connected, performed once it is */
  pending: BackendEffect[];
  /** ticks in a row the run was seen ended with nothing of it at work */
  idleTicks: number;
}

/**
 * The live side of `kairoku-playbook mcp --agents paseo`: the runs of this server whose step agents
 * are Paseo agents. Each hosted run has a `PaseoBackend` (its agents, its report endpoint, its check
 * steps) and a store-backed context, so what its agents do is applied to the stored run while no
 * tool call is in flight. Wake-ups go to the manager agent (`ManagerWaker`); timeouts, and cancels
 * asked by `runs cancel`, are applied by a timer. A hosted run is claimed (`<id>.owner`), and let go
 * when it has ended with nothing at work, or when the server stops; the agents stay either way. At
 * start, the workspace's active paseo runs that no live process drives are taken up again: agents
 * gone from the daemon are lost, the others adopted (`PaseoBackend.adopt`).
 */
export class PaseoHost {
  private readonly runs = new Map<string, HostedRun>();
  private readonly ticker: ReturnType<typeof setInterval>;
  private closing: Promise<void> | undefined;

  /** the manager's waker, once this server knows which Paseo agent it serves */
  private currentWaker: ManagerWaker | undefined;
  /** wake-ups made before the manager was known (`managerOfRun`): handed to its waker */
  private early: { run: string; wakeups: WakeUp[] }[] = [];
  /** runs already said (on stderr) to name a manager this server cannot wake */
  private readonly unwakeable = new Set<string>();

  private constructor(
    private readonly options: PaseoHostOptions,
    /** the server's own connection to the daemon (the waker's) */
    private readonly client: PaseoClient,
  ) {
    this.ticker = setInterval(() => this.tick(), options.tickMs ?? 1000);
    this.ticker.unref?.();
  }

  /**
   * Connects to the daemon (an error says why it cannot) and asks how the manager agent is: the one
   * named (`--manager-agent`, $PASEO_AGENT_ID), else the one `managerOfRun` names once serve has
   * recorded it.
   */
  static async start(options: PaseoHostOptions): Promise<PaseoHost> {
    const client = await PaseoClient.connect({
      ...(options.connection ?? {}),
      host: options.host ?? '127.0.0.1:6767',
      ...(options.password !== undefined ? { password: options.password } : {}),
      log: paseoLog(options.log),
    });
    const host = new PaseoHost(options, client);
    if (options.managerAgent !== undefined) await host.serveManager(options.managerAgent);
    else await host.managerFromRun();
    return host;
  }

  get waker(): ManagerWaker | undefined {
    return this.currentWaker;
  }

  get managerAgent(): string | undefined {
    return this.currentWaker?.agentId;
  }

  /** From now on the manager is this Paseo agent: its waker is made, and what waited is handed to it. */
  private async serveManager(agentId: string): Promise<void> {
    const waker = new ManagerWaker({
      client: this.client,
      agentId,
      log: this.options.log,
      ...(this.options.clock ? { clock: this.options.clock } : {}),
      onGone: (why) => this.managerGone(why),
      ...(this.options.managerWatchMs !== undefined ? { watchMs: this.options.managerWatchMs } : {}),
    });
    this.currentWaker = waker;
    for (const { run, wakeups } of this.early.splice(0)) waker.push(run, wakeups);
    await waker.start();
  }

  /**
   * A server serve gave a run (`managerOfRun`) whose environment does not name its agent (its provider
   * starts MCP servers with their configured environment only): the manager is the agent the run
   * names, once serve has recorded it (the server may start before the daemon has answered serve).
   */
  private async managerFromRun(): Promise<void> {
    const run = this.options.managerOfRun;
    if (run === undefined || this.currentWaker) return;
    const agentId = managerAgentOf(this.options.store.load(run)?.manager);
    if (agentId === undefined) return;
    this.options.log(`serving the manager agent run ${run} names (Paseo agent ${agentId})`);
    await this.serveManager(agentId);
  }

  /**
   * A run a tool call is about. A server that does not know its agent (its provider gave it no
   * `$PASEO_AGENT_ID`) takes the agent the run's kickoff went to (serve's Start with the workspace's
   * current agent): that agent's calls are the ones that come after it.
   */
  noticeRun(state: RunState): void {
    const agent = state.kickoff?.agent;
    if (this.currentWaker || agent === undefined || isEnded(state.status)) return;
    this.options.log(`serving the agent run ${state.id}'s kickoff went to (Paseo agent ${agent})`);
    // Not awaited: the waker exists from now on; its first question to the daemon logs its own failure.
    void this.serveManager(agent);
  }

  /**
   * Why this server cannot wake the manager agent a run names, or undefined when it can (or the run
   * names none): said on stderr once per run, and by get_run.
   */
  cannotWake(state: RunState): string | undefined {
    const named = managerAgentOf(state.manager);
    if (named === undefined || named === this.managerAgent || isEnded(state.status)) return undefined;
    const mine = this.managerAgent;
    return mine !== undefined
      ? `run ${state.id} is managed by Paseo agent ${named}, not by this server's (${mine}): its wake-ups reach nobody here`
      : `run ${state.id} is managed by Paseo agent ${named}, which this server cannot wake: it was started without --manager-agent, without $PASEO_AGENT_ID (its agent did not pass the daemon's environment on) and without --managed-run; wake-ups are only the events of tool results`;
  }

  /** why the manager agent is gone, once it is: runs it manages fail as they are hosted */
  private managerLost: string | undefined;

  /**
   * The manager agent was archived or is missing (seed 000): every hosted run it manages fails, its
   * running steps stopped and no after-task started; runs taken up later fail as they are.
   */
  managerGone(why: string): void {
    this.managerLost = `its manager agent ${this.managerAgent} is gone (${why})`;
    for (const entry of this.runs.values()) this.failIfManaged(entry);
  }

  private failIfManaged(entry: HostedRun): void {
    if (this.managerLost === undefined || !entry.backend) return;
    const state = entry.context.peek();
    const managed = state?.manager?.endsWith(`Paseo agent ${this.managerAgent}`) ?? false;
    if (!managed || !state || (isEnded(state.status) && !state.after.some((a) => a.status === 'running')))
      return;
    entry.context.emit({ type: 'manager-lost', reason: this.managerLost });
  }

  /** the runs hosted now (connected or connecting) */
  get hosted(): string[] {
    return [...this.runs.values()]
      .filter((r) => r.backend !== undefined || r.connecting !== undefined)
      .map((r) => r.id);
  }

  /**
   * Takes up the workspace's active paseo runs that no live process drives (this server restarted):
   * resolves once each is connected or has failed to (a failure is logged; a tool call tries again).
   */
  async takeUp(): Promise<void> {
    const { store, workspace } = this.options;
    const runs = store
      .loadAll()
      .runs.filter(
        (r) =>
          r.backend === 'paseo' &&
          r.workspace === workspace &&
          (hasWorkGoing(r) || Boolean(r.outbox?.length)) &&
          !store.owner(r.id),
      );
    await Promise.all(
      runs.map((r) =>
        this.host(r.id).catch((error: unknown) =>
          this.options.log(`cannot take up run ${r.id} yet: ${(error as Error).message}`),
        ),
      ),
    );
  }

  /** Whether a run should be hosted for a tool call that does not need it (one with work going). */
  wants(state: RunState): boolean {
    return hasWorkGoing(state);
  }

  /**
   * Hosts a run: claims it and connects its backend (the worktree of a `new-worktree` playbook is
   * made, or found again), then applies the lost-agent rule to attempts whose agents are gone and
   * adopts the agents that outlived another process. Rejects, saying why, when another live process
   * drives the run or the daemon cannot be reached.
   */
  async host(runId: string): Promise<void> {
    if (this.closing) throw new Error('the server is stopping');
    const entry = this.entry(runId);
    if (entry.backend) return;
    entry.connecting ??= this.connect(entry).finally(() => (entry.connecting = undefined));
    await entry.connecting;
  }

  /** A tool call's change of a run, with what the run's backend feeds in meanwhile joining its driver. */
  within<T>(runId: string, driver: Driver, work: () => T): T {
    const entry = this.runs.get(runId);
    if (!entry) return work();
    return entry.context.within(driver, work);
  }

  /**
   * An effect of a run's transition: to the run's backend (queued until it is connected). Wake-ups
   * go to the manager agent, but not those of a tool call (`fromTool`): the manager is the caller
   * and reads them in the result. Gates are the manager's and the panel's, not the backend's.
   */
  perform(runId: string, effect: BackendEffect, fromTool: boolean): void {
    if (effect.type === 'wake-manager') {
      if (!fromTool) this.wake(runId, effect.wakeups);
      return;
    }
    if (effect.type === 'open-gate' || effect.type === 'close-gate') return;
    const entry = this.entry(runId);
    if (entry.backend) {
      entry.backend.perform(effect, entry.context);
      return;
    }
    entry.pending.push(effect);
    // Connected once the change that made the effect has let go of the store's lock.
    queueMicrotask(() => {
      // Not awaited: the effect waits in `pending` whatever happens; a failure to connect is logged
      // (the next tool call on the run tries again).
      void this.host(runId).catch((error: unknown) =>
        this.options.log(`run ${runId}: ${(error as Error).message}`),
      );
    });
  }

  private wake(runId: string, wakeups: WakeUp[]): void {
    if (this.currentWaker) {
      this.currentWaker.push(runId, wakeups);
      return;
    }
    if (this.options.managerOfRun !== undefined) {
      this.early.push({ run: runId, wakeups });
      return;
    }
    const state = this.options.store.load(runId);
    const why = state ? this.cannotWake(state) : undefined;
    if (why !== undefined && !this.unwakeable.has(runId)) {
      this.unwakeable.add(runId);
      this.options.log(why);
    }
  }

  /** A tool result showed the manager a run's events: its queued wake-ups would only repeat them. */
  shown(runId: string): void {
    this.waker?.shown(runId);
  }

  /** Lets go of every run (checks stopped, connections closed; agents stay) and of the daemon. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.ticker);
      await Promise.allSettled([...this.runs.values()].flatMap((entry) => entry.connecting ?? []));
      await Promise.allSettled([...this.runs.values()].map((entry) => this.release(entry)));
      this.currentWaker?.close();
      await this.client.close();
    })();
    return this.closing;
  }

  // ---- hosting ----------------------------------------------------------------------------------

  private entry(runId: string): HostedRun {
    let entry = this.runs.get(runId);
    if (!entry) {
      const created: HostedRun = {
        id: runId,
        pending: [],
        idleTicks: 0,
        context: new StoreBackedContext({
          runId,
          host: this.options.runHost(),
          clock: this.options.clock,
          perform: (effect: BackendEffect) => this.perform(runId, effect, false),
          log: this.options.log,
        }),
      };
      this.runs.set(runId, created);
      entry = created;
    }
    return entry;
  }

  private async connect(entry: HostedRun): Promise<void> {
    const { store } = this.options;
    const state = store.load(entry.id);
    // Its step agents are the manager's subagents: whom this server serves is known first.
    if (state) this.noticeRun(state);
    try {
      if (!state) throw new Error(`unknown run "${entry.id}"`);
      const owner = store.owner(entry.id);
      if (owner !== undefined)
        throw new Error(
          `run ${entry.id} is driven by process ${owner} (another manager's server, or kairoku-playbook run), which watches its Paseo agents`,
        );
      store.claim(entry.id);
      const backend = await PaseoBackend.connect({
        host: this.options.host ?? '127.0.0.1:6767',
        ...(this.options.password !== undefined ? { password: this.options.password } : {}),
        cwd: state.workspace ?? this.options.workspace,
        workspace: state.ir.workspace,
        runId: entry.id,
        playbook: state.ir.id,
        ...(state.ir.workspace === 'new-worktree' && state.branch ? { branch: state.branch } : {}),
        ...(this.managerAgent !== undefined ? { parentAgentId: this.managerAgent } : {}),
        ...(this.options.defaultProvider ? { defaultProvider: this.options.defaultProvider } : {}),
        ...(this.options.providerMap ? { providerMap: this.options.providerMap } : {}),
        ...(this.options.defaultModel ? { defaultModel: this.options.defaultModel } : {}),
        ...(this.options.connection ? { connection: this.options.connection } : {}),
        ...(this.options.checks ? { checks: this.options.checks } : {}),
        snapshots: join(store.home, 'read-only'),
        log: paseoLog(this.options.log),
      });
      if (this.closing) {
        await backend.close();
        throw new Error('the server is stopping');
      }
      entry.backend = backend;
    } catch (error) {
      // Nothing will watch the attempts whose agents were waiting for this connection.
      const starts = entry.pending.filter((e) => e.type === 'start-agent' || e.type === 'start-check');
      entry.pending = [];
      if (this.runs.get(entry.id) === entry && !entry.backend) this.runs.delete(entry.id);
      if (state && !store.owner(entry.id)) store.release(entry.id);
      for (const start of starts)
        entry.context.emit({
          type: 'agent-lost',
          step: start.step,
          attempt: start.attempt,
          reason: `this server could not watch its Paseo agent: ${(error as Error).message}`,
        });
      throw error instanceof Error ? error : new Error(String(error));
    }
    const backend = entry.backend;
    const pending = entry.pending.splice(0);
    this.loseVanished(entry, backend, pending);
    backend.adopt(entry.context);
    for (const effect of pending) backend.perform(effect, entry.context);
    this.failIfManaged(entry);
  }

  /**
   * What changes applied elsewhere left for this server (a run's outbox: a gate decided in the panel,
   * `runs cancel`, a nudge): performed here as the effects they were, in order: the manager woken with
   * the decision, a cancel's agents stopped, the nudge sent to its step's agent.
   */
  private drain(entry: HostedRun): void {
    const taken = this.options.runHost().takeOutbox(entry.id);
    if (!taken.ok) {
      this.options.log(`run ${entry.id}: ${taken.refusal.message}`);
      return;
    }
    const route: Backend = {
      name: 'paseo',
      perform: (effect) => this.perform(entry.id, effect, false),
      agentExists: () => true,
    };
    for (const effect of taken.value) performCarried(effect, route, entry.context);
  }

  /**
   * The lost-agent rule for a run taken up: a running attempt whose agent the daemon no longer has
   * (or never acknowledged, or a check whose process went with the old server) is lost now.
   */
  private loseVanished(entry: HostedRun, backend: PaseoBackend, pending: readonly BackendEffect[]): void {
    const state = entry.context.peek();
    if (!state) return;
    const starting = new Set(
      pending
        .filter((e) => e.type === 'start-agent' || e.type === 'start-check')
        .map((e) => `${e.step}#${e.attempt}`),
    );
    for (const { name, attempt, agent } of runningAttempts(state)) {
      if (starting.has(`${name}#${attempt}`) || backend.agentExists(agent)) continue;
      entry.context.emit({
        type: 'agent-lost',
        step: name,
        attempt,
        reason:
          agent === undefined
            ? 'its agent was not acknowledged before the previous server stopped'
            : `${backend.agentGone(agent) ?? `its agent ${agent} no longer exists`} (found when the run was taken up again)`,
      });
    }
  }

  private async release(entry: HostedRun): Promise<void> {
    this.runs.delete(entry.id);
    if (!entry.backend) return;
    const backend = entry.backend;
    delete entry.backend;
    if (!this.options.store.owner(entry.id)) this.options.store.release(entry.id);
    await backend.close();
  }

  private tick(): void {
    if (this.closing) return;
    try {
      this.sweep();
    } catch (error) {
      this.options.log(`the timer of hosted runs failed: ${(error as Error).stack ?? String(error)}`);
    }
  }

  /** Timeouts, cancel requests and kept events of each hosted run; runs that ended are let go. */
  private sweep(): void {
    this.currentWaker?.tick();
    if (!this.currentWaker && this.options.managerOfRun !== undefined)
      // The ticker does not wait; a failure to ask the daemon is logged by the waker.
      void this.managerFromRun();
    for (const entry of [...this.runs.values()]) {
      if (entry.connecting) continue;
      if (!entry.backend) {
        // made by a tool call's effect whose connection failed, or never needed
        if (!entry.pending.length) this.runs.delete(entry.id);
        continue;
      }
      const state = entry.context.tick();
      if (state?.outbox?.length) this.drain(entry);
      if (state && hasWorkGoing(state)) {
        entry.idleTicks = 0;
        continue;
      }
      // Ended with nothing at work: let go on the next tick (a stop sent just now still goes out).
      if (++entry.idleTicks >= 2)
        // The ticker does not wait for the release; its failure is logged.
        void this.release(entry).catch((error: unknown) =>
          this.options.log(`run ${entry.id}: ${(error as Error).message}`),
        );
    }
  }
}

/** The running attempts of a run (steps while it is active, after-tasks whenever). */
function runningAttempts(state: RunState): { name: string; attempt: number; agent: string | undefined }[] {
  const found: { name: string; attempt: number; agent: string | undefined }[] = [];
  const steps = isEnded(state.status) ? [] : vecToArray(state.steps).map((s) => ({ name: s.name, run: s }));
  const after = state.after.map((t) => ({ name: `${AFTER_PREFIX}${t.name}`, run: t }));
  for (const { name, run } of [...steps, ...after]) {
    const attempt = run.attempts[run.attempts.length - 1];
    if (run.status !== 'running' || !attempt || attempt.endedAt !== undefined) continue;
    found.push({ name, attempt: attempt.attempt, agent: attempt.agent });
  }
  return found;
}

function paseoLog(log: (line: string) => void): Log {
  return (level, message) => {
    if (level === 'warn' || level === 'error') log(message);
  };
}
