/**
 * How the `paseo` backend takes up, after a restart of the runtime, the run's agents that outlived
 * the old process: which of them are still the run's current attempts, and whether they can still
 * report here.
 */
import { stepIr, stepRun } from '@kairoku-playbook/machine';
import type { BackendContext } from '../../driver/backend.js';
import type { ReportEndpoint } from '../report-endpoint.js';
import type { ReadOnlyGuard } from '../../worktree/read-only-guard.js';
import { LABELS } from './backend-options.js';
import type { Attempts, Tracked } from './attempts.js';
import type { Log } from './client.js';
import type { AgentInfo } from './daemon-agents.js';
import { BUSY } from './turns.js';

export interface Adoption {
  known: ReadonlyMap<string, AgentInfo>;
  attempts: Attempts;
  endpoint: ReportEndpoint;
  /** the read-only check: a snapshot kept from the attempt's start lets a read-only agent report */
  guard: ReadOnlyGuard;
  /** the connection drops so far, the epoch of the turns taken up */
  drops: number;
  log: Log;
}

/**
 * With a persistent report endpoint (serve's, at the port the agent was given), its token is minted
 * again (the same token: an HMAC of its attempt under the store's key) and the attempt goes on as any
 * other: its report lands, and a turn that ended without one (while nothing watched) gets the
 * reminder. Otherwise it cannot report any more: one whose turn already ended is lost now, a running
 * one when its turn ends. A read-only role's agent reports as any other when the snapshot of its
 * start was kept under the store's home (serve keeps them), and is lost the same way when it died
 * with the old process. (Agents that no longer exist are lost by the store's recovery, through
 * `agentExists`.)
 */
export function adoptAgents(context: BackendContext, adoption: Adoption): void {
  const { known, attempts, endpoint, guard, drops, log } = adoption;
  const state = context.state();
  for (const [agentId, info] of known) {
    if (attempts.ofAgent(agentId) || info.archived) continue;
    const name = info.labels[LABELS.step];
    const attempt = Number(info.labels[LABELS.attempt]);
    const run = name === undefined ? undefined : stepRun(state, name);
    const current = run?.attempts[run.attempts.length - 1];
    if (!run || run.status !== 'running' || current?.attempt !== attempt || current.agent !== agentId)
      continue;
    const readOnly = stepIr(state, name!)?.readOnly === true;
    const orphan = cannotReport(endpoint, agentId, info, readOnly && !guard.has(name!, attempt));
    const tracked: Tracked = {
      step: name!,
      attempt,
      kind: 'agent',
      phase: BUSY.has(info.status) ? 'turn' : 'idle',
      readOnly,
      context,
      agentId,
      turnEpoch: drops,
      ...(orphan !== undefined ? { orphan } : {}),
    };
    attempts.add(tracked);
    if (orphan !== undefined) {
      // Its report, if it tries one, is refused with this reason rather than as an unknown token.
      endpoint.deny({ run: tracked.context.state().id, step: tracked.step, attempt }, orphan);
      if (tracked.phase === 'idle') attempts.loseOrphan(tracked);
      continue;
    }
    attempts.mint(tracked, state);
    log('info', `paseo: ${tracked.step} (attempt ${attempt}) is Paseo agent ${agentId}, taken up`);
    if (tracked.phase === 'idle') {
      // Its turn ended while no runtime watched: a report it tried then found no endpoint.
      log('info', `paseo: ${tracked.step} (attempt ${attempt}) ended its turn while the runtime was down`);
      context.emit({ type: 'agent-stopped', step: tracked.step, attempt });
    }
  }
}

/** Why an adopted agent cannot report to this runtime, or undefined when it can. */
function cannotReport(
  endpoint: ReportEndpoint,
  agentId: string,
  info: AgentInfo,
  /** a read-only role's agent whose snapshot did not survive the old process */
  uncheckable: boolean,
): string | undefined {
  const lost = `Paseo agent ${agentId} outlived a restart of the runtime`;
  if (!endpoint.persistent) return `${lost}, and with it the token it reports with`;
  const given = info.labels[LABELS.reportPort];
  const here = new URL(endpoint.url).port;
  if (given !== here)
    return given === undefined
      ? `${lost}, and with it the token it reports with (it was not given this runtime's report endpoint)`
      : `${lost}: it reports to port ${given}, and the report endpoint listens on ${here} now (${given} was taken)`;
  if (uncheckable)
    return `${lost}: its read-only role's report cannot be checked (the worktree's snapshot from its start died with the old process)`;
  return undefined;
}
