import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import type { RunState } from '@kairoku-playbook/machine';
import { fileStamp } from '../store/run-index.js';
import type { RunStore } from '../store/run-store.js';

export interface StoreWatchOptions {
  store: RunStore;
  /** the stamp of the run file as this process last wrote it (its own writes are not news) */
  ownStamp: (id: string) => string | undefined;
  /** a run file another process wrote, as it reads now */
  changed: (state: RunState) => void;
  /** a run file removed (`runs prune`) */
  removed?: (id: string) => void;
  /** how long a burst of events on one file is let settle (default 30 ms) */
  settleMs?: number;
  log?: (line: string) => void;
}

/**
 * Watches the store's run folder (one inotify watch on Linux: no polling) for run files written by
 * other processes — a manager agent's MCP server, a step agent's server writing its report, `runs
 * cancel` — so a host's subscribers (serve's live updates) see those writes as they land. Each write is
 * a rename of a whole file (write, fsync, rename), so a file that changed is read whole or not at all.
 */
export function watchStore(options: StoreWatchOptions): { close: () => void } {
  const { store } = options;
  const pending = new Map<string, ReturnType<typeof setTimeout>>();
  const seen = new Map<string, string>();
  let watcher: FSWatcher | undefined;
  try {
    store.makeFolder();
    watcher = watch(store.folder, { persistent: false }, (_event, name) => {
      if (typeof name !== 'string' || name.startsWith('.') || !name.endsWith('.json')) return;
      const id = name.slice(0, -'.json'.length);
      clearTimeout(pending.get(id));
      pending.set(
        id,
        setTimeout(() => {
          pending.delete(id);
          look(id);
        }, options.settleMs ?? 30),
      );
    });
    watcher.on('error', (error) =>
      options.log?.(`serve: the run folder cannot be watched: ${error.message}`),
    );
  } catch (error) {
    options.log?.(`serve: the run folder cannot be watched: ${(error as Error).message}`);
  }

  function look(id: string): void {
    let stamp: string | undefined;
    try {
      stamp = fileStamp(store.path(id));
    } catch {
      return; // not a run id (the store names no such file)
    }
    if (stamp === undefined) {
      seen.delete(id);
      options.removed?.(id); // (one it never listed is removed from nothing)
      return;
    }
    if (stamp === options.ownStamp(id) || stamp === seen.get(id)) return;
    seen.set(id, stamp);
    let state: RunState | undefined;
    try {
      state = store.load(id);
    } catch (error) {
      options.log?.(`serve: run file ${id}.json changed and does not read: ${(error as Error).message}`);
      return;
    }
    if (state) options.changed(state);
  }

  return {
    close() {
      watcher?.close();
      for (const timer of pending.values()) clearTimeout(timer);
      pending.clear();
    },
  };
}
