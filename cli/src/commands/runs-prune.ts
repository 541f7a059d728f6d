/** `runs prune --ended-before DATE`: deletes the run files of runs that ended long ago, archived ones only unless asked. */
import { statSync } from 'node:fs';
import { StoreBusyError, forTerminal, lockStore } from '@kairoku-playbook/runtime';
import type { RunIndexEntry, RunStore } from '@kairoku-playbook/runtime';
import { UsageError } from '../io.js';
import type { CommandIo } from '../io.js';

export interface PruneOptions {
  /** `--ended-before DATE`, as given */
  endedBefore: string | undefined;
  /** `--unarchived`: ended runs that are not archived go too */
  unarchived: boolean;
  /** `--dry-run`: say what would be deleted, delete nothing */
  dryRun: boolean;
}

/**
 * Deletes (or, `--dry-run`, names) the runs that ended before the date: archived ones only, unless
 * `--unarchived`; never a run with work going or one another process drives. Under the store's lock,
 * so nothing reopens a run while it goes. Each is named on standard output; the last line says how
 * many, how much, and how many ended runs were kept because they are not archived.
 */
export function prune(store: RunStore, io: CommandIo, options: PruneOptions): number {
  const cutoff = cutoffOf(options.endedBefore);
  const run = () => {
    const { entries, problems } = store.list();
    for (const problem of problems)
      io.stderr(`kairoku-playbook: warning: cannot read ${problem.file} (kept): ${problem.message}\n`);
    const old = entries.filter(
      (r) => !r.workGoing && r.endedAt !== null && r.endedAt < cutoff && store.owner(r.id) === undefined,
    );
    const going = old.filter((r) => options.unarchived || r.archivedAt !== undefined);
    let bytes = 0;
    for (const entry of going.sort((a, b) => (a.endedAt! < b.endedAt! ? -1 : 1))) {
      bytes += sizeOf(store.path(entry.id));
      if (!options.dryRun) store.remove(entry.id);
      io.stdout(`${options.dryRun ? 'would delete' : 'deleted'} ${line(entry)}\n`);
    }
    const kept = old.length - going.length;
    io.stdout(
      `${options.dryRun ? 'would delete' : 'deleted'} ${going.length} run(s) that ended before ${cutoff} ` +
        `(${(bytes / 1_048_576).toFixed(1)} MiB)` +
        (kept
          ? `; kept ${kept} ended run(s) that are not archived (archive them first, or add --unarchived)`
          : '') +
        '\n',
    );
    return 0;
  };
  try {
    return lockStore(store.folder, run);
  } catch (error) {
    if (error instanceof StoreBusyError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/** `--ended-before`: a date (`2026-06-01`, midnight UTC) or a time (`2026-06-01T12:00:00Z`), as ISO. */
function cutoffOf(given: string | undefined): string {
  if (given === undefined)
    throw new UsageError('runs prune needs --ended-before DATE (for example --ended-before 2026-06-01)');
  const date = /^\d{4}-\d{2}-\d{2}$/.test(given) ? `${given}T00:00:00Z` : given;
  const time = /^\d{4}-\d{2}-\d{2}T/.test(date) ? Date.parse(date) : NaN;
  if (Number.isNaN(time))
    throw new UsageError(
      `--ended-before takes a date (2026-06-01) or an ISO time (2026-06-01T12:00:00Z), not "${given}"`,
    );
  return new Date(time).toISOString();
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function line(entry: RunIndexEntry): string {
  const archived = entry.archivedAt !== undefined ? ', archived' : '';
  // A run file is read as it is on disk: nothing in it reaches the terminal raw.
  return forTerminal(`${entry.id} (${entry.playbook}, ${entry.status}${archived}, ended ${entry.endedAt})`, {
    oneLine: true,
  });
}
