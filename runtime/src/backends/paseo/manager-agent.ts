import type { Ir } from '@kairoku-playbook/compiler';
import type { Backend } from '../../driver/backend.js';
import type { RunState } from '@kairoku-playbook/machine';
import type { CreateOptions, HostRefusal, HostResult, RunHost } from '../../host/run-host.js';
import { MANAGER_GUIDE } from '../manager-guide.js';
import { LABELS, SYSTEM_PROMPT_PROVIDERS, agentTitle } from './backend-options.js';
import { createdAgentId } from './client.js';
import type { Log, PaseoClient } from './client.js';
import { MCP_SERVER_NAME } from './first-message.js';
import { listAgents } from './daemon-agents.js';
import { preApprovedTools } from './pre-approval.js';
import { prepareWorktree } from './worktree.js';

/** The label that says what an agent is to a run besides its steps: `manager` for a manager agent. */
export const ROLE_LABEL = 'kairoku.role';

export { MANAGER_BEING_MADE } from '../../host/run-host-types.js';
import { MANAGER_BEING_MADE } from '../../host/run-host-types.js';

/**
 * The manager of a run whose manager agent serve made: named as the MCP server names a Paseo manager
 * (`…, Paseo agent ID`), so that agent's server takes the run as its own.
 */
export function newManagerName(agentId: string): string {
  return `kairoku-playbook serve (a new agent), Paseo agent ${agentId}`;
}

/** The Paseo agent a run's manager names (`…, Paseo agent ID`), if it names one. */
export function managerAgentOf(manager: string | undefined): string | undefined {
  return manager === undefined ? undefined : /, Paseo agent (\S+)$/.exec(manager)?.[1];
}

/** A stdio MCP server as Paseo's `mcpServers` takes it. */
export interface StdioServer {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface NewManagerRequest {
  host: RunHost;
  ir: Ir;
  inputs: Record<string, unknown>;
  options: CreateOptions;
  /** the provider and model of the manager agent: the run's start options, else serve's defaults */
  provider: string;
  model?: string;
  /**
   * the manager's MCP server (`kairoku-playbook mcp --agents paseo …`) for the run: never a password on
   * its command line or in its environment (the agent's config is kept by the daemon)
   */
  mcpServer: (state: RunState) => StdioServer;
  /** a connection to the daemon, made when first needed; the caller closes it */
  client: () => Promise<PaseoClient>;
  /** how long the create may take before the agent is looked up by its labels (default 120 s) */
  createTimeoutMs?: number;
  log?: Log;
}

export type NewManagerResult = HostResult<{ state: RunState; warnings: string[] }>;

/**
 * Seed 000's "Start on a new agent": the run is created managed (no claim, no autopilot: the manager
 * decides) and answered at once, its manager recorded as being made (`MANAGER_BEING_MADE`; the panel
 * says so); the manager agent is then made on the daemon in the background (the daemon may take
 * minutes), in the workspace, with the manager's instructions (as system prompt, and at the head of
 * the first message for providers that ignore it), the manager's MCP server, and a kickoff naming the
 * run; its id is then recorded as the run's manager. A create that fails or times out is looked up by
 * the run's labels: an agent the daemon made after all is adopted as the manager; without one the run
 * fails (`manager-lost`, with the daemon's reason). `done` resolves when that is settled.
 */
export async function startWithNewManager(
  request: NewManagerRequest,
): Promise<NewManagerResult & { done?: Promise<void> }> {
  const { host, ir, inputs, options } = request;
  const secret = secretInputRefusal(ir, inputs, '/options/newAgent', 'start it without a new agent');
  if (secret) return secret;
  let refusal: HostRefusal | undefined;
  const started = host.startManaged(
    ir,
    inputs,
    { ...options, manager: MANAGER_BEING_MADE },
    { backend: performsNothing },
    (driver) => {
      const refused = driver.send({ type: 'start' });
      if (refused) refusal = { code: refused.code, message: refused.message, kind: 'conflict' };
    },
  );
  if (!started.ok) return started;
  if (refusal) return { ok: false, refusal };
  const { state, warnings } = started.value;
  // Not awaited: the Start is answered now; the making records its own end on the run (and logs it).
  const done = makeInBackground(request, state);
  return { ok: true, value: { state, warnings }, done };
}

/** Makes the run's manager agent and records it; a failure is looked up by labels, else fails the run. */
async function makeInBackground(request: NewManagerRequest, state: RunState): Promise<void> {
  const { host } = request;
  const log = request.log ?? (() => undefined);
  let agentId: string | undefined;
  let reason = '';
  try {
    agentId = await makeManagerAgent(request, state, {
      kickoff: kickoffOf(state),
      server: request.mcpServer(state),
    });
  } catch (error) {
    reason = `Paseo did not make its manager agent: ${(error as Error).message}`;
    // The daemon may have made it all the same (a create answered late, or never): found by its labels.
    agentId = await findManagerAgent(request, state.id).catch(() => undefined);
    if (agentId !== undefined)
      log('warn', `run ${state.id}: ${reason}; it made agent ${agentId} after all, taken as the manager`);
  }
  if (agentId === undefined) {
    log('warn', `run ${state.id}: ${reason}`);
    const failed = failManagedRun(host, state.id, reason);
    if (!failed.ok) log('warn', `run ${state.id}: ${failed.refusal.message}`);
    return;
  }
  const named = host.setManager(state.id, newManagerName(agentId));
  if (!named.ok)
    log('warn', `run ${state.id}: its manager agent ${agentId} was not recorded: ${named.refusal.message}`);
}

/** The manager agent the daemon has for a run (by its labels), if any. */
async function findManagerAgent(request: NewManagerRequest, runId: string): Promise<string | undefined> {
  const client = await request.client();
  const agents = await listAgents(client, { [LABELS.run]: runId, [ROLE_LABEL]: 'manager' });
  return [...agents].find(([, info]) => !info.archived)?.[0];
}

/** Makes the run's manager agent on the daemon (in the run's worktree, made now, when it has one); its id. */
async function makeManagerAgent(
  request: NewManagerRequest,
  state: RunState,
  { kickoff, server }: { kickoff: string; server: StdioServer },
): Promise<string> {
  const { host, ir, provider } = request;
  const client = await request.client();
  const workspace = state.workspace ?? host.workspace;
  // A run in a worktree of its own (seed 000's "Start in a new workspace") has its manager there
  // too: the worktree is made now, on the run's branch, and the manager's server finds it again by
  // that branch when it starts the first step (its agents work in the same worktree).
  const cwd =
    state.ir.workspace === 'new-worktree' && state.branch
      ? (
          await prepareWorktree(client, {
            cwd: workspace,
            branch: state.branch,
            log: request.log ?? (() => undefined),
          })
        ).path
      : workspace;
  const answer = await client.request(
    'create_agent_request',
    {
      config: {
        provider,
        cwd,
        title: agentTitle(`Playbook Manager: ${ir.title ?? ir.id}`, 1),
        ...(request.model !== undefined ? { model: request.model } : {}),
        systemPrompt: MANAGER_GUIDE,
        mcpServers: { [MCP_SERVER_NAME]: { type: 'stdio', ...server } },
        ...preApprovedTools(provider, 'manager'),
      },
      labels: { [LABELS.run]: state.id, [LABELS.playbook]: ir.id, [ROLE_LABEL]: 'manager' },
      // Providers spoken to over ACP ignore systemPrompt: the instructions open the first message.
      initialPrompt: SYSTEM_PROMPT_PROVIDERS.has(provider) ? kickoff : `${MANAGER_GUIDE}\n\n${kickoff}`,
    },
    { timeoutMs: request.createTimeoutMs ?? 120_000 },
  );
  if (answer.status === 'agent_create_failed') throw new Error(String(answer.error ?? 'agent_create_failed'));
  const id = createdAgentId(answer);
  if (!id) throw new Error('the daemon answered create_agent_request without an agent id');
  return id;
}

/** The manager agent's first message: which run it manages and what to do first. */
export function kickoffOf(state: RunState): string {
  return [
    `You manage playbook run ${state.id} (playbook "${state.ir.title ?? state.ir.id}"), started from the Playbooks panel.`,
    `Call get_run with run "${state.id}" to see its steps and inputs, then start each ready step with start_step (with a brief for its agent). When a step reports you are woken: decide it with complete_step. Open ready gates with request_gate and end your turn: the decision made in the panel wakes you.`,
  ].join('\n\n');
}

/**
 * Fails a run a manager agent manages (seed 000: its manager is gone, or never came, or has not the
 * tools): a managed change whose effects serve does not perform — its watch stops the run's agents by
 * their label (agent-tidy.ts).
 */
export function failManagedRun(host: RunHost, runId: string, reason: string): HostResult<unknown> {
  return host.change(runId, { backend: performsNothing }, (driver) =>
    driver.send({ type: 'manager-lost', reason }),
  );
}

/**
 * A refusal of a start whose secret input's value would not reach the steps: it lives only in the
 * memory of the process that started the run (SPEC §3.5), and the manager agent's server is another.
 */
export function secretInputRefusal(
  ir: Ir,
  inputs: Record<string, unknown>,
  field: string,
  instead: string,
): HostResult<never> | undefined {
  const secret = ir.inputs.find((input) => input.secret && inputs[input.name] !== undefined);
  if (!secret) return undefined;
  return {
    ok: false,
    refusal: {
      code: 'secret-inputs-unsupported',
      message: `playbook "${ir.id}" was given a secret input ("${secret.name}"), whose value would not reach the manager agent's steps: ${instead}`,
      kind: 'invalid',
      field,
    },
  };
}

/** serve performs nothing of a run a manager agent drives: that agent's MCP server does. */
export function performsNothing(state: RunState): Backend {
  return { name: state.backend, perform: () => undefined, agentExists: () => true };
}
