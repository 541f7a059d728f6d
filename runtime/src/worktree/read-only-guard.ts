import type { RunEvent } from '@kairoku-playbook/machine';
import { changesSince, isWorktreeError, snapshotWorktree } from './git-snapshot.js';

export type ReadOnlyViolated = Extract<RunEvent, { type: 'read-only-violated' }>;

/**
 * The read-only check at a backend's edge (SPEC §3.3): a snapshot of the run's worktree when a
 * read-only attempt starts (`begin`), compared when its agent's turn ends (`end`), before its report
 * is fed to the run. A change, or a worktree git cannot read, gives the `read-only-violated` event
 * that fails the attempt. The core never runs git: it only receives that event.
 */
export class ReadOnlyGuard {
  private readonly snapshots = new Map<string, string>();

  constructor(readonly worktree: string) {}

  /** At the start of a read-only attempt; the failing event when the worktree cannot be checked. */
  begin(step: string, attempt: number): ReadOnlyViolated | undefined {
    const snapshot = snapshotWorktree(this.worktree);
    if (isWorktreeError(snapshot)) return unreadableWorktree(step, attempt, snapshot.error);
    this.snapshots.set(key(step, attempt), snapshot);
    return undefined;
  }

  /**
   * When the agent's turn ends (a report, or a turn without one): the failing event when the
   * worktree changed since `begin`, else undefined. An attempt `begin` did not see is not checked.
   * `more`: the attempt may take another turn (it ended one without a report and will be reminded),
   * so its snapshot is kept for that turn's end.
   */
  end(step: string, attempt: number, more = false): ReadOnlyViolated | undefined {
    const before = this.snapshots.get(key(step, attempt));
    if (before === undefined) return undefined;
    if (!more) this.snapshots.delete(key(step, attempt));
    const changes = changesSince(this.worktree, before);
    if (changes === undefined) return undefined;
    if (isWorktreeError(changes)) return unreadableWorktree(step, attempt, changes.error);
    return { type: 'read-only-violated', step, attempt, paths: changes };
  }

  /** Forgets an attempt that ended otherwise (stopped, timed out). */
  forget(step: string, attempt: number): void {
    this.snapshots.delete(key(step, attempt));
  }
}

/** The failing event of an attempt whose worktree git cannot read. */
export function unreadableWorktree(step: string, attempt: number, error: string): ReadOnlyViolated {
  return {
    type: 'read-only-violated',
    step,
    attempt,
    paths: [],
    reason: `cannot check the read-only role: ${error}`,
  };
}

function key(step: string, attempt: number): string {
  return `${step}#${attempt}`;
}
