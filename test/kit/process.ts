import { existsSync, readFileSync } from 'node:fs';

/**
 * Whether a process still runs. An ended process its parent has not reaped yet (a zombie: its runner
 * killed, the reaper busy) still answers signal 0, but it has ended. Pid 0 is no process (`kill(0, 0)`
 * would signal this process's own group).
 */
export function alive(pid: number): boolean {
  if (!(pid > 0)) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return true;
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(stat, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Polls `probe` every 20 ms until it gives a value (neither `undefined` nor `false`) and returns it;
 * past `timeoutMs` it throws, naming `what` (and `explain()`). The limit is a bound for a stuck test, not
 * a measurement.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false,
  timeoutMs = 60_000,
  explain?: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${explain ? `\n${explain()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
