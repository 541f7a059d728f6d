import { readFileSync, readdirSync } from 'node:fs';

/** How often a group that was sent SIGTERM is looked at, until it is gone or its grace is over. */
const POLL_MS = 25;

/** Process groups of check commands that may still have members, for the exit hook. */
const live = new Set<ProcessGroup>();
let exitHookInstalled = false;

/**
 * A command's process group: the shell spawned `detached` leads a new session and group, and what it
 * starts stays in that group unless it leaves on purpose (`setsid`, a daemon). Signals go to the
 * whole group (`kill(-pgid)`).
 */
export class ProcessGroup {
  private ending: Promise<void> | undefined;

  constructor(
    readonly pgid: number,
    private readonly graceMs: number,
  ) {
    live.add(this);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      // If the process exits with checks still running, they must not outlive it (SIGTERM and a
      // grace period are not possible any more: the exit is synchronous).
      process.on('exit', () => {
        for (const group of live) signalGroup(group.pgid, 'SIGKILL');
      });
    }
  }

  /**
   * Ends every process of the group: SIGTERM, then SIGKILL to what is left after the grace period.
   * Resolves once the group is empty or SIGKILL was sent. Calling it again returns the same promise.
   */
  terminate(): Promise<void> {
    this.ending ??= this.end();
    return this.ending;
  }

  /** The group is no longer watched (its command ended and it was terminated). */
  release(): void {
    live.delete(this);
  }

  private async end(): Promise<void> {
    if (!signalGroup(this.pgid, 'SIGTERM')) return;
    const deadline = Date.now() + this.graceMs;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, this.graceMs)));
      if (!groupRunning(this.pgid)) return;
    }
    signalGroup(this.pgid, 'SIGKILL');
  }
}

/**
 * Sends a signal to a process group; false when the group has no process left (ESRCH) or none this
 * process may signal (EPERM: a member that changed user, which cannot be ended from here anyway).
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ESRCH' || code === 'EPERM') return false;
    throw error;
  }
}

/**
 * Whether a process of the group still runs. Killed processes whose parent died first wait as zombies
 * until init reaps them, which some container inits do late: they still answer kill(-pgid, 0), so on
 * Linux the group's members are looked up in /proc and zombies do not count.
 */
export function groupRunning(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after the last `)`
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}
