/**
 * The agents policy of the `paseo` backend (issue 25): the Paseo agents a run made are not left on the
 * daemon, each with its provider process (85–115 MB), once they have nothing left to do. A step agent
 * is archived when its attempt has ended (its conversation is kept: archive keeps it), one still at
 * work on an attempt that was stopped, or of a run that ended without it, is canceled first; the
 * manager agent serve made is archived when its run has ended and its after-tasks are done. With
 * `keep` (`--paseo-keep-agents`) nothing is archived; stopping what runs for nothing still happens.
 */
import { AFTER_PREFIX, isEnded, stepRun } from '@kairoku-playbook/machine';
import type { RunState } from '@kairoku-playbook/machine';
import { LABELS } from './backend-options.js';
import type { Log, PaseoClient } from './client.js';
import { listAgents } from './daemon-agents.js';
import type { AgentInfo } from './daemon-agents.js';
import { ROLE_LABEL } from './manager-agent.js';
import { BUSY } from './turns.js';

/**
 * What to do with a run's agents now: the ones to cancel (at work for nothing), to archive, and those
 * done but still finishing a turn (looked at again once idle).
 */
export interface TidyPlan {
  cancel: string[];
  archive: string[];
  waiting: string[];
}

/**
 * The plan for a run's agents as the daemon lists them (archived ones are left alone). Pure: the
 * caller lists and acts. An agent at work on an attempt that ended with its report (its turn is still
 * finishing) is left until it is idle.
 */
export function tidyPlan(state: RunState, agents: ReadonlyMap<string, AgentInfo>, keep: boolean): TidyPlan {
  const plan: TidyPlan = { cancel: [], archive: [], waiting: [] };
  for (const [id, info] of agents) {
    if (info.archived) continue;
    const busy = BUSY.has(info.status);
    const verdict = info.labels[ROLE_LABEL] === 'manager' ? managerVerdict(state) : stepVerdict(state, info);
    if (verdict === 'keep') continue;
    if (busy) (verdict === 'stop' ? plan.cancel : plan.waiting).push(id);
    else if (!keep) plan.archive.push(id);
  }
  return plan;
}

type Verdict = 'keep' | 'done' | 'stop';

/** The manager serve made: done once its run has ended and no after-task is at work. */
function managerVerdict(state: RunState): Verdict {
  if (!isEnded(state.status) || state.after.some((task) => task.status === 'running')) return 'keep';
  return 'done';
}

/** A step's (or an after-task's) agent: by its attempt in the run. */
function stepVerdict(state: RunState, info: AgentInfo): Verdict {
  const name = info.labels[LABELS.step];
  const number = Number(info.labels[LABELS.attempt]);
  if (name === undefined) return 'keep';
  const run = stepRun(state, name);
  const attempt = run?.attempts.find((a) => a.attempt === number);
  const reported = attempt?.reportedAt !== undefined || attempt?.outcome !== undefined;
  // An agent of an attempt the run does not have (made after it was stopped) works for nothing.
  if (!attempt) return 'stop';
  if (attempt.endedAt !== undefined) return reported ? 'done' : 'stop';
  // Its run ended around it (canceled, failed): an after-task still at work is the exception.
  const afterTask = name.startsWith(AFTER_PREFIX);
  if (isEnded(state.status) && !(afterTask && run?.status === 'running')) return reported ? 'done' : 'stop';
  return 'keep';
}

/**
 * Lists a run's agents on the daemon and carries out the plan: cancels first, archives after. Failures
 * are logged, not thrown (the next change of the run tries again). Returns the plan carried out.
 */
export async function tidyRunAgents(
  client: PaseoClient,
  state: RunState,
  options: { keep: boolean; log: Log },
): Promise<TidyPlan> {
  const agents = await listAgents(client, { [LABELS.run]: state.id });
  const plan = tidyPlan(state, agents, options.keep);
  const act = async (type: string, agentId: string) => {
    try {
      await client.request(type, { agentId });
    } catch (error) {
      options.log(
        'warn',
        `paseo: run ${state.id}: ${type} of agent ${agentId} failed: ${(error as Error).message}`,
      );
    }
  };
  await Promise.all(plan.cancel.map((id) => act('cancel_agent_request', id)));
  await Promise.all(plan.archive.map((id) => act('archive_agent_request', id)));
  return plan;
}
