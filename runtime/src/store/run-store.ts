import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { checkIr } from '@kairoku-playbook/compiler';
import { vecFromArray, vecToArray } from '../core/pvec.js';
import { STATE_VERSION } from '../core/state.js';
import type { HistoryEntry, RunState, StepRun } from '../core/state.js';
import { writeFileAtomic } from './atomic-write.js';

/** `$KAIROKU_PLAYBOOK_HOME`, else `~/.kairoku-playbook`. */
export function defaultHome(env: Record<string, string | undefined> = process.env): string {
  return env.KAIROKU_PLAYBOOK_HOME || join(homedir(), '.kairoku-playbook');
}

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

  constructor(readonly home: string = defaultHome()) {
    this.folder = join(home, 'runs');
  }

  path(id: string): string {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id)) throw new Error(`invalid run id ${JSON.stringify(id)}`);
    return join(this.folder, `${id}.json`);
  }

  save(state: RunState): void {
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    writeFileAtomic(this.path(state.id), serializeRun(state));
  }

  exists(id: string): boolean {
    return existsSync(this.path(id));
  }

  load(id: string): RunState | undefined {
    const path = this.path(id);
    if (!existsSync(path)) return undefined;
    return deserializeRun(readFileSync(path, 'utf8'));
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
        runs.push(deserializeRun(readFileSync(file, 'utf8')));
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
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    writeFileAtomic(this.sidePath(id, 'owner'), `${JSON.stringify({ pid: process.pid })}\n`);
  }

  release(id: string): void {
    rmSync(this.sidePath(id, 'owner'), { force: true });
    for (const name of this.requestFiles(id)) rmSync(join(this.folder, name), { force: true });
  }

  /** The live process driving the run, if another one is; a claim whose process died does not count. */
  owner(id: string): number | undefined {
    try {
      const { pid } = JSON.parse(readFileSync(this.sidePath(id, 'owner'), 'utf8')) as { pid?: unknown };
      return typeof pid === 'number' && pid !== process.pid && processIsAlive(pid) ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Asks the process driving the run for an operator's event (it looks once a second). One file per
   * request (`<id>.request-<time>-<pid>-<n>`), so two asking at once both count.
   */
  request(id: string, event: OperatorRequest): void {
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    const name = `${id}.request-${String(Date.now()).padStart(15, '0')}-${process.pid}-${++requestCount}`;
    writeFileAtomic(join(this.folder, name), `${JSON.stringify(event)}\n`);
  }

  /** Asks the process driving the run to cancel it. */
  requestCancel(id: string, reason: string | undefined): void {
    this.request(id, reason === undefined ? { type: 'cancel' } : { type: 'cancel', reason });
  }

  /** The requests other processes made, oldest first, taken (their files are removed). */
  takeRequests(id: string): OperatorRequest[] {
    const taken: OperatorRequest[] = [];
    for (const name of this.requestFiles(id)) {
      const path = join(this.folder, name);
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch {
        continue; // taken by another reader
      }
      rmSync(path, { force: true });
      const event = readRequest(text);
      if (event) taken.push(event);
    }
    return taken;
  }

  private requestFiles(id: string): string[] {
    const prefix = `${basename(this.path(id), '.json')}.request-`;
    try {
      return readdirSync(this.folder)
        .filter((name) => name.startsWith(prefix))
        .sort();
    } catch {
      return [];
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

function processIsAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
