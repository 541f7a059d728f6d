import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { isEnded } from '@kairoku-playbook/machine';
import type { RunState, RunStatus } from '@kairoku-playbook/machine';
import type { RunListItem } from '@kairoku-playbook/protocol';
import type { RunHost } from '../host/run-host.js';
import { SKIP, indexEntry } from '../store/run-index.js';
import type { RunIndexEntry } from '../store/run-index.js';

/** What serve keeps of a run for its list: a few fields, never the run's state (details load on demand). */
interface Listed {
  id: string;
  playbook: string;
  title: string;
  status: RunStatus;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  waiting: number;
  archived: boolean;
  unowned: boolean;
}

/** What a list asks for (`GET /api/v1/runs`): docs/serve.md. */
export interface RunQuery {
  /** include archived runs (`archived=1`), or list only them (`archived=only`) */
  archived: 'no' | 'yes' | 'only';
  /** include runs an older version made, which record no workspace */
  unowned: boolean;
  /** a run status, `waiting` (a decision waits) or `active` (not ended) */
  status?: RunStatus | 'waiting' | 'active';
  playbook?: string;
  /** words the id, title or playbook holds (case does not matter) */
  text?: string;
  /** a page: from `offset`, at most `limit` runs; runs with work going first, then newest first */
  page?: { offset: number; limit: number };
}

/**
 * serve's list of the runs of its workspace, read from the store's index at start (no run file is read
 * whole but those of runs with work going, by recovery) and kept current by the host's changes: its
 * own writes and those of other processes (the store's watch). Memory grows by a few fields per run.
 */
export class RunListing {
  private readonly runs = new Map<string, Listed>();
  /** how far the index file was read, and which file it was (a compaction makes a new one) */
  private read = { ino: -1, offset: 0 };

  constructor(private readonly host: RunHost) {
    this.reload();
  }

  /**
   * Takes up what other processes appended to the index since it was last read (their writes, at
   * once, where the store's watch tells them some milliseconds later): one stat when nothing was.
   */
  catchUp(): void {
    let stat;
    try {
      stat = statSync(this.host.store.index.path);
    } catch {
      return;
    }
    if (stat.ino !== this.read.ino || stat.size < this.read.offset) return this.reload();
    if (stat.size === this.read.offset) return;
    const fd = openSync(this.host.store.index.path, 'r');
    try {
      const bytes = Buffer.alloc(stat.size - this.read.offset);
      const got = readSync(fd, bytes, 0, bytes.length, this.read.offset);
      const text = bytes.subarray(0, got).toString('utf8');
      const whole = text.lastIndexOf('\n') + 1;
      this.read.offset += Buffer.byteLength(text.slice(0, whole));
      for (const line of text.slice(0, whole).split('\n')) this.apply(line);
    } finally {
      closeSync(fd);
    }
  }

  private reload(): void {
    this.runs.clear();
    // (each entry is made a `Listed` as it is read: the index's whole lines are not kept)
    for (const listed of this.host.store.index.scan((entry) => this.listed(entry) ?? SKIP).kept)
      this.runs.set(listed.id, listed);
    try {
      const stat = statSync(this.host.store.index.path);
      this.read = { ino: stat.ino, offset: stat.size };
    } catch {
      this.read = { ino: -1, offset: 0 };
    }
  }

  private apply(line: string): void {
    if (!line) return;
    try {
      const parsed = JSON.parse(line) as Partial<RunIndexEntry> & { removed?: true; message?: string };
      if (typeof parsed.id !== 'string' || parsed.message !== undefined) return;
      if (parsed.removed) this.runs.delete(parsed.id);
      else if (typeof parsed.status === 'string') this.take(parsed as RunIndexEntry);
    } catch {
      // a line cut by a crash: the store's watch tells that run
    }
  }

  /** A run as it is now (a change the host told). */
  changed(state: RunState): void {
    this.take(indexEntry(state, ''));
  }

  /** A run file removed: whether the list had it. */
  removed(id: string): boolean {
    return this.runs.delete(id);
  }

  /** The runs `query` asks for, newest first (a page: those with work going first), and how many match. */
  list(
    query: RunQuery,
    seen: (id: string) => boolean,
  ): { runs: RunListItem[]; total: number; next?: number } {
    this.catchUp();
    const text = query.text?.toLowerCase();
    const matched = [...this.runs.values()].filter(
      (r) =>
        (query.unowned || !r.unowned) &&
        (query.archived === 'yes' || r.archived === (query.archived === 'only')) &&
        (query.playbook === undefined || r.playbook === query.playbook) &&
        passes(r, query.status) &&
        (text === undefined || `${r.id}\n${r.title}\n${r.playbook}`.toLowerCase().includes(text)),
    );
    const newest = (a: Listed, b: Listed) =>
      a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0;
    const page = query.page;
    matched.sort(
      page ? (a, b) => Number(isEnded(a.status)) - Number(isEnded(b.status)) || newest(a, b) : newest,
    );
    const shown = page ? matched.slice(page.offset, page.offset + page.limit) : matched;
    const answer: { runs: RunListItem[]; total: number; next?: number } = {
      runs: shown.map((r) => listItem(r, seen(r.id))),
      total: matched.length,
    };
    if (page && page.offset + page.limit < matched.length) answer.next = page.offset + page.limit;
    return answer;
  }

  /** The runs of this workspace that ended before `iso` and are not archived (`--archive-after`). */
  endedBefore(iso: string): string[] {
    const ids: string[] = [];
    for (const run of this.runs.values())
      if (!run.archived && !run.unowned && run.endedAt !== null && run.endedAt < iso && isEnded(run.status))
        ids.push(run.id);
    return ids;
  }

  private take(entry: RunIndexEntry): void {
    const listed = this.listed(entry);
    // (a run is never moved to another workspace; dropped all the same if one says so)
    if (listed) this.runs.set(entry.id, listed);
    else this.runs.delete(entry.id);
  }

  /** What the list keeps of a run of this workspace (or one that records none); undefined for others. */
  private listed(entry: RunIndexEntry): Listed | undefined {
    const ours = entry.workspace === this.host.workspace;
    if (!ours && entry.workspace !== undefined) return undefined;
    return {
      id: entry.id,
      playbook: entry.playbook,
      title: entry.title,
      status: entry.status,
      createdAt: entry.createdAt,
      startedAt: entry.startedAt,
      endedAt: entry.endedAt,
      waiting: entry.waiting,
      archived: entry.archivedAt !== undefined,
      unowned: !ours,
    };
  }
}

function passes(run: Listed, status: RunQuery['status']): boolean {
  if (status === undefined) return true;
  if (status === 'waiting') return run.waiting > 0;
  if (status === 'active') return !isEnded(run.status);
  return run.status === status;
}

/** A run as the list shows it (the same item `runListItem` makes from a whole state). */
function listItem(run: Listed, seen: boolean): RunListItem {
  const item: RunListItem = {
    id: run.id,
    playbook: run.playbook,
    title: run.title,
    status: run.status,
    startedAt: run.startedAt ?? run.createdAt,
    archived: run.archived,
    seen: run.status !== 'completed' || seen,
    waiting: run.waiting,
  };
  if (run.endedAt) item.endedAt = run.endedAt;
  if (run.unowned) item.unowned = true;
  return item;
}
