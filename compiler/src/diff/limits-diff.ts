/** What HEAD changes in a playbook's limits and workspace against BASE: its timeouts, loops, concurrency. */
import type { Ir } from '../ir/ir.js';
import type { ChangeKind, ChangeSubject, Direction, PolicyChange } from './policy-change.js';

/** The run's timeout, the default step timeout and loop max, the workspace, and concurrent runs. */
export function limitChanges(base: Ir, head: Ir): PolicyChange[] {
  const out: PolicyChange[] = [];
  const push = (
    kind: ChangeKind,
    direction: Direction,
    subject: ChangeSubject,
    message: string,
    extra: Partial<PolicyChange> = {},
  ) => out.push({ kind, direction, subject, message, ...extra });
  const [b, h] = [base.limits, head.limits];
  const subject: ChangeSubject = { type: 'playbook', name: head.id };
  const infinite = (ms: number | null) => ms ?? Number.POSITIVE_INFINITY;
  if (b.timeoutMs !== h.timeoutMs) {
    const direction = infinite(h.timeoutMs) > infinite(b.timeoutMs) ? 'widened' : 'narrowed';
    push(
      'timeout',
      direction,
      subject,
      `the run's timeout ${direction === 'widened' ? 'lengthened' : 'shortened'}: ${limitDuration(b.timeoutMs)} → ${limitDuration(h.timeoutMs)}`,
      { before: b.timeoutMs, after: h.timeoutMs },
    );
  }
  if (b.stepTimeoutMs !== h.stepTimeoutMs) {
    const direction = h.stepTimeoutMs > b.stepTimeoutMs ? 'widened' : 'narrowed';
    push(
      'timeout',
      direction,
      subject,
      `the default step timeout ${direction === 'widened' ? 'lengthened' : 'shortened'}: ${limitDuration(b.stepTimeoutMs)} → ${limitDuration(h.stepTimeoutMs)}`,
      { before: b.stepTimeoutMs, after: h.stepTimeoutMs },
    );
  }
  if (b.maxLoops !== h.maxLoops) {
    const direction = h.maxLoops > b.maxLoops ? 'widened' : 'narrowed';
    push(
      'loop-max',
      direction,
      subject,
      `the default loop max ${direction === 'widened' ? 'raised' : 'lowered'}: ${b.maxLoops} → ${h.maxLoops}`,
      { before: b.maxLoops, after: h.maxLoops },
    );
  }
  if (base.workspace !== head.workspace) {
    // `current` runs the agents in the checkout itself: leaving a worktree of their own widens
    const [from, to] = [base.workspace, head.workspace];
    const direction: Direction = to === 'current' ? 'widened' : from === 'current' ? 'narrowed' : 'changed';
    push('workspace', direction, subject, `the run's workspace: ${from} → ${to}`, {
      before: from,
      after: to,
    });
  }
  if (b.concurrency !== h.concurrency) {
    const direction = h.concurrency > b.concurrency ? 'widened' : 'narrowed';
    push(
      'concurrency',
      direction,
      subject,
      `concurrent runs ${direction === 'widened' ? 'raised' : 'lowered'}: ${b.concurrency} → ${h.concurrency}`,
      { before: b.concurrency, after: h.concurrency },
    );
  }
  return out;
}

/** 90000 → 1m30s; null → none */
export function limitDuration(ms: number | null): string {
  if (ms === null) return 'none';
  const units: [string, number][] = [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  let rest = ms;
  let text = '';
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    if (count) text += `${count}${unit}`;
    rest -= count * size;
  }
  if (rest) text += `${rest}ms`;
  return text || '0s';
}
