/** Times as the page shows them: "5 min ago", "3 min 12 s", a clock that ticks while something runs. */
import { computed, signal } from '@preact/signals';
import { duration } from '../layout/bound-text.js';

export { duration };

/** Now, to the second; components that read it redraw every second (elapsed times while running). */
export const clock = signal(Date.now());
let ticking = false;

/** Now, to 30 seconds: what "5 min ago" and times of an hour or more need (they redraw twice a minute). */
export const coarseClock = computed(() => Math.floor(clock.value / 30_000) * 30_000);

/**
 * Now, from the clock as fine as a time since `since` needs: to the second under an hour ("3 min 12 s"),
 * to 30 s above ("2 h 5 min"), so a list of long runs does not redraw every second.
 */
export function nowFor(since: string | undefined): number {
  const coarse = coarseClock.value;
  const start = since ? Date.parse(since) : Number.NaN;
  return coarse - start > 3_600_000 ? coarse : clock.value;
}

/** Starts the clock (once). Not at import, so the pure helpers below can be tested without timers. */
export function startClock(): void {
  if (ticking) return;
  ticking = true;
  setInterval(() => (clock.value = Date.now()), 1000);
}

/** How long ago: "just now", "5 min ago", "3 h ago", "2 d ago". */
export function ago(iso: string, now: number): string {
  const ms = now - Date.parse(iso);
  if (!(ms >= 0)) return 'just now'; // the future (clock skew) or no date
  const s = Math.floor(ms / 1000);
  if (s < 45) return 'just now';
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min ago`;
  const h = Math.round(min / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.round(h / 24)} d ago`;
}

/** The time from start to end, or to now while it runs; null without a start. */
export function elapsed(
  startedAt: string | undefined,
  endedAt: string | undefined,
  now: number,
): number | null {
  if (!startedAt) return null;
  const start = Date.parse(startedAt);
  const end = endedAt ? Date.parse(endedAt) : now;
  return Number.isNaN(start) || Number.isNaN(end) ? null : end - start;
}

/** The absolute time, for a hover title and `<time>`'s text. */
export const absolute = (iso: string) => new Date(iso).toLocaleString();

/** What an attempt records of its time (the API's AttemptView). */
interface Timed {
  startedAt: string;
  endedAt?: string;
  reportedAt?: string;
}

const ACTIVE = new Set(['running', 'ready', 'reported', 'waiting']);

/**
 * A step's time over its attempts (loops and retries included): each from its start to its end (or its
 * report), the open one to now while the step is active. Null before its first attempt.
 */
export function stepDuration(attempts: readonly Timed[], status: string, now: number): number | null {
  let total = 0;
  let counted = false;
  for (const attempt of attempts) {
    const end = attempt.endedAt ?? attempt.reportedAt;
    const took = elapsed(attempt.startedAt, end, ACTIVE.has(status) || end ? now : Number.NaN);
    if (took === null) continue;
    total += took;
    counted = true;
  }
  return counted ? total : null;
}

/** Whether a step's time is still growing (it redraws with the clock). */
export const stepIsActive = (status: string | undefined) => status !== undefined && ACTIVE.has(status);
