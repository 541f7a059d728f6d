import { closeSync, mkdirSync, openSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { FILE_LIMITS, readTextBounded } from '@kairoku-playbook/compiler/disk';
import { FileWriteError, writeFully } from './atomic-write.js';
import { processIsAlive } from './process-alive.js';

/** The store stayed locked by another live process for longer than the wait: try again later. */
export class StoreBusyError extends Error {
  override readonly name = 'StoreBusyError';
}

/**
 * One lock for the whole run store, held for the few milliseconds a change takes to load a run,
 * apply events and save it. The manager's server and step agents' servers are separate processes
 * that write the same run files: without it, a report and a decision arriving together could each
 * save a state that lacks the other. A lock whose process is gone, or older than `staleMs`, or still
 * empty a second after it was made (its maker killed before it wrote its pid), is taken over; one held
 * longer than `waitMs` by a live process throws `StoreBusyError`.
 */
export function lockStore<T>(
  folder: string,
  action: () => T,
  options: { waitMs?: number; staleMs?: number } = {},
): T {
  const waitMs = options.waitMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const path = join(folder, '.lock');
  const until = Date.now() + waitMs;
  let fd: number | undefined;
  for (;;) {
    try {
      fd = openSync(path, 'wx', 0o600);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readHolder(path);
    if (holder.stale(staleMs)) {
      try {
        unlinkSync(path);
      } catch {
        // another process took it over first
      }
      continue;
    }
    if (Date.now() > until)
      throw new StoreBusyError(
        `the run store is busy (locked by process ${holder.pid ?? 'unknown'} for over ${waitMs / 1000}s); try again`,
      );
    sleep(5);
  }
  try {
    // Every byte or an error: a pid cut short by a full disk could name a dead process, and the
    // lock would be taken over while its holder still writes.
    try {
      writeFully(fd, Buffer.from(`${process.pid}\n`));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw typeof code === 'string' ? new FileWriteError(path, code, (error as Error).message) : error;
    } finally {
      closeSync(fd);
    }
    return action();
  } finally {
    try {
      unlinkSync(path);
    } catch {
      // already gone: taken over as stale
    }
  }
}

function readHolder(path: string): { pid: number | undefined; stale: (staleMs: number) => boolean } {
  let pid: number | undefined;
  let age = 0;
  try {
    const read = readTextBounded(path, FILE_LIMITS.small, 'a lock file');
    if (read.problem !== undefined) throw new Error(read.message);
    pid = Number.parseInt(read.text, 10) || undefined;
    age = Date.now() - statSync(path).mtimeMs;
  } catch {
    return { pid: undefined, stale: () => false };
  }
  return {
    pid,
    // (no pid a second after the lock was made: its maker was killed between creating and writing it)
    stale: (staleMs) => age > staleMs || (age > 1000 && (pid === undefined || !processIsAlive(pid))),
  };
}

const cell = new Int32Array(new SharedArrayBuffer(4));

function sleep(ms: number): void {
  Atomics.wait(cell, 0, 0, ms);
}
