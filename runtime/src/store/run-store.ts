import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { checkIr } from '@kairoku-playbook/compiler';
import { FILE_LIMITS, readTextBounded } from '@kairoku-playbook/compiler/disk';
import { STATE_VERSION, vecFromArray, vecToArray } from '@kairoku-playbook/machine';
import type { HistoryEntry, RunState, StepRun } from '@kairoku-playbook/machine';
import { FileWriteError, writeFileAtomic } from './atomic-write.js';
import { processIsAlive } from './process-alive.js';
import { defaultHome, runsFolder } from './home.js';
import { RunIndex, SKIP } from './run-index.js';
import type { RunIndexEntry, RunIndexProblem } from './run-index.js';

export { defaultHome };

/** The run file: the state with its steps and history as plain arrays, for people and other tools. */
export function serializeRun(state: RunState): string {
  const record = { ...state, steps: vecToArray(state.steps), history: vecToArray(state.history) };
  return `${JSON.stringify(record, null, 2)}\n`;
}

export function deserializeRun(text: string): RunState {
  const record = JSON.parse(text) as Omit<RunState, 'steps' | 'history'> & {
    steps: StepRun[];
    history: HistoryEntry[];
  };
  if (record?.version !== STATE_VERSION)
    throw new Error(
      `unsupported run state version ${JSON.stringify(record?.version)} (this runtime reads ${STATE_VERSION})`,
    );
  const ir = checkIr(record.ir);
  if (!ir.ok) throw new Error(`its IR snapshot is invalid: ${ir.errors.join('; ')}`);
  if (!Array.isArray(record.steps) || record.steps.length !== ir.ir.steps.length)
    throw new Error('its steps do not match its IR snapshot');
  return { ...record, steps: vecFromArray(record.steps), history: vecFromArray(record.history ?? []) };
}

/**
 * One JSON file per run under `HOME/runs/<id>.json`, each written atomically. The store holds no
 * secret: run state never contains one (see `MASK`).
 */
export class RunStore {
  readonly folder: string;
  /** what a run list needs, beside the run files (run-index.ts) */
  readonly index: RunIndex;

  constructor(readonly home: string = defaultHome()) {
    this.folder = runsFolder(home);
    this.index = new RunIndex(home, this.folder, (id) => {
      const state = this.load(id);
      if (!state) throw new Error('the run file is gone');
      return state;
    });
  }

  path(id: string): string {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id)) throw new Error(`invalid run id ${JSON.stringify(id)}`);
    return join(this.folder, `${id}.json`);
  }

  /** Writes the run file whole or not at all; a full disk throws a `FileWriteError` and the old file stays. */
  save(state: RunState): void {
    this.makeFolder();
    const path = this.path(state.id);
    writeFileAtomic(path, serializeRun(state));
    this.index.saved(state, path);
  }

  /** Removes a run's file (and its index line): `runs prune`. Its owner and requests go with it. */
  remove(id: string): void {
    rmSync(this.path(id), { force: true });
    this.release(id);
    this.index.removed(id);
  }

  /** Every run as a list shows it (the index, checked against the files), and the files that do not read. */
  list(): { entries: RunIndexEntry[]; problems: RunIndexProblem[] } {
    this.removeAbandonedTempFiles();
    return this.index.read();
  }

  /**
   * The runs with work going (not ended, or an after-task at work), read whole; the others are known
   * from the index only. For recovery and the room rule (one active run per workspace).
   */
  loadActive(): { runs: RunState[]; problems: { file: string; message: string }[] } {
    this.removeAbandonedTempFiles();
    const { kept, problems } = this.index.scan((entry) => (entry.workGoing ? entry.id : SKIP));
    const runs: RunState[] = [];
    const unread = problems.map(({ file, message }) => ({ file, message }));
    for (const id of kept) {
      try {
        const state = this.load(id);
        if (state) runs.push(state);
      } catch (error) {
        unread.push({ file: this.path(id), message: (error as Error).message });
      }
    }
    return { runs, problems: unread };
  }

  exists(id: string): boolean {
    return existsSync(this.path(id));
  }

  /** A new run id for a playbook, `PLAYBOOK-xxxxxx`, that no run of the store has. */
  newId(playbook: string): string {
    let id: string;
    do id = `${playbook}-${randomBytes(3).toString('hex')}`;
    while (this.exists(id));
    return id;
  }

  load(id: string): RunState | undefined {
    const path = this.path(id);
    if (!existsSync(path)) return undefined;
    return deserializeRun(readRunFile(path));
  }

  /** Every run on disk; a file that does not read is reported, not fatal. */
  loadAll(): { runs: RunState[]; problems: { file: string; message: string }[] } {
    const runs: RunState[] = [];
    const problems: { file: string; message: string }[] = [];
    let names: string[];
    try {
      names = readdirSync(this.folder)
        .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
        .sort();
    } catch {
      return { runs, problems };
    }
    this.removeAbandonedTempFiles();
    for (const name of names) {
      const file = join(this.folder, name);
      try {
        runs.push(deserializeRun(readRunFile(file)));
      } catch (error) {
        problems.push({ file, message: (error as Error).message });
      }
    }
    return { runs, problems };
  }

  /**
   * Marks the run as driven by this process (`<id>.owner`), so other processes ask it (`request`)
   * instead of writing the run file under its feet. `release` when the run ends.
   */
  claim(id: string): void {
    this.makeFolder();
    writeFileAtomic(this.sidePath(id, 'owner'), `${JSON.stringify({ pid: process.pid })}\n`);
  }

  release(id: string): void {
    rmSync(this.sidePath(id, 'owner'), { force: true });
    for (const name of this.requestFiles(id)) rmSync(join(this.folder, name), { force: true });
  }

  /** The live process driving the run, if another one is; a claim whose process died does not count. */
  owner(id: string): number | undefined {
    try {
      const { pid } = JSON.parse(readSmallFile(this.sidePath(id, 'owner'))) as { pid?: unknown };
      return typeof pid === 'number' && pid !== process.pid && processIsAlive(pid) ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Asks the process driving the run for an operator's event (it looks once a second). One file per
   * request (`<id>.request-<time>-<pid>-<n>`), so two asking at once both count. Returns the request's
   * name, for `requestTaken` and `retractRequest`.
   */
  request(id: string, event: OperatorRequest): string {
    this.makeFolder();
    const name = `${id}.request-${String(Date.now()).padStart(15, '0')}-${process.pid}-${++requestCount}`;
    writeFileAtomic(join(this.folder, name), `${JSON.stringify(event)}\n`);
    return name;
  }

  /** Asks the process driving the run to cancel it. */
  requestCancel(id: string, reason: string | undefined): void {
    this.request(id, reason === undefined ? { type: 'cancel' } : { type: 'cancel', reason });
  }

  /** Whether the driving process has taken a request `request` made (it is no longer waiting). */
  requestTaken(name: string): boolean {
    return !existsSync(join(this.folder, name));
  }

  /**
   * Takes back a request nobody has taken yet: true when it was (the driving process will never see
   * it), false when the driving process took it first. Exactly one of the two wins: a request is taken
   * by renaming it away, and retracted by removing it under its name.
   */
  retractRequest(name: string): boolean {
    try {
      unlinkSync(join(this.folder, name));
      return true;
    } catch {
      return false;
    }
  }

  /** The requests other processes made, oldest first, taken (their files are removed). */
  takeRequests(id: string): OperatorRequest[] {
    const taken: OperatorRequest[] = [];
    for (const name of this.requestFiles(id)) {
      const path = join(this.folder, name);
      const taking = `${path}.taking`;
      try {
        renameSync(path, taking); // taken by this reader, or already by another or retracted
      } catch {
        continue;
      }
      let text: string;
      try {
        text = readSmallFile(taking);
      } catch {
        rmSync(taking, { force: true }); // not a request this process can read: it asks nothing
        continue;
      }
      rmSync(taking, { force: true });
      const event = readRequest(text);
      if (event) taken.push(event);
    }
    return taken;
  }

  private requestFiles(id: string): string[] {
    const prefix = `${basename(this.path(id), '.json')}.request-`;
    try {
      return readdirSync(this.folder)
        .filter((name) => name.startsWith(prefix) && !name.endsWith('.taking'))
        .sort();
    } catch {
      return [];
    }
  }

  /** Makes the run folder (mode 0700) if it is not there. */
  makeFolder(): void {
    try {
      mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (typeof code !== 'string') throw error;
      throw new FileWriteError(this.folder, code, (error as Error).message);
    }
  }

  private sidePath(id: string, kind: 'owner'): string {
    return this.path(id).replace(/\.json$/, `.${kind}`);
  }

  /**
   * A process killed during a write leaves its temp file (`.<id>.json.<pid>.<n>.tmp`) behind; the run
   * file itself is whole (rename is atomic). Temp files of processes that no longer exist are removed.
   */
  private removeAbandonedTempFiles(): void {
    let names: string[];
    try {
      names = readdirSync(this.folder);
    } catch {
      return;
    }
    for (const name of names) {
      const match = /^\..+\.json\.(\d+)\.\d+\.tmp$/.exec(name);
      if (!match || processIsAlive(Number(match[1]))) continue;
      try {
        unlinkSync(join(this.folder, name));
      } catch {
        // another process cleaned it first
      }
    }
  }
}

/**
 * A run file's text. Not a regular file (a FIFO would wait forever), or over the limit: refused unread,
 * with a sentence that `loadAll` reports as a problem and `load` as an error.
 */
function readRunFile(path: string): string {
  const read = readTextBounded(path, FILE_LIMITS.runFile, 'a run file');
  if (read.problem !== undefined) throw new Error(read.message);
  return read.text;
}

/** An owner or request file: a line of JSON. */
function readSmallFile(path: string): string {
  const read = readTextBounded(path, FILE_LIMITS.small, 'an owner or request file');
  if (read.problem !== undefined) throw new Error(read.message);
  return read.text;
}

/** What an operator may ask of a run another process drives: cancel, pause, resume. */
export type OperatorRequest = { type: 'cancel'; reason?: string } | { type: 'pause' } | { type: 'resume' };

let requestCount = 0;

function readRequest(text: string): OperatorRequest | undefined {
  try {
    const value = JSON.parse(text) as { type?: unknown; reason?: unknown };
    if (value.type === 'pause' || value.type === 'resume') return { type: value.type };
    if (value.type === 'cancel')
      return typeof value.reason === 'string' ? { type: 'cancel', reason: value.reason } : { type: 'cancel' };
  } catch {
    // a broken request asks nothing
  }
  return undefined;
}
