/**
 * Whether a process is still there (signal 0): the run store's claims, its lock and a `serve`'s
 * discovery file each name a process, and are stale once it is gone. EPERM means it exists as another
 * user's; this process is alive without asking.
 */
export function processIsAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
