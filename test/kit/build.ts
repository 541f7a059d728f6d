import { mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A lock older than this is a killed run's, and is taken over. */
const STALE_MS = 120_000;

/**
 * Runs `build` (of what a test runs from a package's `dist`) holding a lock folder, `<name>.lock` in the
 * system's temporary folder, so test files in parallel workers build one at a time and none starts a
 * process from half-written files. `fresh` says the output is up to date: asked first, while waiting and
 * once the lock is held, it skips a build another process has just made. Needs no package.
 */
export function buildOnce(name: string, build: () => void, fresh: () => boolean = () => false): void {
  if (fresh()) return;
  const lock = join(tmpdir(), `${name}.lock`);
  const deadline = Date.now() + STALE_MS + 30_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (fresh()) return;
      const stat = statSync(lock, { throwIfNoEntry: false });
      if (stat && Date.now() - stat.mtimeMs > STALE_MS) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`could not take ${lock}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
  try {
    if (!fresh()) build();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
