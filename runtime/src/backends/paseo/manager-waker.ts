import type { WakeUp } from '@kairoku-playbook/machine';
import { isObject } from './client.js';
import type { PaseoClient, StreamEvent } from './client.js';
import { BUSY, TURN_ENDS, turnStartedAnyway } from './turns.js';

/** What the waker knows of the manager agent: `gone` when the daemon no longer has it. */
export type ManagerStatus = 'unknown' | 'idle' | 'running' | 'gone';

export interface ManagerWakerOptions {
  /** a connection to the daemon (the server's own; every client receives every agent's stream) */
  client: PaseoClient;
  /** the manager's Paseo agent */
  agentId: string;
  log: (line: string) => void;
  clock?: () => number;
  /** with wake-ups waiting, how long the manager may look busy before the daemon is asked again (5 s) */
  recheckMs?: number;
  /** how often the daemon is asked whether the manager still exists, wake-ups or not (10 s) */
  watchMs?: number;
  /**
   * how long a manager the daemon has never listed may stay unknown before it counts as missing
   * (60 s): an ACP manager starts its MCP servers before the daemon registers it
   */
  unseenGraceMs?: number;
  /** the manager agent was archived or is missing (called once): seed 000 fails its runs */
  onGone?: (why: string) => void;
}

/**
 * Wakes the Playbook Manager, a Paseo agent, as seed 000 says: wake-ups (a step reported, was lost
 * or timed out, a gate was decided, the run ended) are queued and sent only while the manager is
 * idle, merged into one prompt (`send_agent_message_request`); the manager's turn is never canceled.
 * Idle and busy come from Paseo: the agent's `agent_stream` turn events (`turn_started`, then
 * `turn_completed|turn_failed|turn_canceled`), and its status (`fetch_agent_request`) at start, after
 * a reconnection, and now and then while wake-ups wait. A wake-up sent starts the manager's turn,
 * so it counts as busy from then on. Wake-ups that cannot be delivered are kept and sent again.
 */
export class ManagerWaker {
  private queue: { run: string; wakeup: WakeUp }[] = [];
  private current: ManagerStatus = 'unknown';
  /** bumped whenever the stream says something: an older status answer is stale then */
  private version = 0;
  private sending = false;
  private asking: Promise<void> | undefined;
  private askedAt = Number.NEGATIVE_INFINITY;
  private closed = false;
  /** the daemon has listed the manager at least once: missing from then on means gone */
  private seen = false;
  /** `turn_started` events seen from the manager */
  private turnStarts = 0;
  /** when the daemon first said it did not know the manager (never seen yet) */
  private unseenSince: number | undefined;
  private readonly clock: () => number;
  private readonly unsubscribe: (() => void)[];

  constructor(private readonly options: ManagerWakerOptions) {
    this.clock = options.clock ?? Date.now;
    this.unsubscribe = [
      options.client.onStream((event) => this.onStream(event)),
      // A listener cannot wait; ask logs its own failures.
      options.client.onReconnect(() => void this.ask()),
    ];
  }

  get agentId(): string {
    return this.options.agentId;
  }

  /** the manager as the waker sees it */
  get status(): ManagerStatus {
    return this.current;
  }

  /** wake-ups waiting for the manager to be idle */
  get queued(): number {
    return this.queue.length;
  }

  /** Asks the daemon how the manager is. */
  async start(): Promise<void> {
    await this.ask();
  }

  /** Queues the wake-ups of a run; they go out at once if the manager is idle. */
  push(run: string, wakeups: readonly WakeUp[]): void {
    if (this.closed || this.current === 'gone') return;
    for (const wakeup of wakeups) this.queue.push({ run, wakeup });
    this.flush();
  }

  /**
   * The manager has just been shown a run's events in a tool result (a call in its running turn):
   * that run's queued wake-ups are dropped, since they would only tell it again.
   */
  shown(run: string): void {
    this.queue = this.queue.filter((entry) => entry.run !== run);
  }

  /** Once a second: wake-ups waiting on a manager that has looked busy for a while ask the daemon again. */
  tick(): void {
    const recheck = this.options.recheckMs ?? 5000;
    const since = this.clock() - this.askedAt;
    if (this.current === 'gone') return;
    if (
      ((this.queue.length || !this.seen) && this.current !== 'idle' && since >= recheck) ||
      since >= (this.options.watchMs ?? 10_000)
    )
      // The ticker does not wait for the answer; ask logs its own failures.
      void this.ask();
  }

  close(): void {
    this.closed = true;
    for (const stop of this.unsubscribe) stop();
  }

  private onStream(stream: StreamEvent): void {
    if (this.closed || stream.agentId !== this.options.agentId || this.current === 'gone') return;
    const type = stream.event.type;
    if (type === 'turn_started') {
      this.turnStarts++;
      this.version++;
      this.current = 'running';
    } else if (TURN_ENDS.has(type)) {
      this.version++;
      this.current = 'idle';
      this.flush();
    }
  }

  private ask(): Promise<void> {
    this.asking ??= (async () => {
      const version = this.version;
      this.askedAt = this.clock();
      try {
        const answer = await this.options.client.request('fetch_agent_request', {
          agentId: this.options.agentId,
        });
        if (this.closed || version !== this.version) return;
        const agent = isObject(answer.agent) ? answer.agent : undefined;
        if (agent && typeof agent.archivedAt === 'string' && agent.archivedAt.length > 0) {
          this.gone('archived');
          return;
        }
        if (!agent) {
          const why = typeof answer.error === 'string' ? answer.error : 'not found';
          if (this.seen || this.unseenTooLong()) this.gone(why);
          return;
        }
        this.seen = true;
        this.current = BUSY.has(String(agent.status)) ? 'running' : 'idle';
      } catch (error) {
        this.options.log(
          `cannot ask Paseo about the manager agent ${this.options.agentId}: ${(error as Error).message}`,
        );
      } finally {
        this.asking = undefined;
      }
      this.flush();
    })();
    return this.asking;
  }

  /**
   * A manager the daemon has never listed is not gone at once: an ACP provider starts the agent's MCP
   * servers (this one) during `session/new`, before the daemon registers the agent, so the first
   * answers say "Agent not found" (which made every wake-up of such a manager be dropped).
   */
  private unseenTooLong(): boolean {
    const now = this.clock();
    if (this.unseenSince === undefined) {
      this.unseenSince = now;
      this.options.log(
        `the Paseo daemon does not know the manager agent ${this.options.agentId} yet; asking again until it does`,
      );
    }
    return now - this.unseenSince >= (this.options.unseenGraceMs ?? 60_000);
  }

  private gone(why: string): void {
    if (this.current === 'gone') return;
    this.options.log(
      `the manager agent ${this.options.agentId} is not on the Paseo daemon (${why}): its runs fail, as seed 000 says`,
    );
    this.current = 'gone';
    this.queue = [];
    this.options.onGone?.(why);
  }

  private flush(): void {
    if (this.closed || this.sending || this.current !== 'idle' || !this.queue.length) return;
    const batch = this.queue.splice(0);
    this.sending = true;
    // The message starts the manager's turn: busy until its end is seen.
    this.version++;
    this.current = 'running';
    const startsBefore = this.turnStarts;
    // Not awaited: push returns at once; the .catch below queues the batch again and logs why.
    void this.options.client
      .request('send_agent_message_request', { agentId: this.options.agentId, text: wakeUpMessage(batch) })
      .then(async (answer) => {
        if (answer.accepted !== false) return;
        // After a failed turn the daemon answers `accepted: false` ("Agent X failed to start") and
        // starts the turn all the same: sent again, the wake-up would come twice.
        const client = this.options.client;
        if (
          await turnStartedAnyway(client, this.options.agentId, () => this.turnStarts > startsBefore, {
            waitMs: 0,
          })
        )
          return;
        throw new Error(String(answer.error ?? 'not accepted'));
      })
      .catch((error: unknown) => {
        if (this.closed) return;
        this.queue.unshift(...batch);
        this.version++;
        this.current = 'unknown';
        this.askedAt = this.clock();
        this.options.log(
          `a wake-up for the manager agent ${this.options.agentId} was not delivered (${(error as Error).message}); it is sent again once the manager is idle`,
        );
      })
      .finally(() => {
        this.sending = false;
        this.flush();
      });
  }
}

/** One prompt for the manager from queued wake-ups, a section per run, in the order they came. */
export function wakeUpMessage(batch: readonly { run: string; wakeup: WakeUp }[]): string {
  const runs = new Map<string, string[]>();
  for (const { run, wakeup } of batch) {
    const lines = runs.get(run) ?? [];
    lines.push(`- ${wakeup.text}`);
    runs.set(run, lines);
  }
  const sections = [...runs].map(([run, lines]) => `Playbook run ${run}:\n${lines.join('\n')}`);
  return `${sections.join('\n\n')}\n\nCall get_run for the details and what you can do next (complete_step for a report, start_step for a ready step).`;
}
