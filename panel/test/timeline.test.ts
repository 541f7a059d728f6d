import type { StepDetail } from '@kairoku-playbook/protocol';
import { describe, expect, it } from 'vitest';
import { roundSpan, startedSteps, timelineOf } from '../src/page/timeline.js';

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const iso = (s: number) => new Date(T0 + s * 1000).toISOString();

function step(name: string, status: string, attempts: [number, number | null, string?][]): StepDetail {
  return {
    name,
    kind: 'agent',
    status,
    outcome: null,
    summary: null,
    outputs: null,
    reason: null,
    attempts: attempts.map(([start, end, outcome], i) => ({
      attempt: i + 1,
      startedAt: iso(start),
      ...(end === null ? {} : { endedAt: iso(end) }),
      ...(outcome ? { outcome } : {}),
    })),
    activity: [],
    canNudge: false,
    canRetry: false,
  };
}

describe('timelineOf', () => {
  // review asked for changes once: implement and review ran again; review runs now (100 s in).
  const steps = [
    step('review', 'running', [
      [40, 60, 'changes'],
      [90, null],
    ]),
    step('implement', 'completed', [
      [10, 40, 'done'],
      [60, 90, 'done'],
    ]),
    step('plan', 'completed', [[0, 10, 'done']]),
    step('ship', 'pending', []),
  ];
  const { rows, span } = timelineOf(steps, T0 + 100_000);

  it('lists the steps that started, in the order they first started, on one round axis up to now', () => {
    expect(rows.map((r) => r.step)).toEqual(['plan', 'implement', 'review']);
    expect(span).toBe(120_000); // 100 s, rounded up to 2 min
    expect(startedSteps(steps)).toBe(3);
  });

  it('places each attempt by its start and length, the loop as the same step again later', () => {
    const review = rows[2]!;
    const percent = (s: number) => (s / 120) * 100;
    const places = review.bars.flatMap((b) => [b.left, b.width]);
    [40, 20, 90, 10].forEach((s, i) => expect(places[i]).toBeCloseTo(percent(s)));
    expect(review.bars.map((b) => b.state)).toEqual(['earlier', 'running']);
    expect(review.bars.map((b) => b.text)).toEqual(['#1 changes, 20 s', '#2 running, 10 s']);
    expect(review.time).toBe('2 attempts · 30 s');
    expect(rows[1]!.bars.map((b) => b.state)).toEqual(['earlier', 'completed']);
    expect(rows[0]!.time).toBe('10 s');
  });

  it('draws a step reset by a loop, waiting to start again, as earlier attempts only', () => {
    const reset = timelineOf([step('qa', 'pending', [[0, 5, 'passed']])], T0 + 10_000);
    expect(reset.rows[0]!.bars[0]!.state).toBe('earlier');
    expect(reset.span).toBe(5000);
  });

  it('rounds the axis up to a round duration', () => {
    expect([0, 1000, 1001, 45_000, 61_000, 100_000, 3_600_001, 90_000_000].map(roundSpan)).toEqual([
      1000, 1000, 2000, 60_000, 120_000, 120_000, 7_200_000, 172_800_000,
    ]);
  });
});
