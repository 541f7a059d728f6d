import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { FILE_LIMITS, readTextBounded } from '@kairoku-playbook/compiler/disk';
import { join } from 'node:path';
import { writeFileAtomic } from '../store/atomic-write.js';
import { changesSince, isWorktreeError, snapshotWorktree } from './git-snapshot.js';
import { unreadableWorktree } from './read-only-event.js';
import type { ReadOnlyViolated } from './read-only-event.js';

interface StoredSnapshot {
  worktree: string;
  snapshot: string;
}

/**
 * The read-only check (SPEC §3.3) for runs driven over MCP, where `start_step` and the step agent's
 * `report_step_result` arrive in different calls, often in different processes: the worktree's
 * snapshot is kept in a small file per attempt under the store's home
 * (`read-only/<run>/<step>#<attempt>.json`) instead of in memory. Run state never holds it.
 */
export class StoredReadOnlyGuard {
  constructor(readonly folder: string) {}

  /** At the start of a read-only attempt; the failing event when the worktree cannot be checked. */
  begin(run: string, step: string, attempt: number, worktree: string): ReadOnlyViolated | undefined {
    const snapshot = snapshotWorktree(worktree);
    if (isWorktreeError(snapshot)) return unreadableWorktree(step, attempt, snapshot.error);
    mkdirSync(join(this.folder, safe(run)), { recursive: true });
    const stored: StoredSnapshot = { worktree, snapshot };
    writeFileAtomic(this.file(run, step, attempt), `${JSON.stringify(stored)}\n`);
    return undefined;
  }

  /**
   * Whether the attempt's agent changed the worktree since `begin`: the failing event, or undefined
   * (also for an attempt `begin` never saw). The snapshot is kept: a report that is then refused for
   * another reason is corrected and checked again; `forget` drops it once the attempt is settled.
   */
  check(run: string, step: string, attempt: number): ReadOnlyViolated | undefined {
    let stored: StoredSnapshot;
    const read = readTextBounded(this.file(run, step, attempt), FILE_LIMITS.runFile, 'a read-only snapshot');
    if (read.problem === 'missing') return undefined;
    try {
      if (read.problem !== undefined) throw new Error(read.message);
      stored = JSON.parse(read.text) as StoredSnapshot;
    } catch (error) {
      return unreadableWorktree(step, attempt, `its snapshot cannot be read (${(error as Error).message})`);
    }
    const changes = changesSince(stored.worktree, stored.snapshot);
    if (changes === undefined) return undefined;
    if (isWorktreeError(changes)) return unreadableWorktree(step, attempt, changes.error);
    return { type: 'read-only-violated', step, attempt, paths: changes };
  }

  /** Whether a snapshot of the attempt is kept. */
  has(run: string, step: string, attempt: number): boolean {
    return existsSync(this.file(run, step, attempt));
  }

  forget(run: string, step: string, attempt: number): void {
    rmSync(this.file(run, step, attempt), { force: true });
  }

  /** Drops every snapshot of a run (it ended). */
  forgetRun(run: string): void {
    rmSync(join(this.folder, safe(run)), { recursive: true, force: true });
  }

  private file(run: string, step: string, attempt: number): string {
    return join(this.folder, safe(run), `${safe(step)}#${attempt}.json`);
  }
}

/** Run ids and step names are plain names, but a file name must never climb out of its folder. */
function safe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
}
