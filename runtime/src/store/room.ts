import type { Ir } from '@kairoku-playbook/compiler';
import { vecToArray } from '@kairoku-playbook/machine';
import type { RunState } from '@kairoku-playbook/machine';

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

/**
 * A conflict in words, naming each run in the way and the exact command that frees the room: `cancel`
 * gives it for a run id (`kairoku-playbook runs cancel ID`, an MCP tool call); `decide`, when given,
 * names how to decide a gate an active run waits at, which lets it go on to its end.
 */
export function describeRoomConflict(
  conflict: RoomConflict,
  ir: Ir,
  cancel: (id: string) => string,
  decide?: (id: string, gate: string) => string,
): string {
  if (conflict.kind === 'workspace') {
    const run = conflict.run;
    const gate = decide ? waitingGate(run) : undefined;
    const going = gate && decide ? `decide its gate "${gate}" with ${decide(run.id, gate)}, ` : '';
    return (
      `run "${run.id}" of playbook "${run.playbook}" is already active in this workspace (${run.status}${gate ? `, waiting at gate "${gate}"` : ''}); ` +
      `one run may be active per workspace: finish it (${going}or cancel it with ${cancel(run.id)}) before starting another`
    );
  }
  const { runs, limit } = conflict;
  return (
    `playbook "${ir.id}" allows ${limit} active run${limit === 1 ? '' : 's'} at once ` +
    `(limits.concurrency) and ${runs.map((r) => `"${r.id}"`).join(', ')} ${runs.length === 1 ? 'is' : 'are'} active; ` +
    `wait for ${runs.length === 1 ? 'it' : 'one'} to end, or cancel ${runs.length === 1 ? 'it' : 'one'} with ${runs.map((r) => cancel(r.id)).join(' or ')}`
  );
}

/** The first gate a run waits at, if any. */
function waitingGate(run: RunState): string | undefined {
  for (const step of vecToArray(run.steps)) if (step.status === 'waiting') return step.name;
  return undefined;
}
