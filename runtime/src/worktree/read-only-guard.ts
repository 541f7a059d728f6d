import { changesSince, isWorktreeError, snapshotWorktree } from './git-snapshot.js';
import { unreadableWorktree } from './read-only-event.js';
import type { ReadOnlyViolated } from './read-only-event.js';
import type { StoredReadOnlyGuard } from './stored-guard.js';

/**
 * The read-only check at a backend's edge (SPEC §3.3): a snapshot of the run's worktree when a
 * read-only attempt starts (`begin`), compared when its agent's turn ends (`end`), before its report
 * is fed to the run. A change, or a worktree git cannot read, gives the `read-only-violated` event
 * that fails the attempt. The core never runs git: it only receives that event.
 *
 * With `kept` (a long-lived host: serve), each snapshot is also written under the store's home, so an
 * agent that outlives a restart of its host is checked against the snapshot of its start, as any other.
 */
export class ReadOnlyGuard {
  private readonly snapshots = new Map<string, string>();

  constructor(
    readonly worktree: string,
    private readonly kept?: { guard: StoredReadOnlyGuard; run: string },
  ) {}

  /** At the start of a read-only attempt; the failing event when the worktree cannot be checked. */
  begin(step: string, attempt: number): ReadOnlyViolated | undefined {
    if (this.kept) return this.kept.guard.begin(this.kept.run, step, attempt, this.worktree);
    const snapshot = snapshotWorktree(this.worktree);
    if (isWorktreeError(snapshot)) return unreadableWorktree(step, attempt, snapshot.error);
    this.snapshots.set(key(step, attempt), snapshot);
    return undefined;
  }

  /** Whether the attempt's snapshot is known here (a kept one survives a restart of the host). */
  has(step: string, attempt: number): boolean {
    return this.kept
      ? this.kept.guard.has(this.kept.run, step, attempt)
      : this.snapshots.has(key(step, attempt));
  }

  /**
   * When the agent's turn ends (a report, or a turn without one): the failing event when the
   * worktree changed since `begin`, else undefined. An attempt `begin` did not see is not checked.
   * `more`: the attempt may take another turn (it ended one without a report and will be reminded),
   * so its snapshot is kept for that turn's end.
   */
  end(step: string, attempt: number, more = false): ReadOnlyViolated | undefined {
    if (this.kept) {
      const violated = this.kept.guard.check(this.kept.run, step, attempt);
      if (!more) this.forget(step, attempt);
      return violated;
    }
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
    if (this.kept) this.kept.guard.forget(this.kept.run, step, attempt);
    this.snapshots.delete(key(step, attempt));
  }
}

function key(step: string, attempt: number): string {
  return `${step}#${attempt}`;
}
