import type { Ir } from '@kairoku-playbook/compiler';
import type { RunState } from '@kairoku-playbook/machine';
import { WriteFailed } from '../driver/driver.js';
import { FileWriteError } from '../store/atomic-write.js';
import { lockStore } from '../store/lock.js';
import { describeRoomConflict } from '../store/room.js';
import type { RoomConflict } from '../store/room.js';
import { RunStore } from '../store/run-store.js';
import { loadMaskKey } from './mask-key.js';
import { refused, refusedValue } from './refusal.js';
import type { HostRefusal, HostResult } from './refusal.js';
import { HOST_MANAGER } from './run-host-types.js';
import type { RunChange, RunHostOptions } from './run-host-types.js';
import { fileStamp } from '../store/run-index.js';
import { watchStore } from './store-watch.js';

/**
 * What every mode of the run host shares: the store and its lock, the clock and the mask key, and the
 * one way a run is written (`save`: whole, fsynced, told to subscribers with a version) and read.
 */
export class RunBook {
  readonly store: RunStore;
  readonly clock: () => number;
  private readonly listeners = new Set<(change: RunChange) => void>();
  private readonly removalListeners = new Set<(id: string) => void>();
  private readonly versions = new Map<string, number>();
  /** starts at the clock, so a later host's versions follow an earlier one's */
  private sequence: number;
  /** `watchOtherWriters`: the watch, and each run file's stamp as this host last wrote it */
  private storeWatch: { close: () => void } | undefined;
  private ownStamps: Map<string, string> | undefined;
  private maskKeyOfHome: Uint8Array | undefined;
  private depth = 0;

  constructor(readonly options: RunHostOptions) {
    this.store = new RunStore(options.home);
    this.clock = options.clock ?? Date.now;
    this.sequence = this.clock();
  }

  get workspace(): string {
    return this.options.workspace;
  }

  /** The manager recorded on runs this host drives itself. */
  get manager(): string {
    return this.options.manager ?? HOST_MANAGER;
  }

  get maskKey(): Uint8Array {
    return (this.maskKeyOfHome ??= loadMaskKey(this.store.home));
  }

  subscribe(listener: (change: RunChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Listens for run files removed (by this process or, once watched, another); returns the function that stops. */
  subscribeRemovals(listener: (id: string) => void): () => void {
    this.removalListeners.add(listener);
    return () => this.removalListeners.delete(listener);
  }

  /** A run file was removed: subscribers hear it. */
  tellRemoved(id: string): void {
    this.versions.delete(id);
    this.ownStamps?.delete(id);
    for (const listener of this.removalListeners) listener(id);
  }

  version(id: string): number {
    return this.versions.get(id) ?? 0;
  }

  /** Writes a run file (whole, fsynced) and tells subscribers. */
  save(state: RunState): void {
    try {
      this.store.save(state);
    } catch (error) {
      throw new WriteFailed(`run ${state.id} could not be written: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (this.ownStamps) {
      const stamp = fileStamp(this.store.path(state.id));
      if (stamp !== undefined) this.ownStamps.set(state.id, stamp);
    }
    this.tell(state);
  }

  /** A new version of a run for the subscribers. */
  tell(state: RunState): void {
    const version = ++this.sequence;
    this.versions.set(state.id, version);
    for (const listener of this.listeners) listener({ state, version });
  }

  load(id: string): HostResult<RunState> {
    let state: RunState | undefined;
    try {
      state = this.store.load(id);
    } catch (error) {
      return refused('unreadable-run', `run ${id} cannot be read: ${(error as Error).message}`, 'conflict');
    }
    // (an id as given, cut: a hostile 5,000-character one is not sent back whole)
    if (!state)
      return refused(
        'unknown-run',
        `there is no run "${id.length > 80 ? `${id.slice(0, 80)}…` : id}"`,
        'not-found',
      );
    return { ok: true, value: state };
  }

  /** The store's lock around a change (other processes write the store too); re-entrant. */
  locked<T>(action: () => T): T {
    if (this.depth > 0) return action();
    this.depth++;
    try {
      return lockStore(this.store.folder, action);
    } finally {
      this.depth--;
    }
  }

  /** No room for another active run: the workspace has one, or the playbook is at `limits.concurrency`. */
  roomRefusal(conflict: RoomConflict, ir: Ir): HostRefusal {
    const help = this.options.roomHelp ?? {
      cancel: (id: string) => `the panel or kairoku-playbook runs cancel ${id}`,
      decide: (id: string, gate: string) => `the panel or kairoku-playbook runs decide ${id} ${gate} CHOICE`,
    };
    return refusedValue(
      conflict.kind === 'workspace' ? 'workspace-busy' : 'concurrency-limit',
      describeRoomConflict(conflict, ir, help.cancel, help.decide),
      'conflict',
    );
  }

  /**
   * Subscribers also hear of run files other processes write, as soon as they land (an inotify watch
   * on the run folder); `ours` says which runs this host writes itself (their file is what it wrote).
   */
  watchOtherWriters(ours: (id: string) => boolean, log?: (line: string) => void): void {
    if (this.storeWatch) return;
    this.ownStamps = new Map();
    this.storeWatch = watchStore({
      store: this.store,
      ownStamp: (id) => this.ownStamps?.get(id),
      changed: (state) => {
        if (!ours(state.id)) this.tell(state);
      },
      removed: (id) => this.tellRemoved(id),
      ...(log ? { log } : {}),
    });
  }

  close(): void {
    this.storeWatch?.close();
    this.listeners.clear();
    this.removalListeners.clear();
  }
}

/** The store's disk refused a write (full, read-only, failing): the change is not made; try again later. */
export function isStorageFault(error: unknown): boolean {
  return error instanceof WriteFailed || FileWriteError.from(error) !== undefined;
}
