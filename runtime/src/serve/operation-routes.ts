import { setTimeout as sleep } from 'node:timers/promises';
import { operationSpecs } from '../host/operations.js';
import type { OperationSpec } from '../host/operations.js';
import type { RunState } from '@kairoku-playbook/machine';
import type { HostResult } from '../host/run-host.js';
import type { RunStore } from '../store/run-store.js';
import { REQUEST_SCHEMAS } from './schemas.js';

/**
 * The operation a POST under `/api/v1/runs/ID/` names: `segments` are the path after the run's id,
 * matched against each operation's route (`:name` segments read as parameters). Undefined when none
 * matches.
 */
export function routeOperation(
  segments: readonly string[],
): { spec: OperationSpec; params: Record<string, string> } | undefined {
  for (const spec of operationSpecs()) {
    const pattern = spec.route.split('/');
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((part, i) => {
      if (part.startsWith(':')) {
        params[part.slice(1)] = segments[i]!;
        return true;
      }
      return part === segments[i];
    });
    if (!matches) continue;
    if (!(spec.body in REQUEST_SCHEMAS))
      throw new Error(`operation "${spec.type}" takes a body serve has no schema for: "${spec.body}"`);
    return { spec, params };
  }
  return undefined;
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
