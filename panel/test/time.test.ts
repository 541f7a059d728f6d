import { describe, expect, it } from 'vitest';
import { ago, duration, elapsed, stepDuration } from '../src/page/time.js';

const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, 0) + s * 1000).toISOString();
const now = Date.parse(at(0));

describe('times as the panel shows them', () => {
  it('says durations in the largest units that matter', () => {
    expect(duration(45_400)).toBe('45 s');
    expect(duration(192_000)).toBe('3 min 12 s');
    expect(duration(180_000)).toBe('3 min');
    expect(duration(7_500_000)).toBe('2 h 5 min');
    expect(duration(3 * 86_400_000)).toBe('3 d');
    expect(duration(-5)).toBe('0 s');
  });

  it('says how long ago', () => {
    expect(ago(at(-10), now)).toBe('just now');
    expect(ago(at(-300), now)).toBe('5 min ago');
    expect(ago(at(-3 * 3600), now)).toBe('3 h ago');
    expect(ago(at(-3 * 86_400), now)).toBe('3 d ago');
    expect(ago(at(60), now)).toBe('just now'); // a clock ahead of this one
  });

  it('adds a step’s attempts, the open one to now only while the step is active', () => {
    expect(elapsed(at(-60), undefined, now)).toBe(60_000);
    expect(elapsed(undefined, undefined, now)).toBeNull();
    const attempts = [
      { startedAt: at(-100), endedAt: at(-70) },
      { startedAt: at(-50), reportedAt: at(-40) },
      { startedAt: at(-20) },
    ];
    expect(stepDuration(attempts, 'running', now)).toBe(60_000);
    expect(stepDuration(attempts, 'failed', now)).toBe(40_000); // the open attempt has no end to count
    expect(stepDuration([], 'pending', now)).toBeNull();
  });
});
