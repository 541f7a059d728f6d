import type { Ir } from '@kairoku-playbook/compiler';
import type { RunState } from '../core/state.js';

export type RoomConflict =
  { kind: 'workspace'; run: RunState } | { kind: 'concurrency'; runs: RunState[]; limit: number };

/**
 * Whether a new (or reopened) run of `ir` in `workspace` has room: one active run per workspace, and
 * at most `limits.concurrency` active runs of a playbook (SPEC §6). `except` is a run being reopened.
 */
export function findRoomConflict(
  runs: readonly RunState[],
  ir: Ir,
  workspace: string,
  except?: string,
): RoomConflict | undefined {
  const active = runs.filter((r) => r.id !== except && (r.status === 'running' || r.status === 'paused'));
  const here = active.find((r) => r.workspace === workspace);
  if (here) return { kind: 'workspace', run: here };
  const same = active.filter((r) => r.playbook === ir.id);
  if (same.length >= ir.limits.concurrency)
    return { kind: 'concurrency', runs: same, limit: ir.limits.concurrency };
  return undefined;
}

/** A conflict in words; `cancel` names how to cancel a run where the message is shown. */
export function describeRoomConflict(conflict: RoomConflict, ir: Ir, cancel: string): string {
  if (conflict.kind === 'workspace') {
    const run = conflict.run;
    return (
      `run "${run.id}" of playbook "${run.playbook}" is already active in this workspace (${run.status}); ` +
      `one run may be active per workspace: finish it, or cancel it with ${cancel}, before starting another`
    );
  }
  const { runs, limit } = conflict;
  return (
    `playbook "${ir.id}" allows ${limit} active run${limit === 1 ? '' : 's'} at once ` +
    `(limits.concurrency) and ${runs.map((r) => `"${r.id}"`).join(', ')} ${runs.length === 1 ? 'is' : 'are'} active; ` +
    `wait for ${runs.length === 1 ? 'it' : 'one'} to end, or cancel it with ${cancel}`
  );
}
