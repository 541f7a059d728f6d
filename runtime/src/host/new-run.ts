import type { Ir } from '@kairoku-playbook/compiler';
import { createRun, prepareInputs, splitSecrets } from '@kairoku-playbook/machine';
import type { RunStartOptions, RunState } from '@kairoku-playbook/machine';
import { findRoomConflict } from '../store/room.js';
import { refused } from './refusal.js';
import type { HostResult } from './refusal.js';
import type { RunBook } from './run-book.js';
import type { CreateOptions } from './run-host-types.js';

/**
 * The one place a run is made: its inputs checked, its room (under the store's lock), the warning
 * about an active twin, its id, branch and record; `then` saves and drives it (under the same lock).
 */
export function newRun<T>(
  book: RunBook,
  playbook: Ir,
  inputs: Record<string, unknown>,
  options: CreateOptions & { manager?: string },
  then: (state: RunState, secrets: Record<string, unknown>) => HostResult<T>,
): HostResult<{ made: T; warnings: string[] }> {
  // A worktree asked for at start is the playbook's `workspace: new-worktree`, for this run: its
  // snapshot says so, and everything that reads the run (its branch, its backend) follows it.
  const ir: Ir = options.worktree ? { ...playbook, workspace: 'new-worktree' } : playbook;
  const prepared = prepareInputs(ir, inputs);
  if (!prepared.ok)
    return refused('invalid-input', prepared.errors.join('; '), 'invalid', inputPointer(ir, prepared.errors));
  return book.locked(() => {
    const { runs } = book.store.loadActive();
    const conflict = findRoomConflict(runs, ir, book.workspace);
    if (conflict) return { ok: false, refusal: book.roomRefusal(conflict, ir) };
    const { secrets, visible } = splitSecrets(ir, prepared.inputs);
    const warnings = twinWarnings(runs, ir, visible);
    const made = then(record(book, ir, prepared.inputs, options), secrets);
    if (!made.ok) return made;
    return { ok: true, value: { made: made.value, warnings } };
  });
}

function record(
  book: RunBook,
  ir: Ir,
  inputs: Record<string, unknown>,
  options: CreateOptions & { manager?: string },
): RunState {
  const startOptions: RunStartOptions = {
    ...(options.provider !== undefined ? { provider: options.provider } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
  };
  const id = options.id ?? book.store.newId(ir.id);
  const branch =
    options.branch ??
    (ir.workspace === 'new-worktree' ? newWorktreeBranch(ir.id, id) : (options.workspaceBranch ?? ''));
  return {
    ...createRun(ir, {
      id,
      inputs,
      now: book.clock(),
      maskKey: book.maskKey,
      backend: book.options.backend,
      branch,
    }),
    workspace: book.workspace,
    ...(options.manager !== undefined ? { manager: options.manager } : {}),
    ...(Object.keys(startOptions).length ? { startOptions } : {}),
  };
}

/** An active run of the playbook with the same (visible) inputs is worth a warning. */
function twinWarnings(runs: readonly RunState[], ir: Ir, visible: Record<string, unknown>): string[] {
  const same = JSON.stringify(visible);
  return runs
    .filter(
      (r) =>
        r.playbook === ir.id &&
        (r.status === 'running' || r.status === 'paused') &&
        JSON.stringify(r.inputs) === same,
    )
    .map((r) => `run ${r.id} of playbook "${ir.id}" is already active with the same inputs`);
}

/** A run's own worktree gets its own branch (seed 000): `playbooks/<playbook>-<short id>`. */
export function newWorktreeBranch(playbook: string, runId: string): string {
  return `playbooks/${playbook}-${runId.slice(-6)}`;
}

/** The input the first error names (`input "repo" ...`), as a JSON pointer into the request. */
function inputPointer(ir: Ir, errors: readonly string[]): string | undefined {
  for (const error of errors) {
    const named = /input "([^"]+)"/.exec(error)?.[1];
    if (named !== undefined && ir.inputs.some((i) => i.name === named)) return `/inputs/${named}`;
  }
  return undefined;
}
