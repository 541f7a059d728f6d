import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
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
   * Marks the run as driven by this process (`<id>.owner`), so other processes ask it for a cancel
   * (`requestCancel`) instead of writing the run file under its feet. `release` when the run ends.
   */
  claim(id: string): void {
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    writeFileAtomic(this.sidePath(id, 'owner'), `${JSON.stringify({ pid: process.pid })}\n`);
  }

  release(id: string): void {
    for (const kind of ['owner', 'cancel'] as const) rmSync(this.sidePath(id, kind), { force: true });
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

  /** Asks the process driving the run to cancel it (it looks once a second). */
  requestCancel(id: string, reason: string | undefined): void {
    writeFileAtomic(this.sidePath(id, 'cancel'), `${JSON.stringify({ reason: reason ?? null })}\n`);
  }

  /** A cancel another process asked for, taken (the request is removed); undefined when none. */
  takeCancelRequest(id: string): { reason: string | undefined } | undefined {
    const path = this.sidePath(id, 'cancel');
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
    rmSync(path, { force: true });
    try {
      const { reason } = JSON.parse(text) as { reason?: unknown };
      return { reason: typeof reason === 'string' ? reason : undefined };
    } catch {
      return { reason: undefined };
    }
  }

  private sidePath(id: string, kind: 'owner' | 'cancel'): string {
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

function processIsAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
