import { isObject } from './client.js';
import type { Payload, PaseoClient } from './client.js';

/** The stream events that end an agent's turn. */
export const TURN_ENDS: ReadonlySet<string> = new Set(['turn_completed', 'turn_failed', 'turn_canceled']);
/** The agent statuses of an agent in a turn. */
export const BUSY: ReadonlySet<string> = new Set(['running', 'initializing']);

/**
 * After `send_agent_message_response {accepted: false}`: whether the agent's turn began all the same.
 * The daemon answers so ("Agent X failed to start") after a failed turn although it dispatched the
 * message and starts the turn. `started` says whether the agent's stream already showed the turn; the
 * daemon's status (`fetch_agent_request`) is asked until it does, or `waitMs` is over (0: asked once).
 * An agent that is gone, archived or idle throughout did not get the message.
 */
export async function turnStartedAnyway(
  client: PaseoClient,
  agentId: string | undefined,
  started: () => boolean,
  options: { waitMs: number; stopped?: () => boolean },
): Promise<boolean> {
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    if (options.stopped?.()) return false;
    if (started()) return true;
    let answer: Payload;
    try {
      answer = await client.request('fetch_agent_request', { agentId });
    } catch {
      return started();
    }
    if (started()) return true;
    const agent = isObject(answer.agent) ? answer.agent : undefined;
    if (!agent || (typeof agent.archivedAt === 'string' && agent.archivedAt)) return false;
    if (BUSY.has(String(agent.status))) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
