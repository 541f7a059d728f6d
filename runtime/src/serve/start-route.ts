import type { ServerResponse } from 'node:http';
import type { StartOptions } from '../host/run-host.js';
import { refuse, refuseWith } from './answers.js';
import { PATTERN_BUDGET_MS, slowPattern } from './pattern-budget.js';
import type { PlaybookCard, StartRequest } from '@kairoku-playbook/protocol';
import type { RouteCall, ServeContext } from './routes.js';
import { playbookCard, runListItem } from './views.js';

type StartBody = StartRequest;

/** The playbooks of serve's workspace, as the start form shows them. */
export function playbookCards(serve: ServeContext): PlaybookCard[] {
  return serve.workspace.snapshot().playbooks.map((p) => playbookCard(p, serve.startOptions));
}

/**
 * `POST /api/v1/runs`: a run of a playbook of the workspace without errors, with the start options the
 * backend offers (a `newAgent` start is the backend's own: the run gets a manager agent of its own).
 */
export async function startRun(call: RouteCall): Promise<void> {
  const { res, serve } = call;
  const body = call.body as StartBody;
  const found = serve.workspace.snapshot().playbooks.find((p) => p.file === body.playbook);
  if (!found)
    return refuse(
      res,
      404,
      'unknown-playbook',
      `there is no playbook "${body.playbook}" in this workspace`,
      '/playbook',
    );
  if (!found.ir) {
    const why = playbookCard(found, serve.startOptions).why ?? 'the playbook has errors';
    return refuse(res, 409, 'playbook-has-errors', why, '/playbook');
  }
  if (refusedOption(res, serve, body)) return;
  // A playbook's pattern runs on the values in a worker first, within a budget: never on the loop unbounded.
  const slow = await slowPattern(found.ir, body.inputs);
  if (slow !== undefined)
    return refuse(
      res,
      422,
      'pattern-too-slow',
      `the pattern of input "${slow}" took more than ${PATTERN_BUDGET_MS} ms on the value given: nothing was started; give a shorter value, or simplify the playbook's pattern`,
      `/inputs/${slow}`,
    );
  const { provider, model, worktree, newAgent, currentAgent } = body.options ?? {};
  const chosen: StartOptions = {
    ...(provider !== undefined ? { provider } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(worktree ? { worktree } : {}),
  };
  const { startWithNewAgent, startWithCurrentAgent } = serve.options;
  const started =
    newAgent && startWithNewAgent
      ? await startWithNewAgent(found.ir, body.inputs, chosen)
      : currentAgent !== undefined && startWithCurrentAgent
        ? await startWithCurrentAgent(found.ir, body.inputs, chosen, currentAgent)
        : serve.host.start(found.ir, body.inputs, chosen);
  if (!started.ok) {
    // The daemon did not make the manager agent: the run failed, and the answer says why.
    if (started.refusal.code === 'manager-agent-failed')
      return refuse(res, 502, started.refusal.code, started.refusal.message);
    return refuseWith(res, started.refusal);
  }
  serve.answer(res, 201, 'started', {
    run: runListItem(started.value.state, false),
    warnings: started.value.warnings,
  });
}

/** Refuses (and says true for) a start option the backend does not offer here. */
function refusedOption(res: ServerResponse, serve: ServeContext, body: StartBody): boolean {
  const offered = serve.startOptions;
  const backend = serve.host.backendName;
  for (const option of ['newAgent', 'worktree'] as const)
    if (
      body.options?.[option] &&
      (!offered[option] || (option === 'newAgent' && !serve.options.startWithNewAgent))
    ) {
      const why = serve.options.unofferedWhy?.[option] ?? `the ${backend} backend has no "${option}" option`;
      refuse(res, 422, 'option-unsupported', why, `/options/${option}`);
      return true;
    }
  if (
    body.options?.currentAgent !== undefined &&
    (body.options.newAgent || !serve.options.startWithCurrentAgent)
  ) {
    const why = body.options.newAgent
      ? 'a run is managed by a new agent or by the current agent, not both'
      : `the ${backend} backend has no "currentAgent" option`;
    refuse(res, 422, 'option-unsupported', why, '/options/currentAgent');
    return true;
  }
  for (const option of ['provider', 'model'] as const)
    if (body.options?.[option] !== undefined && !offered.agents) {
      const why = `the ${backend} backend has no "${option}" option: its agents are not chosen by provider or model`;
      refuse(res, 422, 'option-unsupported', why, `/options/${option}`);
      return true;
    }
  return false;
}
