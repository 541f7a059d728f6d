/**
 * What the end of a kairoku dispatch means to its run (docs/kairoku-protocol.md, "Terminal statuses"):
 * a check's counts, a held read-only report, a timeout, or a lost agent and why.
 */
import type { RunEvent } from '@kairoku-playbook/machine';
import type { Terminal } from './protocol.js';
import type { DispatchEnd, DispatchRecord } from './records.js';

/** What the end of a dispatch means to its run (docs/kairoku-protocol.md, "Terminal statuses"). */
export function endEvent(
  record: DispatchRecord,
  end: DispatchEnd,
  reason: string | undefined,
  terminal: Terminal | undefined,
): RunEvent | undefined {
  const { step, attempt } = record;
  if (end === 'timed-out') return { type: 'timeout', step, attempt };
  if (record.kind === 'check') {
    const check = terminal?.check;
    if (end === 'completed' && check)
      return {
        type: 'report',
        step,
        attempt,
        outcome: check.outcome,
        summary: check.summary,
        outputs: {
          passed: check.passed,
          failed: check.failed,
          skipped: check.skipped,
          todo: check.todo,
          exit_code: check.exit_code,
        },
      };
    return { type: 'agent-lost', step, attempt, reason: describeEnd('the check', end, reason, terminal) };
  }
  if (record.reported) return undefined;
  if (record.heldReport) {
    const changes = terminal?.worktreeChanges;
    if (changes === undefined)
      return {
        type: 'read-only-violated',
        step,
        attempt,
        paths: [],
        reason: `the runner did not check the worktree (${describeEnd('the dispatch', end, reason, terminal)})`,
      };
    if (changes.length) return { type: 'read-only-violated', step, attempt, paths: changes };
    return { type: 'report', step, attempt, ...record.heldReport };
  }
  return { type: 'agent-lost', step, attempt, reason: describeEnd('the agent', end, reason, terminal) };
}

function describeEnd(
  what: string,
  end: DispatchEnd,
  reason: string | undefined,
  terminal: Terminal | undefined,
): string {
  const code = terminal?.exitCode;
  const exit = code !== undefined && code !== null ? ` with exit code ${code}` : '';
  const because = reason ? `: ${reason}` : '';
  switch (end) {
    case 'completed':
      return `${what} ended${exit} without a report${because}`;
    case 'failed':
      return `${what} failed${exit}${because}`;
    case 'refused':
      return `the runner refused the dispatch${because}`;
    case 'interrupted':
      return `the runner shut down during the dispatch${because}`;
    case 'canceled':
      return `the runner canceled the dispatch${because}`;
    case 'lost':
      return reason ?? 'its runner was lost';
    default:
      return `${what} ended (${end})${because}`;
  }
}
