/**
 * The `paseo` backend's dealings with the daemon about its run's agents: listing them by their labels,
 * and making one for a step's attempt (the request, and what is done when its answer does not come).
 */
import { LABELS, SYSTEM_PROMPT_PROVIDERS, agentTitle, providerOf } from './backend-options.js';
import type { PaseoBackendOptions } from './backend-options.js';
import { PaseoError, createdAgentId, isObject } from './client.js';
import type { Log, PaseoClient, Payload } from './client.js';
import { MCP_SERVER_NAME, firstMessage } from './first-message.js';
import { preApprovedTools } from './pre-approval.js';
import type { ReportContract, StartAgent } from './first-message.js';

/** What the backend keeps of one of its run's agents, as the daemon lists it. */
export interface AgentInfo {
  status: string;
  labels: Record<string, string>;
  archived: boolean;
}

/** Why an agent is gone, from what the daemon lists (an archived agent is listed, marked). */
export function goneReason(agentId: string, info: AgentInfo | undefined): string {
  return info?.archived
    ? `Paseo agent ${agentId} was archived`
    : `the Paseo daemon no longer has agent ${agentId} (it restarted without it)`;
}

/**
 * The daemon's agents with these labels (archived ones included, marked), by id. The daemon leaves
 * archived agents out of `fetch_agents_request` unless the filter asks for them (`includeArchived`).
 */
export async function listAgents(
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
export function agentInfo(row: Record<string, unknown>): AgentInfo {
  return {
    status: typeof row.status === 'string' ? row.status : 'unknown',
    labels: isObject(row.labels) ? (row.labels as Record<string, string>) : {},
    archived: typeof row.archivedAt === 'string' && row.archivedAt.length > 0,
  };
}

/** The backend's subscription to its run's agents. */
export function subscription(runId: string): string {
  return `kairoku-playbook:${runId}`;
}

/** The create_agent_request of a step's attempt: its config, first message and labels. */
export function createAgentRequest(
  effect: StartAgent,
  token: string,
  contract: ReportContract | undefined,
  run: { options: PaseoBackendOptions; endpointUrl: string; worktree: string },
): Payload & { labels: Record<string, string> } {
  const { options, endpointUrl, worktree } = run;
  const labels: Record<string, string> = {
    [LABELS.run]: options.runId,
    [LABELS.playbook]: options.playbook,
    [LABELS.step]: effect.step,
    [LABELS.attempt]: String(effect.attempt),
    [LABELS.reportPort]: new URL(endpointUrl).port,
  };
  if (options.parentAgentId) labels[LABELS.parent] = options.parentAgentId;
  const instructions = effect.role.instructions?.trim();
  const provider = providerOf(effect.provider, options);
  const model = effect.model ?? options.defaultModel;
  const config: Payload = {
    provider,
    cwd: worktree,
    title: agentTitle(effect.title, effect.attempt),
    ...(model ? { model } : {}),
    ...(effect.role.mode ? { modeId: effect.role.mode } : {}),
    ...(instructions ? { systemPrompt: instructions } : {}),
    mcpServers: {
      [MCP_SERVER_NAME]: {
        type: 'http',
        url: endpointUrl,
        headers: { Authorization: `Bearer ${token}` },
      },
    },
    ...preApprovedTools(provider, 'step'),
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
export async function createAgent(
  client: PaseoClient,
  request: Payload,
  at: { runId: string; step: string; attempt: number },
  options: { timeoutMs: number; log: Log },
): Promise<string> {
  const { step, attempt } = at;
  const byLabels = async () => {
    const found = await listAgents(client, {
      [LABELS.run]: at.runId,
      [LABELS.step]: step,
      [LABELS.attempt]: String(attempt),
    });
    return [...found].find(([, info]) => !info.archived)?.[0];
  };
  for (let tries = 0; ; tries++) {
    try {
      const answer = await client.request('create_agent_request', request, {
        timeoutMs: options.timeoutMs,
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
          options.log(
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
