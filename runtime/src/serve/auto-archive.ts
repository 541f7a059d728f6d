import type { RunHost } from '../host/run-host.js';
import type { RunListing } from './run-listing.js';

const DAY_MS = 24 * 60 * 60_000;
/** how often serve looks for ended runs to archive */
const EVERY_MS = 60 * 60_000;
/** runs archived in one turn of the event loop: serve answers between them */
const BATCH = 20;

/**
 * `serve --archive-after DAYS`: the workspace's runs that ended more than DAYS ago are archived (hidden
 * from the list unless asked for; never deleted: `runs prune` deletes, and only when run). Looked for
 * at start and every hour, archived a few at a time so serve keeps answering; each archive is the
 * panel's Archive (the run file written, the `run` event sent). Returns the function that stops it.
 */
export function archiveEndedRuns(options: {
  host: RunHost;
  listing: RunListing;
  days: number;
  clock?: () => number;
  log?: (line: string) => void;
}): () => void {
  const clock = options.clock ?? Date.now;
  let pending: string[] = [];
  let stopped = false;
  let archived = 0;
  const step = () => {
    if (stopped) return;
    for (const id of pending.splice(0, BATCH)) {
      const done = options.host.operate(id, { type: 'archive' });
      if (done.ok) archived++;
    }
    if (pending.length) setImmediate(step);
    else if (archived) {
      options.log?.(`archived ${archived} run(s) that ended over ${options.days} day(s) ago`);
      archived = 0;
    }
  };
  const look = () => {
    if (stopped || pending.length) return;
    const before = new Date(clock() - options.days * DAY_MS).toISOString();
    pending = options.listing.endedBefore(before);
    if (pending.length) setImmediate(step);
  };
  const first = setTimeout(look, 0);
  const timer = setInterval(look, EVERY_MS);
  timer.unref();
  return () => {
    stopped = true;
    clearTimeout(first);
    clearInterval(timer);
  };
}
