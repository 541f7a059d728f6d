import { readFileSync } from 'node:fs';

/**
 * Whether a process has ended. A killed process that init has not reaped yet is a zombie: it still
 * answers kill(pid, 0) but runs no more, so it counts as gone.
 */
export function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)!.startsWith('Z');
  } catch {
    return true;
  }
}

/** Polls until a condition holds; the limit is a bound for a stuck test, not a measurement. */
export async function until(condition: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
