/**
 * `runs cancel`, `pause`, `resume` and `archive`: an operator's event on a stored run, through the
 * `serve` of its workspace when one is up, else by a run host of this process.
 */
import { RunHost, forTerminal } from '@kairoku-playbook/runtime';
import type { Operation, OperatorRequest, RunState, RunStore } from '@kairoku-playbook/runtime';
import { UsageError } from '../io.js';
import type { CommandIo } from '../io.js';
import { busyAsUsage } from './run-common.js';
import { workspaceServeOf, viaServe } from './runs-common.js';

export function cancel(
  store: RunStore,
  state: RunState,
  io: CommandIo,
  reason: string | undefined,
): number | Promise<number> {
  return operate(store, state, io, reason === undefined ? { type: 'cancel' } : { type: 'cancel', reason });
}

/** Pauses or resumes a run. */
export function pauseOrResume(
  store: RunStore,
  state: RunState,
  io: CommandIo,
  what: 'pause' | 'resume',
): number | Promise<number> {
  return operate(store, state, io, { type: what });
}

/**
 * An operator's event on a run: through the `serve` of its workspace when one is up (it hosts the
 * run); otherwise the run host's one `operate` routes it (asked of the live process driving it, or
 * applied in place with its effects saved on the run for its next host).
 */
function operate(
  store: RunStore,
  state: RunState,
  io: CommandIo,
  event: OperatorRequest,
): number | Promise<number> {
  const serve = workspaceServeOf(store, state);
  if (serve)
    return viaServe(
      serve,
      state.id,
      event.type,
      event.type === 'cancel' && event.reason !== undefined ? { reason: event.reason } : {},
      io,
    );
  const operation: Operation =
    event.type === 'cancel'
      ? { type: 'cancel', reason: event.reason ?? 'canceled by kairoku-playbook runs cancel' }
      : event;
  let asked: number | undefined;
  const result = withHostOf(store, state, (host) =>
    host.operate(state.id, operation, (owner) => (asked = owner)),
  );
  if (!result.ok) {
    if (result.refusal.kind === 'not-found') throw new UsageError(result.refusal.message);
    io.stderr(`kairoku-playbook: run ${state.id}: ${forTerminal(result.refusal.message)}\n`);
    return 1;
  }
  if (asked !== undefined)
    io.stdout(`run ${state.id}: asked process ${asked}, which is driving it, to ${event.type} it\n`);
  else io.stdout(`run ${state.id} ${result.value.status}\n`);
  return 0;
}

export function archive(store: RunStore, state: RunState, io: CommandIo): number | Promise<number> {
  const serve = workspaceServeOf(store, state);
  if (serve) return viaServe(serve, state.id, 'archive', {}, io);
  if (state.archivedAt) {
    io.stdout(`run ${state.id} was already archived at ${state.archivedAt}\n`);
    return 0;
  }
  const archived = withHostOf(store, state, (host) => host.operate(state.id, { type: 'archive' }));
  if (!archived.ok) {
    if (archived.refusal.kind === 'not-found') throw new UsageError(archived.refusal.message);
    io.stderr(`kairoku-playbook: ${forTerminal(archived.refusal.message)}\n`);
    return 1;
  }
  io.stdout(`run ${state.id} archived\n`);
  return 0;
}

/**
 * `change` by a run host of this process, for one write to a run no process drives: under the store's
 * lock, and written as every write is (a store that stays busy is a usage refusal that says to try
 * again).
 */
function withHostOf<T>(store: RunStore, state: RunState, change: (host: RunHost) => T): T {
  const host = new RunHost({ home: store.home, workspace: state.workspace ?? '', backend: state.backend });
  try {
    return busyAsUsage(() => change(host));
  } finally {
    host.close();
  }
}
