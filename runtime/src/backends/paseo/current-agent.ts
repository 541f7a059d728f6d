/**
 * Seed 000's default Start: "runs the playbook with the workspace's current agent (its most recent
 * agent that manages no run) … If the agent is busy it is not interrupted: the kickoff waits for the
 * end of its current turn." The daemon cannot give a live agent new MCP servers (no request adds them),
 * so the agent has the manager tools only if its provider read them from the workspace when it
 * started (`kairoku-playbook init --mcp` writes them; docs/paseo.md, "Start with the current agent").
 * The run is made managed by that agent, and its kickoff queued on the run (`RunState.kickoff`): serve's
 * watch sends it once the agent is idle (kickoff-courier.ts).
 */
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { sep } from 'node:path';
import type { Ir } from '@kairoku-playbook/compiler';
import type { RunState } from '@kairoku-playbook/machine';
import type { CurrentAgentAnswer } from '@kairoku-playbook/protocol';
import type { CreateOptions, HostRefusal, HostResult, RunHost } from '../../host/run-host.js';
import { LABELS } from './backend-options.js';
import { isObject } from './client.js';
import type { PaseoClient } from './client.js';
import { ROLE_LABEL, kickoffOf, performsNothing, secretInputRefusal } from './manager-agent.js';
import { BUSY } from './turns.js';

/**
 * The providers whose agents can have the manager tools from the workspace: claude (the daemon starts
 * it with the "project" setting source, which reads `.mcp.json`), codex and opencode (their own config
 * files). An ACP provider (copilot, a custom `extends: "acp"` one) gets only the MCP servers of the
 * agent's config in `session/new`: never the workspace's.
 */
export const WORKSPACE_MCP_PROVIDERS: ReadonlySet<string> = new Set(['claude', 'codex', 'opencode']);

interface AgentRow {
  id: string;
  title: string;
  provider: string;
  cwd: string;
  status: string;
  archived: boolean;
  labels: Record<string, string>;
  at: string;
}

/**
 * The workspace's current agent: the daemon's most recent agent (by its last message, else its last
 * update) whose folder is the workspace, inside it, or one of its git worktrees, that the runtime did
 * not make (no run label) and that manages no run with work going (`managing`).
 */
export async function findCurrentAgent(
  client: PaseoClient,
  workspace: string,
  managing: ReadonlySet<string>,
): Promise<CurrentAgentAnswer> {
  const answer = await client.request('fetch_agents_request', { filter: {}, page: { limit: 200 } });
  const rows = (Array.isArray(answer.entries) ? answer.entries : [])
    .map((entry: unknown) => (isObject(entry) ? rowOf(entry.agent) : undefined))
    .filter((row): row is AgentRow => row !== undefined);
  const folders = workspaceFolders(workspace);
  const inWorkspace = (cwd: string) =>
    folders.some((folder) => cwd === folder || cwd.startsWith(`${folder}${sep}`));
  const candidates = rows
    .filter(
      (row) => !row.archived && row.labels[LABELS.run] === undefined && row.labels[ROLE_LABEL] === undefined,
    )
    .filter((row) => inWorkspace(realOrSame(row.cwd)) && !managing.has(row.id))
    .sort((a, b) => b.at.localeCompare(a.at));
  const agent = candidates[0];
  if (!agent) return { why: `no agent of the Paseo daemon works in ${workspace} (or manages no run there)` };
  const found = { id: agent.id, title: agent.title, provider: agent.provider, busy: BUSY.has(agent.status) };
  if (!WORKSPACE_MCP_PROVIDERS.has(agent.provider))
    return { agent: found, warning: mayLackTools(agent.title, agent.provider) };
  return { agent: found };
}

function mayLackTools(title: string, provider: string): string {
  return `the current agent "${title}" runs on ${provider}, which reads no MCP server from the workspace (the daemon gives an ACP agent only those of its own config): it has the playbook's tools only if it was made with them; start on a new agent instead, or try it (a kickoff turn without the tools fails the run)`;
}

function rowOf(value: unknown): AgentRow | undefined {
  if (!isObject(value) || typeof value.id !== 'string' || typeof value.cwd !== 'string') return undefined;
  const labels = isObject(value.labels) ? (value.labels as Record<string, string>) : {};
  const text = (key: string) => (typeof value[key] === 'string' ? (value[key] as string) : '');
  return {
    id: value.id,
    title: text('title') || value.id,
    provider: text('provider'),
    cwd: value.cwd,
    status: text('status'),
    archived: text('archivedAt').length > 0,
    labels,
    at: text('lastUserMessageAt') || text('updatedAt') || text('createdAt'),
  };
}

/** The workspace and its git worktrees (where Paseo makes them), as real paths. */
function workspaceFolders(workspace: string): string[] {
  const folders = new Set([workspace]);
  try {
    const listed = execFileSync('git', ['worktree', 'list', '--porcelain'], {
      cwd: workspace,
      encoding: 'utf8',
      timeout: 5_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    for (const line of listed.split('\n'))
      if (line.startsWith('worktree ')) folders.add(realOrSame(line.slice('worktree '.length)));
  } catch {
    // Not a git repository (or no git): the workspace alone.
  }
  return [...folders];
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export interface CurrentAgentStart {
  host: RunHost;
  ir: Ir;
  inputs: Record<string, unknown>;
  options: CreateOptions;
  /** the agent the form named (the current agent when the form opened) */
  agentId: string;
  /** the agents that manage a run with work going (none of them is a current agent) */
  managing: ReadonlySet<string>;
  client: PaseoClient;
  clock?: () => number;
}

/**
 * Starts a run managed by a live agent of the workspace: checked (it is still the workspace's current
 * agent: it exists, is not archived, works in the workspace and manages no run), the run made managed
 * by it, its kickoff queued on the run for the watch to send once the agent is idle; whether it has the
 * tools is judged by the turn the kickoff starts (kickoff-courier.ts).
 */
export async function startWithCurrentAgent(
  request: CurrentAgentStart,
): Promise<HostResult<{ state: RunState; warnings: string[] }>> {
  const { host, ir, inputs, options, agentId } = request;
  const secret = secretInputRefusal(ir, inputs, '/options/currentAgent', "start it on serve's own agents");
  if (secret) return secret;
  const current = await findCurrentAgent(request.client, host.workspace, request.managing);
  if (current.agent?.id !== agentId)
    return refusal(
      'agent-not-current',
      `agent ${agentId} is not the workspace's current agent any more (${current.agent ? `it is "${current.agent.title}"` : current.why}): open the form again`,
      '/options/currentAgent',
      'conflict',
    );
  let refused: HostRefusal | undefined;
  const manager = `${current.agent.title} (the workspace's current agent), Paseo agent ${agentId}`;
  const started = host.startManaged(
    ir,
    inputs,
    { ...options, manager },
    { backend: performsNothing },
    (driver) => {
      const answer = driver.send({ type: 'start' });
      if (answer) refused = { code: answer.code, message: answer.message, kind: 'conflict' };
    },
  );
  if (!started.ok) return started;
  if (refused) return { ok: false, refusal: refused };
  const { state, warnings } = started.value;
  const queuedAt = new Date((request.clock ?? Date.now)()).toISOString();
  const queued = host.setKickoff(state.id, { agent: agentId, text: kickoffOf(state), queuedAt });
  if (!queued.ok) return queued;
  return { ok: true, value: { state: queued.value, warnings } };
}

function refusal(
  code: string,
  message: string,
  field: string,
  kind: HostRefusal['kind'],
): { ok: false; refusal: HostRefusal } {
  return { ok: false, refusal: { code, message, kind, field } };
}
