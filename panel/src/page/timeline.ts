/**
 * A run's timeline, as data: one row per step that has started, one bar per attempt placed on the run's
 * time (a Gantt-like strip), so a loop shows as the same step's bars again, later. Pure: the component
 * (timeline-view.tsx) draws it, the tests check it without a page.
 */
import type { AttemptView, StepDetail } from '@kairoku-playbook/protocol';
import { stepState } from './status.js';
import type { Shown } from './status.js';
import { duration, stepDuration, stepIsActive } from './time.js';

/** How an attempt's bar shows: its step's state while it is the open or the final attempt, else earlier. */
export type BarState = Shown | 'earlier';

export interface TimelineBar {
  attempt: number;
  /** from the timeline's start, and how long, in % of its span */
  left: number;
  width: number;
  state: BarState;
  /** "#2 approved, 3 s": what the bar says in words (its accessible name, its hover title) */
  text: string;
}

export interface TimelineRow {
  step: string;
  bars: TimelineBar[];
  /** "2 attempts · 1 min 3 s": the step's time over its attempts, in words */
  time: string;
}

export interface Timeline {
  rows: TimelineRow[];
  /**
   * the axis, in ms: from the first attempt's start to the last end (or now while something runs),
   * rounded up to a round duration, so a tick of the clock moves no bar but the open one's end
   */
  span: number;
}

const S = 1000;
const ROUND_SPANS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
];

/** The shortest round duration (1 s, 2 s, 5 s … 1 min, 2 min … 1 h … 1 d, then whole days) that holds `ms`. */
export function roundSpan(ms: number): number {
  const fits = ROUND_SPANS.find((s) => s * S >= ms);
  return fits ? fits * S : Math.ceil(ms / (86_400 * S)) * 86_400 * S;
}

const at = (iso: string | undefined) => (iso ? Date.parse(iso) : Number.NaN);

/** Where an attempt ends: its end or report; now while it is its step's open attempt; else unknown. */
function endOf(attempt: AttemptView, open: boolean, now: number): number {
  const end = at(attempt.endedAt ?? attempt.reportedAt);
  return Number.isNaN(end) && open ? now : end;
}

function barState(step: StepDetail, attempt: AttemptView, last: boolean): BarState {
  if (attempt.ended && attempt.ended !== 'read-only') return 'failed';
  if (!last) return 'earlier';
  const state = stepState(step.status);
  return state === 'unreached' ? 'earlier' : state; // reset by a loop: it waits to start again
}

function barText(step: StepDetail, attempt: AttemptView, open: boolean, end: number): string {
  const what = attempt.outcome ?? attempt.ended ?? (open ? step.status : 'no outcome');
  const took = end - at(attempt.startedAt);
  return Number.isNaN(took)
    ? `#${attempt.attempt} ${what}`
    : `#${attempt.attempt} ${what}, ${duration(took)}`;
}

function rowTime(step: StepDetail, now: number): string {
  const took = stepDuration(step.attempts, step.status, now);
  const count = step.attempts.length > 1 ? `${step.attempts.length} attempts · ` : '';
  return `${count}${took === null ? 'no time recorded' : duration(took)}`;
}

/** The steps that have started (after-tasks too), in the order they first started, on one time axis. */
export function timelineOf(steps: readonly StepDetail[], now: number): Timeline {
  const started = steps.filter((s) => s.attempts.length > 0 && !Number.isNaN(at(s.attempts[0]!.startedAt)));
  const first = (s: StepDetail) => at(s.attempts[0]!.startedAt);
  const ordered = [...started].sort((a, b) => first(a) - first(b)); // stable: the graph's order on a tie
  let start = Infinity;
  let end = -Infinity;
  for (const step of ordered)
    step.attempts.forEach((attempt, i) => {
      const open = i === step.attempts.length - 1 && stepIsActive(step.status);
      const s = at(attempt.startedAt);
      const e = endOf(attempt, open, now);
      if (!Number.isNaN(s)) start = Math.min(start, s);
      end = Math.max(end, Number.isNaN(e) ? s : e);
    });
  const span = roundSpan(Number.isFinite(start) ? end - start : 0);
  const rows = ordered.map((step) => ({
    step: step.name,
    time: rowTime(step, now),
    bars: step.attempts.map((attempt, i) => {
      const last = i === step.attempts.length - 1;
      const open = last && stepIsActive(step.status);
      const s = at(attempt.startedAt);
      const e = endOf(attempt, open, now);
      const shownEnd = Number.isNaN(e) ? s : e;
      return {
        attempt: attempt.attempt,
        left: ((s - start) / span) * 100,
        width: (Math.max(0, shownEnd - s) / span) * 100,
        state: barState(step, attempt, last),
        text: barText(step, attempt, open, e),
      };
    }),
  }));
  return { rows, span };
}

/** How many steps the timeline would list, without laying it out (a big run's is folded). */
export const startedSteps = (steps: readonly StepDetail[]) =>
  steps.reduce((n, s) => n + (s.attempts.length > 0 ? 1 : 0), 0);
