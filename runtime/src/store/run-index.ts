import { appendFileSync, closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { hasWorkGoing, isEnded, vecToArray } from '@kairoku-playbook/machine';
import type { RunState, RunStatus } from '@kairoku-playbook/machine';
import { writeFileAtomic } from './atomic-write.js';
import { lockStore } from './lock.js';

/**
 * What a list of runs shows of one run (serve's list, `runs list`, MCP `list_runs`), kept in the index
 * so that listing reads no run file. `stamp` is the run file's identity when the entry was made
 * (`fileStamp`): an entry whose stamp is not the file's now is stale and the file is read again.
 */
export interface RunIndexEntry {
  id: string;
  playbook: string;
  title: string;
  status: RunStatus;
  reason: string | null;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  updatedAt: string;
  /** gates open now */
  waiting: number;
  /** steps settled, of all */
  steps: { done: number; total: number };
  workspace?: string;
  manager?: string;
  archivedAt?: string;
  backend: string;
  branch: string;
  /** not ended, or ended with an after-task at work (`hasWorkGoing`): a host takes it up */
  workGoing: boolean;
  /** `NAME: status` of each step (and after-task) at work, for an active run (MCP `list_runs`) */
  active?: string[];
  /** steps an ended run can restart from (MCP `list_runs`) */
  restartFrom?: string[];
  stamp: string;
}

/** A run file the index could not read: reported by every listing, read again only once it changes. */
export interface RunIndexProblem {
  id: string;
  file: string;
  message: string;
  stamp: string;
}

type Line = RunIndexEntry | RunIndexProblem | { id: string; removed: true };

/** What `scan`'s `keep` answers for a run it keeps nothing of. */
export const SKIP: unique symbol = Symbol('skip');
const STALE: unique symbol = Symbol('stale');

function isProblem(value: unknown): value is RunIndexProblem {
  return typeof value === 'object' && value !== null && 'message' in value && 'stamp' in value;
}

function parseLine(raw: string): Line | undefined {
  if (!raw) return undefined;
  try {
    const line = JSON.parse(raw) as Line;
    return typeof line?.id === 'string' ? line : undefined;
  } catch {
    return undefined; // a line cut by a crash: its run is stale, and read again
  }
}

/** A run file's identity on disk: a write by anyone changes it (each write is a rename of a new file). */
export function fileStamp(path: string): string | undefined {
  try {
    const stat = statSync(path);
    return `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
  } catch {
    return undefined;
  }
}

/** The run folder's identity: any file added, removed or renamed into it changes it (nanoseconds). */
function folderStamp(path: string): { stamp: string; settled: boolean } | undefined {
  try {
    const stat = statSync(path, { bigint: true });
    // File systems keep times to the kernel's coarse clock (a few ms): a change in the same tick as a
    // recent one would keep the stamp; one that settled over 100 ms ago cannot be matched by a new one.
    const settled = Date.now() - Number(stat.mtimeNs / 1_000_000n) > 100;
    return { stamp: `${stat.ino}:${stat.mtimeNs}:${stat.ctimeNs}`, settled };
  } catch {
    return undefined;
  }
}

/** The index entry of a run as it is (its file's stamp given by the caller). */
export function indexEntry(state: RunState, stamp: string): RunIndexEntry {
  const steps = vecToArray(state.steps);
  const entry: RunIndexEntry = {
    id: state.id,
    playbook: state.playbook,
    title: state.title,
    status: state.status,
    reason: state.reason,
    createdAt: state.createdAt,
    startedAt: state.startedAt,
    endedAt: state.endedAt,
    updatedAt: state.updatedAt,
    waiting: steps.filter((s) => s.status === 'waiting').length,
    steps: { done: state.settled, total: steps.length },
    backend: state.backend,
    branch: state.branch,
    workGoing: hasWorkGoing(state),
    stamp,
  };
  if (state.workspace !== undefined) entry.workspace = state.workspace;
  if (state.manager !== undefined) entry.manager = state.manager;
  if (state.archivedAt !== undefined) entry.archivedAt = state.archivedAt;
  if (isEnded(state.status)) {
    const settled = (i: number) => steps[i]?.status === 'completed' || steps[i]?.status === 'skipped';
    entry.restartFrom = state.ir.steps.filter((s) => s.needs.every(settled)).map((s) => s.name);
  } else {
    const named = [...steps, ...state.after.map((run) => ({ ...run, name: `after.${run.name}` }))];
    entry.active = named
      .filter((run) => ['ready', 'running', 'reported', 'waiting'].includes(run.status))
      .map((run) => `${run.name}: ${run.status}`);
  }
  return entry;
}

/**
 * The index of a run store (`HOME/run-index.jsonl`, beside the `runs/` folder): one JSON line per
 * change, the last line of a run wins. The run files stay the truth. The rule that keeps a crash from
 * showing a wrong status: a run file is written first (atomically), its index line after, and every
 * line carries the stamp (inode, mtime, size) of the file it describes. Reading the index stats every
 * run file; a file whose stamp is not its line's (the process died between the two writes, or an
 * older version wrote the file), or that has no line, is read again and its line written anew. A
 * missing or broken index is rebuilt the same way, from the files. Lines are appended with one
 * `write` each (O_APPEND); the file is rewritten whole (compacted) only under the store's lock.
 */
export class RunIndex {
  readonly path: string;
  /** for a test: called between the run file's write and its index line (a crash there is the case) */
  static betweenWrites: (() => void) | undefined;

  constructor(
    readonly home: string,
    private readonly runFolder: string,
    private readonly readRun: (id: string) => RunState,
  ) {
    this.path = join(home, 'run-index.jsonl');
  }

  /** A run file was just written: its line. A failure to write the index is no failure of the save. */
  saved(state: RunState, runFile: string): void {
    RunIndex.betweenWrites?.();
    const stamp = fileStamp(runFile);
    if (stamp !== undefined) this.append([indexEntry(state, stamp)]);
  }

  /** A run file was removed. */
  removed(id: string): void {
    this.append([{ id, removed: true }]);
  }

  /**
   * Every run of the store as the index has it, each checked against its file (a stat), the stale
   * ones read again; and the files that do not read.
   */
  read(): { entries: RunIndexEntry[]; problems: RunIndexProblem[] } {
    const { kept, problems } = this.scan((entry) => entry);
    return { entries: kept, problems };
  }

  /**
   * `read`, keeping of each run only what `keep` makes of its entry (`SKIP`: nothing), so that a caller
   * that needs a few fields of some runs (serve's list, recovery) holds no more: each line is parsed and
   * let go of as the index file is read in pieces.
   */
  scan<T>(keep: (entry: RunIndexEntry) => T | typeof SKIP): {
    kept: T[];
    problems: RunIndexProblem[];
    lines: number;
    runs: number;
  } {
    const onDisk = this.stamps();
    const latest = new Map<string, T | typeof SKIP | RunIndexProblem | typeof STALE>();
    const problems: RunIndexProblem[] = [];
    const lines = this.eachLine((line) => {
      if ('removed' in line) return latest.delete(line.id);
      const current = onDisk.get(line.id) === line.stamp;
      latest.set(line.id, !current ? STALE : 'message' in line ? line : keep(line));
    });
    const fixed: Line[] = [];
    const kept: T[] = [];
    for (const [id, stamp] of onDisk) {
      let value = latest.get(id);
      if (value === undefined || value === STALE) {
        const line = this.fresh(id, join(this.runFolder, `${id}.json`), stamp);
        fixed.push(line);
        value = 'message' in line ? line : keep(line);
      }
      if (isProblem(value)) problems.push(value);
      else if (value !== SKIP) kept.push(value as T);
    }
    for (const id of latest.keys()) if (!onDisk.has(id)) fixed.push({ id, removed: true });
    if (fixed.length) this.append(fixed);
    if (lines > 2 * onDisk.size + 1000) this.compact();
    return { kept, problems, lines, runs: onDisk.size };
  }

  private fresh(id: string, file: string, stamp: string): RunIndexEntry | RunIndexProblem {
    try {
      return indexEntry(this.readRun(id), stamp);
    } catch (error) {
      return { id, file, message: (error as Error).message, stamp };
    }
  }

  /** Each line of the index file, read in pieces; a line that does not parse is skipped. How many. */
  private eachLine(take: (line: Line) => void): number {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return 0;
    }
    let count = 0;
    let rest = '';
    const chunk = Buffer.alloc(1 << 20);
    try {
      for (;;) {
        const got = readSync(fd, chunk, 0, chunk.length, null);
        if (got === 0) break;
        const text = rest + chunk.toString('utf8', 0, got);
        const end = text.lastIndexOf('\n');
        rest = text.slice(end + 1);
        if (end < 0) continue;
        for (const raw of text.slice(0, end).split('\n')) {
          count++;
          const line = parseLine(raw);
          if (line) take(line);
        }
      }
    } finally {
      closeSync(fd);
    }
    return count + (rest ? 1 : 0); // (a last line with no end was cut by a crash: its run is stale)
  }

  /**
   * Each run file's stamp, by run id. Two scans a moment apart in one process (serve's recovery, then
   * its list) stat the files once: the stamps are kept for 2 s, and used again while the run folder's
   * own stamp says no file was added, removed or renamed into it (every write of a run is a rename).
   */
  private stamps(): Map<string, string> {
    const folder = folderStamp(this.runFolder);
    if (folder !== undefined && this.recent?.folder === folder.stamp) return this.recent.stamps;
    const stamps = new Map<string, string>();
    let names: string[];
    try {
      names = readdirSync(this.runFolder);
    } catch {
      return stamps;
    }
    for (const name of names) {
      if (!name.endsWith('.json') || name.startsWith('.')) continue;
      const stamp = fileStamp(`${this.runFolder}/${name}`); // (path.join costs at 10,000 files)
      if (stamp !== undefined) stamps.set(name.slice(0, -'.json'.length), stamp);
    }
    if (folder?.settled) {
      this.recent = { folder: folder.stamp, stamps };
      setTimeout(() => (this.recent = undefined), 2000).unref();
    }
    return stamps;
  }

  /** the last scan's stamps, and the run folder's stamp before they were taken (`stamps`) */
  private recent: { folder: string; stamps: Map<string, string> } | undefined;

  private append(lines: Line[]): void {
    try {
      appendFileSync(this.path, lines.map((l) => `${JSON.stringify(l)}\n`).join(''), { mode: 0o600 });
    } catch {
      // (the index is a cache: a line not written leaves its run stale, and stale runs are read again)
    }
  }

  /**
   * Rewrites the index with the last line of each run (read again from the file: every stale line was
   * just fixed), under the store's lock; skipped when the lock is busy, as a full disk skips it.
   */
  private compact(): void {
    try {
      lockStore(
        this.runFolder,
        () => {
          const latest = new Map<string, string>();
          this.eachLine((line) => {
            if ('removed' in line) latest.delete(line.id);
            else latest.set(line.id, JSON.stringify(line));
          });
          writeFileAtomic(this.path, [...latest.values()].map((line) => `${line}\n`).join(''));
        },
        { waitMs: 0 },
      );
    } catch {
      // (the lock is busy, or the disk refused: the long index still reads, and the next read tries again)
    }
  }
}
