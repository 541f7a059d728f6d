import type { IrAfterTask, IrStep } from '@kairoku-playbook/compiler';
import type { RunEvent } from './events.js';
import { vecToArray } from './pvec.js';
import { AFTER_PREFIX } from './state.js';
import type { RunState } from './state.js';

/**
 * The `timeout` events due at `now`: the run's wall clock, else each running attempt past its step's
 * timeout. The core has no timers: whoever holds a clock (`LiveRun`, the manager protocol, a hosted
 * Paseo run) asks this and feeds the events in.
 */
export function dueTimeouts(state: RunState, now: number): RunEvent[] {
  if (
    (state.status === 'running' || state.status === 'paused') &&
    state.deadline &&
    now >= Date.parse(state.deadline)
  )
    return [{ type: 'timeout' }];
  const events: RunEvent[] = [];
  const check = (
    name: string,
    ir: IrStep | IrAfterTask,
    status: string,
    attempts: RunState['after'][number]['attempts'],
  ) => {
    const attempt = attempts[attempts.length - 1];
    if (status !== 'running' || !attempt || attempt.endedAt !== undefined || !(ir.timeoutMs > 0)) return;
    if (now >= Date.parse(attempt.startedAt) + ir.timeoutMs)
      events.push({ type: 'timeout', step: name, attempt: attempt.attempt });
  };
  vecToArray(state.steps).forEach((s, i) => check(s.name, state.ir.steps[i]!, s.status, s.attempts));
  state.after.forEach((s, i) => check(`${AFTER_PREFIX}${s.name}`, state.ir.after[i]!, s.status, s.attempts));
  return events;
}
