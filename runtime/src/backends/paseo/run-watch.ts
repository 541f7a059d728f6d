/**
 * What `serve --backend paseo` watches on the daemon for the runs it shows (issue 25):
 * - the manager agents of managed runs (seed 000's "Start on a new agent", or an agent's
 *   `start_playbook`): a run whose manager is archived or gone fails at once (seed 000: "If the manager
 *   is archived during a run, the run fails and its running steps are stopped"). The manager's own MCP
 *   server cannot do it: it is the manager's child, and archiving the manager ends it.
 * - every paseo run's agents, by the run's labels: what works for a run that failed or was canceled is
 *   stopped, and what is done is archived (agent-tidy.ts), whichever process ended the run.
 * The daemon's `agent_update`s say when an agent is archived or goes idle; a timer asks again, for
 * what a lost connection hid (a daemon restarted without the manager).
 */
import { hasWorkGoing } from '@kairoku-playbook/machine';
import type { RunState } from '@kairoku-playbook/machine';
import type { RunHost } from '../../host/run-host.js';
import { HOST_MANAGER } from '../../host/run-host-types.js';
import { tidyRunAgents } from './agent-tidy.js';
import { KickoffCourier } from './kickoff-courier.js';
import { isObject } from './client.js';
import type { AgentUpdate, Log, PaseoClient } from './client.js';
import { LABELS } from './backend-options.js';
import { ROLE_LABEL, failManagedRun, managerAgentOf } from './manager-agent.js';

export interface RunWatchOptions {
  /** a connection of the watch's own (reconnecting): the daemon sends its subscription's updates to it */
  client: PaseoClient;
  host: RunHost;
  /** `--paseo-keep-agents`: agents are stopped when they work for nothing, never archived */
  keepAgents: boolean;
  log: Log;
  /** how often the managers are asked after and unfinished tidying is tried again (default 10 s) */
  watchMs?: number;
  /** how long a run's changes are gathered before its agents are tidied (default 200 ms) */
  settleMs?: number;
}

const SUBSCRIPTION = 'kairoku-playbook-serve-watch';

/** What the watch needs of a run: its index entry has it, so serve's start reads no run file for it. */
export interface WatchedRun {
  id: string;
  backend: string;
  workspace?: string | undefined;
  manager?: string | undefined;
  endedAt: string | null;
  workGoing: boolean;
}

export class PaseoRunWatch {
  /** managed runs with work going: run id → its manager's Paseo agent */
  private readonly managers = new Map<string, string>();
  /** runs whose agents may still need tidying (an agent was busy, or a request failed) */
  private readonly untidy = new Set<string>();
  private readonly scheduled = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly stops: (() => void)[] = [];
  private readonly timer: ReturnType<typeof setInterval>;
  /** kickoffs of runs started with the workspace's current agent */
  private readonly courier: KickoffCourier;
  private closed = false;

  constructor(private readonly options: RunWatchOptions) {
    const { client, host } = options;
    this.courier = new KickoffCourier({ client, host, log: options.log });
    this.stops.push(
      host.subscribe(({ state }) => this.onRun(state)),
      client.onAgentUpdate((update) => this.onAgentUpdate(update)),
      client.onStream((event) => this.courier.onStream(event)),
      // A listener cannot wait; `subscribe` and `sweep` log their own failures.
      client.onReconnect(() => void this.subscribe().then(() => this.sweep())),
    );
    // The timer does not wait: `sweep` logs its own failures.
    this.timer = setInterval(() => void this.sweep(), options.watchMs ?? 10_000);
    this.timer.unref?.();
  }

  /**
   * Starts watching: the workspace's runs as they are now (the managers of managed runs, the runs the
   * recovery failed and those that ended in the last day, whose agents an earlier serve may have left).
   */
  async start(
    runs: readonly WatchedRun[],
    failedAtRecovery: readonly string[],
    active: readonly RunState[] = [],
  ): Promise<void> {
    const dayAgo = Date.now() - 24 * 3600_000;
    for (const run of runs) {
      if (!this.mine(run)) continue;
      this.track(run);
      const ended = run.endedAt !== null && Date.parse(run.endedAt) >= dayAgo;
      if (ended || failedAtRecovery.includes(run.id)) this.untidy.add(run.id);
    }
    await this.subscribe();
    for (const state of active) if (this.mine(state)) this.courier.taken(state);
    await this.sweep();
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const timeout of this.scheduled.values()) clearTimeout(timeout);
    for (const stop of this.stops) stop();
  }

  private mine(run: Pick<WatchedRun, 'backend' | 'workspace'>): boolean {
    return run.backend === 'paseo' && run.workspace === this.options.host.workspace;
  }

  /** Keeps the managers map current for one run. */
  private track(run: WatchedRun): void {
    const agent = run.manager !== HOST_MANAGER ? managerAgentOf(run.manager) : undefined;
    if (agent !== undefined && run.workGoing) this.managers.set(run.id, agent);
    else this.managers.delete(run.id);
  }

  private onRun(state: RunState): void {
    if (this.closed || !this.mine(state)) return;
    this.track({ ...state, workGoing: hasWorkGoing(state) });
    this.courier.consider(state);
    this.schedule(state.id);
  }

  /** Tidies a run's agents once its changes have settled. */
  private schedule(runId: string): void {
    if (this.scheduled.has(runId)) return;
    const timeout = setTimeout(() => {
      this.scheduled.delete(runId);
      // Not awaited: `tidy` logs its own failures and marks the run to try again.
      void this.tidy(runId);
    }, this.options.settleMs ?? 200);
    timeout.unref?.();
    this.scheduled.set(runId, timeout);
  }

  private async tidy(runId: string): Promise<void> {
    const loaded = this.options.host.get(runId);
    if (this.closed || !loaded.ok || !this.mine(loaded.value)) return;
    try {
      const plan = await tidyRunAgents(this.options.client, loaded.value, {
        keep: this.options.keepAgents,
        log: this.options.log,
      });
      // A busy agent left alone, or one just canceled, is looked at again when it is idle.
      if (plan.cancel.length || plan.waiting.length) this.untidy.add(runId);
      else this.untidy.delete(runId);
    } catch (error) {
      this.untidy.add(runId);
      this.options.log('warn', `paseo: cannot tidy the agents of run ${runId}: ${(error as Error).message}`);
    }
  }

  /** The daemon's news of an agent: a manager archived or gone, or an agent of a run now idle. */
  private onAgentUpdate(update: AgentUpdate): void {
    if (this.closed) return;
    if (update.kind === 'remove') {
      this.managerGone(update.agentId, 'the daemon no longer has it');
      return;
    }
    const agent = update.agent;
    const id = typeof agent.id === 'string' ? agent.id : undefined;
    if (id === undefined) return;
    if (typeof agent.archivedAt === 'string' && agent.archivedAt.length > 0) this.managerGone(id, 'archived');
    else this.courier.agentChanged(id, String(agent.status));
    const labels = isObject(agent.labels) ? agent.labels : {};
    const run = labels[LABELS.run];
    // A manager agent made late (its run may have failed for want of it) is tidied like the rest.
    const manager = labels[ROLE_LABEL] === 'manager';
    if (typeof run === 'string' && (manager || this.untidy.has(run) || this.managersOf(id).length))
      this.schedule(run);
  }

  private managersOf(agentId: string): string[] {
    return [...this.managers].filter(([, agent]) => agent === agentId).map(([run]) => run);
  }

  /** Seed 000: the runs this agent manages fail, and their agents are stopped (by the change's tidy). */
  private managerGone(agentId: string, why: string): void {
    for (const runId of this.managersOf(agentId)) {
      this.managers.delete(runId);
      const reason = `its manager agent ${agentId} is gone (${why})`;
      const changed = failManagedRun(this.options.host, runId, reason);
      if (changed.ok) this.options.log('warn', `paseo: run ${runId} failed: ${reason}`);
      else this.options.log('warn', `paseo: run ${runId}: ${changed.refusal.message}`);
    }
  }

  /** Every agent update of the daemon reaches this connection from now on. */
  private async subscribe(): Promise<void> {
    try {
      await this.options.client.request('fetch_agents_request', {
        filter: { includeArchived: true },
        subscribe: { subscriptionId: SUBSCRIPTION },
        page: { limit: 1 },
      });
    } catch (error) {
      this.options.log('warn', `paseo: cannot watch the daemon's agents: ${(error as Error).message}`);
    }
  }

  /** Asks after every manager, and tidies what was left untidy. */
  private async sweep(): Promise<void> {
    if (this.closed) return;
    for (const agentId of new Set(this.managers.values())) {
      try {
        const answer = await this.options.client.request('fetch_agent_request', { agentId });
        const agent = isObject(answer.agent) ? answer.agent : undefined;
        if (!agent) this.managerGone(agentId, 'the daemon no longer has it');
        else if (typeof agent.archivedAt === 'string' && agent.archivedAt)
          this.managerGone(agentId, 'archived');
      } catch (error) {
        this.options.log(
          'warn',
          `paseo: cannot ask after manager agent ${agentId}: ${(error as Error).message}`,
        );
      }
    }
    for (const runId of [...this.untidy]) this.schedule(runId);
    this.courier.retry();
  }
}
