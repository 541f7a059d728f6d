import { setTimeout as sleep } from 'node:timers/promises';
import { operationSpecs } from '../host/operations.js';
import type { OperationSpec } from '../host/operations.js';
import type { RunState } from '@kairoku-playbook/machine';
import type { HostResult } from '../host/run-host.js';
import type { RunStore } from '../store/run-store.js';
import { refuse, refuseWith } from './answers.js';
import type { Route, RouteCall } from './routes.js';
import { REQUEST_SCHEMAS } from './schemas.js';
import type { RequestKind } from './schemas.js';
import { runDetail } from './views.js';

/**
 * The routes of the operators' operations: one per entry of the operations' table
 * (`host/operations.ts`), `POST /api/v1/runs/:id/ROUTE`, its body checked against the schema the entry
 * names. An operation added to the table is routed with nothing else edited.
 */
export function operationRoutes(): Route[] {
  return operationSpecs().map((spec) => {
    if (!(spec.body in REQUEST_SCHEMAS))
      throw new Error(`operation "${spec.type}" takes a body serve has no schema for: "${spec.body}"`);
    return {
      method: 'POST',
      path: `runs/:id/${spec.route}`,
      body: spec.body as RequestKind,
      handle: (call) => operateOn(call, spec),
    };
  });
}

async function operateOn(call: RouteCall, spec: OperationSpec): Promise<void> {
  const { res, serve } = call;
  const { host, seen } = serve;
  const id = call.params.id!;
  const operation = spec.read(call.params, call.body as Record<string, string>);
  const got = host.get(id);
  if (!got.ok) return refuseWith(res, got.refusal);
  if (got.value.workspace !== host.workspace)
    return refuse(res, 404, 'unknown-run', `run ${id} belongs to another workspace`);
  let asked: { owner: number; request: string } | undefined;
  const result = host.operate(id, operation, (owner, request) => (asked = { owner, request }));
  if (!result.ok) return refuseWith(res, result.refusal);
  let run = result.value;
  // A run another live process drives was asked to apply it: answered once that process has.
  if (asked) {
    const applied = await appliedElsewhere(host.store, id, asked, run, serve.options.askTimeoutMs);
    if (!applied.ok) return refuseWith(res, applied.refusal);
    run = applied.value;
  }
  serve.answer(res, 200, 'run', runDetail(run, host.version(id), seen.has(id)));
}

/**
 * An operation asked of the live process that drives a run (`RunHost.operate`'s mailbox route),
 * answered as a person expects an acknowledged decision to be: done. Waits for that process to take
 * the request, then for its write; a request not taken within `timeoutMs` is taken back (nothing is
 * done, ever) and refused, saying so.
 */
export async function appliedElsewhere(
  store: RunStore,
  id: string,
  asked: { owner: number; request: string },
  before: RunState,
  timeoutMs = 5000,
): Promise<HostResult<RunState>> {
  const deadline = Date.now() + timeoutMs;
  while (!store.requestTaken(asked.request)) {
    if (Date.now() >= deadline && store.retractRequest(asked.request))
      return {
        ok: false,
        refusal: {
          code: 'not-applied',
          message: `run ${id} is driven by process ${asked.owner}, which did not take the request within ${Math.round(timeoutMs / 1000)} s: nothing was done; try again, or stop that process`,
          kind: 'conflict',
        },
      };
    await sleep(50);
  }
  // Taken: its write follows at once (the history grows with the event, or with its refusal's note).
  const written = Date.now() + 2000;
  for (;;) {
    const now = store.load(id);
    if (now && (now.history.size !== before.history.size || Date.now() >= written))
      return { ok: true, value: now };
    if (!now) return { ok: true, value: before };
    await sleep(25);
  }
}
