import type { Backend } from '../driver/backend.js';
import { Driver } from '../driver/driver.js';
import { isEnded } from '@kairoku-playbook/machine';
import type { CarriedEffect, RunEvent, RunState, TransitionRefusal } from '@kairoku-playbook/machine';
import { findRoomConflict } from '../store/room.js';
import { outboxBackend, withCarried, withoutOutbox } from './outbox.js';
import { fromTransition } from './refusal.js';
import type { HostResult } from './refusal.js';
import type { RunBook } from './run-book.js';
import type { Changed, ManagedChange } from './run-host-types.js';

/**
 * The managed mode (the MCP server: a manager agent decides; `runs cancel` of a run no process
 * drives): no claim, no autopilot; each change a one-shot under the store's lock — load, a driver
 * over the caller's backend, the events, save — so processes that share a run file take turns.
 */
export class ManagedRuns {
  /** secret input values of the managed runs started here (`startManaged`), in memory only */
  readonly secrets = new Map<string, Record<string, unknown>>();

  constructor(private readonly book: RunBook) {}

  /**
   * A managed change of `loaded` (under the store's lock): a driver without autopilot, `work`, and a
   * reopened run handed to its new manager. `fresh`: a run not yet on disk, written even when `work`
   * changed nothing.
   */
  apply<B extends Backend, T>(
    loaded: RunState,
    how: ManagedChange<B>,
    work: (driver: Driver, backend: B) => T,
    fresh: boolean,
  ): HostResult<Changed<T>> {
    if (how.reopenAs !== undefined && isEnded(loaded.status)) {
      const workspace = loaded.workspace ?? this.book.workspace;
      const conflict = findRoomConflict(this.book.store.loadActive().runs, loaded.ir, workspace, loaded.id);
      if (conflict) return { ok: false, refusal: this.book.roomRefusal(conflict, loaded.ir) };
    }
    const backend = how.backend(loaded);
    let saved = false;
    const write = (next: RunState): RunState => {
      const written = how.written ? how.written(next) : next;
      this.book.save(written);
      return written;
    };
    const driver = new Driver(loaded, {
      backend,
      autopilot: false,
      clock: this.book.clock,
      secrets: this.secrets.get(loaded.id) ?? {},
      maskKey: this.book.maskKey,
      persist: (next) => {
        saved = true;
        write(next);
      },
    });
    const value = how.around ? how.around(driver, () => work(driver, backend)) : work(driver, backend);
    let state = driver.state;
    if (
      how.reopenAs !== undefined &&
      state !== loaded &&
      (state.manager !== how.reopenAs || state.archivedAt !== undefined)
    ) {
      const { archivedAt: _archived, ...rest } = state;
      state = write({ ...rest, manager: how.reopenAs });
    } else if (fresh && !saved) state = write(state);
    else if (how.written) state = how.written(state);
    return { ok: true, value: { value, state } };
  }

  /**
   * An operator's decision on a run no process here hosts (a manager agent's MCP server manages it,
   * or this host drives nothing of its own): applied in place, as a managed change, so the run is not
   * taken from its manager (no claim, no autopilot, its manager kept). Its effects are saved on the run
   * in the same write (its outbox), and performed by the process that hosts it: the manager's server
   * wakes its manager with the decision, stops a cancel's agents, sends a nudge.
   */
  inPlace(loaded: RunState, event: RunEvent, reopenAs?: string): HostResult<RunState> {
    let refusal: TransitionRefusal | undefined;
    const backend = outboxBackend(loaded.backend);
    const changed = this.apply(
      loaded,
      {
        backend: () => backend,
        // (the effects a transition makes are kept before the driver writes its state)
        written: (state) => withCarried(state, backend.kept),
        ...(reopenAs !== undefined ? { reopenAs } : {}),
      },
      (driver) => {
        refusal = driver.send(event);
      },
      false,
    );
    if (!changed.ok) return changed;
    if (refusal) return fromTransition(refusal);
    return { ok: true, value: changed.value.state };
  }

  /**
   * Takes a run's outbox (what changes applied in place left for its host) under the store's lock: the
   * run is saved without it, and the effects are the caller's to perform, in order.
   */
  takeOutbox(id: string): HostResult<CarriedEffect[]> {
    return this.book.locked(() => {
      const loaded = this.book.load(id);
      if (!loaded.ok) return loaded;
      const carried = loaded.value.outbox ?? [];
      if (carried.length) this.book.save(withoutOutbox(loaded.value));
      return { ok: true, value: carried };
    });
  }
}
