import type { Ir } from '@kairoku-playbook/compiler';
import type { Backend } from '../../driver/backend.js';
import type { RunState } from '@kairoku-playbook/machine';
import type { CreateOptions, HostRefusal, HostResult, RunHost } from '../../host/run-host.js';
import { MANAGER_GUIDE } from '../manager-guide.js';
import { LABELS, SYSTEM_PROMPT_PROVIDERS, agentTitle } from './backend-options.js';
import { createdAgentId } from './client.js';
import type { Log, PaseoClient } from './client.js';
import { MCP_SERVER_NAME } from './first-message.js';
import { prepareWorktree } from './worktree.js';

/** The label that says what an agent is to a run besides its steps: `manager` for a manager agent. */
export const ROLE_LABEL = 'kairoku.role';

/** The manager recorded while serve makes the run's manager agent (its id is not known yet). */
export const MANAGER_BEING_MADE = 'kairoku-playbook serve, making a Paseo manager agent';

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
  log?: Log;
}

export type NewManagerResult = HostResult<{ state: RunState; warnings: string[]; agentId: string }>;

/**
 * Seed 000's "Start on a new agent": the run is created managed (no claim, no autopilot: the manager
 * decides), then its manager agent is made on the daemon, in the workspace, with the manager's
 * instructions (as system prompt, and at the head of the first message for providers that ignore it),
 * the manager's MCP server, and a kickoff naming the run; its id is then recorded as the run's
 * manager. An agent the daemon does not make fails the run (`manager-lost`, with the daemon's reason),
 * and the refusal says why.
 */
export async function startWithNewManager(request: NewManagerRequest): Promise<NewManagerResult> {
  const { host, ir, inputs, options } = request;
  // A secret input's value lives only in the memory of the process that started the run (SPEC §3.5):
  // the manager agent's server, another process, could not give it to the steps that read it.
  const secret = ir.inputs.find((input) => input.secret && inputs[input.name] !== undefined);
  if (secret)
    return {
      ok: false,
      refusal: {
        code: 'secret-inputs-unsupported',
        message: `playbook "${ir.id}" was given a secret input ("${secret.name}"), whose value would not reach a new manager agent's steps: start it without a new agent`,
        kind: 'invalid',
        field: '/options/newAgent',
      },
    };
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
  const kickoff = kickoffOf(state);
  const server = request.mcpServer(state);
  let agentId: string;
  try {
    agentId = await makeManagerAgent(request, state, { kickoff, server });
  } catch (error) {
    const reason = `Paseo did not make its manager agent: ${(error as Error).message}`;
    request.log?.('warn', `run ${state.id}: ${reason}`);
    host.change(state.id, { backend: performsNothing }, (driver) =>
      driver.send({ type: 'manager-lost', reason }),
    );
    return {
      ok: false,
      refusal: {
        code: 'manager-agent-failed',
        message: `run ${state.id} failed: ${reason}`,
        kind: 'conflict',
      },
    };
  }
  const named = host.setManager(state.id, newManagerName(agentId));
  if (!named.ok) return named;
  return { ok: true, value: { state: named.value, warnings, agentId } };
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
  const answer = await client.request('create_agent_request', {
    config: {
      provider,
      cwd,
      title: agentTitle(`Playbook Manager: ${ir.title ?? ir.id}`, 1),
      ...(request.model !== undefined ? { model: request.model } : {}),
      systemPrompt: MANAGER_GUIDE,
      mcpServers: { [MCP_SERVER_NAME]: { type: 'stdio', ...server } },
    },
    labels: { [LABELS.run]: state.id, [LABELS.playbook]: ir.id, [ROLE_LABEL]: 'manager' },
    // Providers spoken to over ACP ignore systemPrompt: the instructions open the first message.
    initialPrompt: SYSTEM_PROMPT_PROVIDERS.has(provider) ? kickoff : `${MANAGER_GUIDE}\n\n${kickoff}`,
  });
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

/** serve performs nothing of a run a manager agent drives: that agent's MCP server does. */
function performsNothing(state: RunState): Backend {
  return { name: state.backend, perform: () => undefined, agentExists: () => true };
}
