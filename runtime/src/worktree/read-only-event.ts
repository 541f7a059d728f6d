import type { RunEvent } from '@kairoku-playbook/machine';

/** The event that fails a read-only attempt (SPEC §3.3): the paths it changed, or why it cannot be checked. */
export type ReadOnlyViolated = Extract<RunEvent, { type: 'read-only-violated' }>;

/** The failing event of an attempt whose worktree git cannot read. */
export function unreadableWorktree(step: string, attempt: number, error: string): ReadOnlyViolated {
  return {
    type: 'read-only-violated',
    step,
    attempt,
    paths: [],
    reason: `cannot check the read-only role: ${error}`,
  };
}
