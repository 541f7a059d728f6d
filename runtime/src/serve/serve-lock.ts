import { linkSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { processIsAlive } from '../store/process-alive.js';
import { serveInfoPath } from '../store/serve-discovery.js';

/**
 * One `serve` per workspace (issue 27 item 2): a lock taken before anything else — before the
 * backend connects, before the server listens, before the discovery file is written — by an exclusive
 * create of `HOME/serve/<workspace hash>.lock` holding the pid and the process's start time. A lock
 * whose process is gone, is a zombie (killed, not yet reaped), or is another process that got the same
 * pid (its start time differs) is stale and taken over. Released (removed, when still ours) on exit.
 */
export interface ServeLockHolder {
  pid: number;
  /** the holder's start time (`/proc/PID/stat`'s field 22), when this system has /proc */
  started?: string;
}

export type ServeLockResult = { ok: true; release: () => void } | { ok: false; holder: ServeLockHolder };

export function lockServe(home: string, workspace: string): ServeLockResult {
  const path = serveInfoPath(home, workspace).replace(/\.json$/, '.lock');
  mkdirSync(path.slice(0, path.lastIndexOf('/')), { recursive: true, mode: 0o700 });
  const mine: ServeLockHolder = { pid: process.pid, ...startedField(process.pid) };
  // Twice at most: once as found, once more after a stale lock was removed (a third process that
  // took it in between wins, and this one is refused).
  for (let attempt = 0; attempt < 2; attempt++) {
    if (createExclusive(path, `${JSON.stringify(mine)}\n`))
      return { ok: true, release: () => release(path, mine) };
    const holder = readHolder(path);
    if (holder && holds(holder)) return { ok: false, holder };
    removeIfSame(path, holder);
  }
  const holder = readHolder(path);
  return { ok: false, holder: holder ?? { pid: 0 } };
}

/**
 * Creates the lock with its content in one step: written to a file of this process's own, then linked
 * to the lock's name (a link fails when the name exists). An exclusive create then a write would leave,
 * for a moment, an empty lock that a process starting at the same time reads as stale and removes —
 * both serves then came up (seen under load).
 */
function createExclusive(path: string, text: string): boolean {
  const own = `${path}.${process.pid}.tmp`;
  writeFileSync(own, text, { mode: 0o600 });
  try {
    linkSync(own, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(own, { force: true });
  }
}

function readHolder(path: string): ServeLockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as ServeLockHolder;
    return typeof holder?.pid === 'number' ? holder : undefined;
  } catch {
    return undefined; // gone, or half written by a process that died mid-write: stale
  }
}

/** Whether the process a lock names is the live process that took it. */
function holds(holder: ServeLockHolder): boolean {
  const now = procStat(holder.pid);
  if (now === undefined) {
    if (!hasProc()) return processIsAlive(holder.pid);
    return false; // no such process
  }
  if (now.state === 'Z' || now.state === 'X') return false; // killed, not yet reaped
  return holder.started === undefined || holder.started === now.started;
}

/** Removes a stale lock, unless it changed since it was read (another process took it over meanwhile). */
function removeIfSame(path: string, seen: ServeLockHolder | undefined): void {
  const now = readHolder(path);
  if (JSON.stringify(now) !== JSON.stringify(seen)) return;
  try {
    unlinkSync(path);
  } catch {
    // removed by another process that found it stale too
  }
}

function release(path: string, mine: ServeLockHolder): void {
  const holder = readHolder(path);
  if (holder?.pid !== mine.pid || holder.started !== mine.started) return;
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

function startedField(pid: number): { started?: string } {
  const stat = procStat(pid);
  return stat ? { started: stat.started } : {};
}

/** A process's state letter and start time, from `/proc/PID/stat` (after the command's closing paren). */
function procStat(pid: number): { state: string; started: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, started: fields[19]! };
  } catch {
    return undefined;
  }
}

function hasProc(): boolean {
  return procStat(process.pid) !== undefined;
}
