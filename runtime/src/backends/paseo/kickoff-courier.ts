/**
 * The kickoff of a run started with the workspace's current agent (current-agent.ts), as serve's watch
 * delivers it: queued on the run (`RunState.kickoff`) until the agent is idle — a busy agent is never
 * interrupted, seed 000 — then sent (`send_agent_message_request`) and marked sent on the run. The agent
 * then shows whether it has the manager tools: its first call of one (a `tool_call` on its stream)
 * confirms the kickoff (`confirmedAt`); a turn that ends without one fails the run, saying why, so it is not left
 * waiting silently. A kickoff still waiting when serve stops is sent by the next serve; one that was
 * sent but not judged yet is not judged then (its turn's events are gone), with a line in serve's log.
 */
import { isEnded } from '@kairoku-playbook/machine';
import type { Kickoff, RunState } from '@kairoku-playbook/machine';
import type { RunHost } from '../../host/run-host.js';
import { MANAGER_TOOLS } from '../mcp-tool-names.js';
import { isObject } from './client.js';
import type { Log, PaseoClient, StreamEvent } from './client.js';
import { failManagedRun } from './manager-agent.js';
import { BUSY, TURN_ENDS } from './turns.js';

/**
 * A tool of the manager's server, however the provider names it: Claude's `mcp__kairoku-playbook__get_run`,
 * an ACP agent's title (the daemon names an ACP tool call by its kind, else its title).
 */
const PLAYBOOK_TOOL = new RegExp(`(?:^|__|[^A-Za-z0-9_])(?:${MANAGER_TOOLS.join('|')})(?![A-Za-z0-9_])`);

export class KickoffCourier {
  /** runs whose kickoff waits, or was sent and waits for the agent's first tool call */
  private readonly pending = new Map<string, Kickoff>();
  private readonly sending = new Set<string>();
  /** runs whose kickoff turn has begun (a turn end before it is an earlier turn's) */
  private readonly begun = new Set<string>();

  constructor(
    private readonly options: { client: PaseoClient; host: RunHost; log: Log; clock?: () => number },
  ) {}

  /** A run as it is now: its kickoff is followed, or forgotten once it is gone or the run ended. */
  consider(state: RunState): void {
    const kickoff = state.kickoff;
    if (!kickoff || kickoff.confirmedAt !== undefined || isEnded(state.status)) {
      this.forget(state.id);
      return;
    }
    this.pending.set(state.id, kickoff);
    // Not awaited: `deliver` logs its own failures; the agent's next update or the sweep tries again.
    if (kickoff.sentAt === undefined) void this.deliver(state.id);
  }

  /** At serve's start: a kickoff sent before the restart cannot be judged any more. */
  taken(state: RunState): void {
    if (state.kickoff?.sentAt !== undefined && !isEnded(state.status)) {
      this.options.log(
        'warn',
        `paseo: run ${state.id}: its kickoff was sent before serve restarted; not judged`,
      );
      this.options.host.setKickoff(state.id, undefined);
      return;
    }
    this.consider(state);
  }

  /** An agent's update: one that is idle now gets the kickoffs that waited for it. */
  agentChanged(agentId: string, status: string): void {
    if (BUSY.has(status)) return;
    for (const [runId, kickoff] of this.pending)
      // Not awaited: `deliver` logs its own failures.
      if (kickoff.agent === agentId && kickoff.sentAt === undefined) void this.deliver(runId);
  }

  /** The sweep: every kickoff still waiting is tried again. */
  retry(): void {
    for (const [runId, kickoff] of this.pending)
      // Not awaited: `deliver` logs its own failures.
      if (kickoff.sentAt === undefined) void this.deliver(runId);
  }

  /** An event of an agent's stream: the kickoff turn's start, a playbook tool called, or its end. */
  onStream(event: StreamEvent): void {
    for (const [runId, kickoff] of this.pending) {
      if (kickoff.agent !== event.agentId || kickoff.sentAt === undefined) continue;
      const type = event.event.type;
      if (type === 'turn_started') this.begun.add(runId);
      else if (type === 'timeline' && calledPlaybookTool(event.event.item)) {
        this.forget(runId);
        const confirmedAt = new Date((this.options.clock ?? Date.now)()).toISOString();
        this.options.host.setKickoff(runId, { ...kickoff, confirmedAt });
      } else if (TURN_ENDS.has(type) && this.begun.has(runId)) this.withoutTools(runId, kickoff);
    }
  }

  private forget(runId: string): void {
    this.pending.delete(runId);
    this.begun.delete(runId);
  }

  /** Sends a waiting kickoff if its agent is idle now. */
  private async deliver(runId: string): Promise<void> {
    const kickoff = this.pending.get(runId);
    if (!kickoff || kickoff.sentAt !== undefined || this.sending.has(runId)) return;
    const { client, host, log } = this.options;
    this.sending.add(runId);
    try {
      const answer = await client.request('fetch_agent_request', { agentId: kickoff.agent });
      const agent = isObject(answer.agent) ? answer.agent : undefined;
      // Gone or archived: the watch fails the run (its manager is gone); busy: its update calls again.
      if (
        !agent ||
        (typeof agent.archivedAt === 'string' && agent.archivedAt) ||
        BUSY.has(String(agent.status))
      )
        return;
      // Marked sent before the request: the turn's first events may come before its answer.
      const sentAt = new Date((this.options.clock ?? Date.now)()).toISOString();
      this.pending.set(runId, { ...kickoff, sentAt });
      const sent = await client
        .request('send_agent_message_request', { agentId: kickoff.agent, text: kickoff.text })
        .catch((error: unknown) => {
          // Still ours (not judged meanwhile): waiting again.
          if (this.pending.get(runId)?.sentAt === sentAt) this.pending.set(runId, kickoff);
          throw error;
        });
      if (sent.accepted === false) throw new Error(String(sent.error ?? 'not accepted'));
      // Written unless the agent's first tool call or its turn's end was seen meanwhile.
      if (this.pending.get(runId)?.sentAt === sentAt) host.setKickoff(runId, { ...kickoff, sentAt });
    } catch (error) {
      log(
        'warn',
        `paseo: run ${runId}: the kickoff for agent ${kickoff.agent} was not sent (${(error as Error).message}); tried again`,
      );
    } finally {
      this.sending.delete(runId);
    }
  }

  /** The kickoff turn ended without a playbook tool: the agent does not have them. */
  private withoutTools(runId: string, kickoff: Kickoff): void {
    this.forget(runId);
    // The agent's own server says so on the run when it serves a call (any provider's naming).
    const now = this.options.host.get(runId);
    if (now.ok && now.value.kickoff?.confirmedAt !== undefined) return;
    const reason = `its manager, agent ${kickoff.agent}, ended the turn its kickoff started without calling a playbook tool: it does not have them (its provider read no kairoku-playbook MCP server from the workspace; see kairoku-playbook init --mcp). Start it on a new agent instead`;
    const { host, log } = this.options;
    host.setKickoff(runId, undefined);
    const failed = failManagedRun(host, runId, reason);
    log('warn', `paseo: run ${runId} ${failed.ok ? 'failed' : `: ${failed.refusal.message}`}: ${reason}`);
  }
}

function calledPlaybookTool(item: unknown): boolean {
  if (!isObject(item) || item.type !== 'tool_call') return false;
  const title = isObject(item.metadata) ? item.metadata.title : undefined;
  return [item.name, title].some((name) => typeof name === 'string' && PLAYBOOK_TOOL.test(name));
}
