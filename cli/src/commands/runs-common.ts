/** What the `runs` subcommands share: a stored run read by id, and the `serve` that owns its workspace. */
import { findServe } from '@kairoku-playbook/runtime';
import type { RunState, RunStore, ServeInfo } from '@kairoku-playbook/runtime';
import { closest } from '@kairoku-playbook/grammar';
import { UsageError } from '../io.js';
import type { operateThroughServe as OperateThroughServe } from './serve-client.js';

/** A stored run, or a usage error that names the store and a run id close to the one given. */
export function load(store: RunStore, id: string): RunState {
  let state: RunState | undefined;
  try {
    state = store.load(id);
  } catch (error) {
    throw new UsageError(`cannot read run ${id}: ${(error as Error).message}`);
  }
  if (state) return state;
  const ids = store.list().entries.map((r) => r.id);
  const suggestion = closest(id, ids);
  throw new UsageError(
    `no run "${id}" in ${store.folder}${suggestion ? `; did you mean "${suggestion}"?` : ''}`,
  );
}

/** An operation through the serve (its client, `operateThroughServe`, brings node:http: loaded only then). */
export function viaServe(...args: Parameters<typeof OperateThroughServe>): Promise<number> {
  return import('./serve-client.js').then((client) => client.operateThroughServe(...args));
}

/** The `serve` that owns the run's workspace, when one is up: operations then go through it. */
export function workspaceServeOf(store: RunStore, state: RunState): ServeInfo | undefined {
  return state.workspace === undefined ? undefined : findServe(store.home, state.workspace);
}
