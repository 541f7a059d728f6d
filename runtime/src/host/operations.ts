import { AFTER_PREFIX, isEnded, vecToArray } from '@kairoku-playbook/machine';
import type { RunEvent, RunState } from '@kairoku-playbook/machine';
import type { HostRefusal } from './refusal.js';

/**
 * What an operator can do to a run (the panel's buttons, `runs`, the VS Code view), one entry each in
 * `OPERATIONS`: its serve route, the body it takes, the operation it reads from them, and the run
 * event it applies. `RunHost.operate` applies any of them wherever the run is (hosted here, asked of
 * the process driving it, or in place with its effects carried); serve's API routes them from this
 * table. Adding an operation is adding an entry (`registerOperation`), nothing else.
 */
export type Operation =
  | { type: 'cancel'; reason?: string }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'restart'; step: string }
  | { type: 'decide'; step: string; choice: string; comment?: string }
  | { type: 'nudge'; step: string; message: string }
  | { type: 'retry'; step: string }
  | { type: 'start-after'; name: string }
  | { type: 'archive' };

/** What an operation does to a run: an event for its driver, a refusal now, or archiving (not an event). */
export type OperationEffect = { event: RunEvent } | { refusal: HostRefusal } | { archive: true };

export interface OperationSpec {
  type: string;
  /**
   * serve's route under `/api/runs/ID/`: segments, `:name` ones read into `params` (`gates/:step`);
   * the request is a POST
   */
  route: string;
  /** the name of the request body's schema in serve's API (`runtime/src/serve/schemas.ts`) */
  body: string;
  /** the operation, from the route's parameters and the (validated) body */
  read(params: Record<string, string>, body: Record<string, string>): Operation;
  /** what it does to `state` */
  apply(state: RunState, operation: Operation): OperationEffect;
  /** it may reopen an ended run: the run needs room as a new one does, and is handed to its new manager */
  reopens?: boolean;
}

const OPERATIONS = new Map<string, OperationSpec>();

/** Adds an operation (its type not yet taken); every caller of `operate` and serve's API have it from then on. */
export function registerOperation(spec: OperationSpec): void {
  if (OPERATIONS.has(spec.type)) throw new Error(`operation "${spec.type}" is registered already`);
  OPERATIONS.set(spec.type, spec);
}

/** The operation of a type, if there is one. */
export function operationSpec(type: string): OperationSpec | undefined {
  return OPERATIONS.get(type);
}

/** Every operation, in the order they were registered. */
export function operationSpecs(): OperationSpec[] {
  return [...OPERATIONS.values()];
}

function refusal(code: string, message: string, kind: HostRefusal['kind'] = 'conflict'): OperationEffect {
  return { refusal: { code, message, kind } };
}

/** `operation` as the member of the union its spec's `type` says it is. */
function as<T extends Operation['type']>(operation: Operation, _type: T): Extract<Operation, { type: T }> {
  return operation as Extract<Operation, { type: T }>;
}

registerOperation({
  type: 'cancel',
  route: 'cancel',
  body: 'cancel',
  read: (_params, body) => ({ type: 'cancel', reason: body.reason ?? 'canceled from the panel' }),
  apply: (_state, operation) => ({
    event: { type: 'cancel', reason: as(operation, 'cancel').reason ?? 'canceled from the panel' },
  }),
});
for (const type of ['pause', 'resume'] as const)
  registerOperation({
    type,
    route: type,
    body: 'empty',
    read: () => ({ type }),
    apply: () => ({ event: { type } }),
  });
registerOperation({
  type: 'archive',
  route: 'archive',
  body: 'empty',
  read: () => ({ type: 'archive' }),
  apply: () => ({ archive: true }),
});
registerOperation({
  type: 'restart',
  route: 'restart',
  body: 'restart',
  read: (_params, body) => ({ type: 'restart', step: body.step! }),
  apply: (_state, operation) => ({ event: { type: 'restart-from', step: as(operation, 'restart').step } }),
  reopens: true,
});
registerOperation({
  type: 'decide',
  route: 'gates/:step',
  body: 'decide',
  read: ({ step }, { choice, comment }) => ({
    type: 'decide',
    step: step!,
    choice: choice!,
    ...(comment !== undefined ? { comment } : {}),
  }),
  apply: (_state, operation) => {
    const { step, choice, comment } = as(operation, 'decide');
    return { event: { type: 'gate-decided', step, choice, ...(comment !== undefined ? { comment } : {}) } };
  },
});
registerOperation({
  type: 'nudge',
  route: 'steps/:step/nudge',
  body: 'nudge',
  read: ({ step }, { message }) => ({ type: 'nudge', step: step!, message: message! }),
  apply: (_state, operation) => {
    const { step, message } = as(operation, 'nudge');
    return { event: { type: 'nudge-step', step, message } };
  },
});
registerOperation({
  type: 'retry',
  route: 'steps/:step/retry',
  body: 'empty',
  read: ({ step }) => ({ type: 'retry', step: step! }),
  apply: (state, operation) => {
    const { step: name } = as(operation, 'retry');
    // A step the run does not have is the transition function's refusal (`unknown-step`, with a suggestion).
    const step = vecToArray(state.steps).find((s) => s.name === name);
    if (step && step.status !== 'failed' && step.status !== 'lost')
      return refusal(
        'not-failed',
        `step "${name}" is ${step.status}: only a failed or lost step can be retried`,
      );
    // A failed step has ended its run (its retries are spent): retrying it restarts the run there.
    return { event: { type: 'restart-from', step: name } };
  },
  reopens: true,
});
registerOperation({
  type: 'start-after',
  route: 'after/:name/start',
  body: 'empty',
  read: ({ name }) => ({ type: 'start-after', name: name! }),
  apply: (state, operation) => {
    const { name } = as(operation, 'start-after');
    // An after-task the run does not have is the transition function's refusal (`unknown-after-task`).
    const task = state.ir.after.find((t) => t.name === name);
    const event: OperationEffect = { event: { type: 'start-step', step: `${AFTER_PREFIX}${name}` } };
    if (!task) return event;
    if (task.trigger !== 'manual')
      return refusal(
        'not-manual',
        `after-task "${task.name}" starts by itself when the run ends; only manual ones have Start`,
      );
    if (isEnded(state.status) && !task.on.includes(state.status as 'completed' | 'failed'))
      return refusal(
        'not-on',
        `after-task "${task.name}" runs when the run ${task.on.join(' or ')}; this run ${state.status}`,
      );
    return event;
  },
});
