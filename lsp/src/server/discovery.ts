/**
 * Drives the language service's discovery of the workspace folders: a workspace of tens of thousands of
 * files is walked at once (its first validation sees every playbook); a huge root (`/`, a home folder) is
 * walked between requests, a slice at a time, within the walk's limits (WALK_LIMITS).
 */
import type { DiscoveryWalk } from '../service/workspace/playbook-workspace.js';

/** How long discovery may hold the server before it goes on in slices, and how long each slice is. */
const FIRST_SLICE_MS = 200;
const SLICE_MS = 15;

export interface DiscoveryLog {
  warn(line: string): void;
  error(line: string): void;
}

const consoleLog: DiscoveryLog = {
  warn: (line) => console.warn(line),
  error: (line) => console.error(line),
};

/**
 * Reads the playbooks of the workspace folders from disk (again). A walk that takes longer than a moment
 * goes on in slices between turns of the event loop; `onSettled` is called when it ends (a new discovery
 * abandons an older one, whose `onSettled` is never called). A walk that reaches a limit is logged.
 */
export function discover(
  workspace: { startDiscovery(): DiscoveryWalk },
  onSettled?: () => void,
  now: () => number = Date.now,
  log: DiscoveryLog = consoleLog,
): void {
  const walk = workspace.startDiscovery();
  const runFor = (ms: number): boolean => {
    const until = now() + ms;
    return walk.advance(() => now() > until);
  };
  const settle = () => {
    for (const limit of walk.finish())
      log.warn(`kairoku-playbook: ${limit}; playbooks beyond it are not checked until opened`);
    onSettled?.();
  };
  if (runFor(FIRST_SLICE_MS)) {
    settle();
    return;
  }
  const slice = () => {
    if (walk.superseded()) return;
    let done = true;
    try {
      done = runFor(SLICE_MS);
    } catch (error) {
      // A bug in a slice ends this discovery (what it found stands); it must not end the server.
      log.error(`kairoku-playbook: discovering the workspace failed: ${String(error)}`);
    }
    if (done) settle();
    else setImmediate(slice);
  };
  setImmediate(slice);
}
