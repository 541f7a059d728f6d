import type { Effect } from '../core/effects.js';
import type { RunEvent } from '../core/events.js';
import { vecSlice } from '../core/pvec.js';
import type { RunState } from '../core/state.js';
import { coverageKeys } from './model.js';

/** How often each line and branch was hit, by key (`coverageKeys`); a key never hit is absent. */
export type CoverageHits = Record<string, number>;

function hit(hits: CoverageHits, key: string): void {
  hits[key] = (hits[key] ?? 0) + 1;
}

/**
 * Counts what one accepted transition of a run covered into `hits`, from structured data only: the
 * event (the outcome a `complete-step` applies, the choice a `gate-decided` makes), the transition's
 * effects (a `step-ready` whose `when` held: the condition is evaluated as the step becomes ready, SPEC
 * §3.3, so a step made ready just before the run ends counts too) and the kinds and steps of the history
 * entries the transition added (`step-started`, `gate-opened`, `step-skipped`, `loop`,
 * `loop-exhausted`); never the entries' text. Give it what a driver's `onTransition` gets.
 */
export function recordTransition(
  hits: CoverageHits,
  before: RunState,
  after: RunState,
  event: RunEvent,
  effects: readonly Effect[],
): void {
  const decided =
    event.type === 'complete-step'
      ? { step: event.step, arm: event.outcome }
      : event.type === 'gate-decided'
        ? { step: event.step, arm: event.choice }
        : undefined;
  if (decided) hit(hits, coverageKeys.outcome(decided.step, decided.arm));
  for (const effect of effects)
    if (effect.type === 'step-ready' && effect.when) hit(hits, coverageKeys.when(effect.step, true));
  const added = after.history.size > before.history.size ? vecSlice(after.history, before.history.size) : [];
  for (const entry of added) {
    const step = entry.step;
    if (step === undefined) continue;
    switch (entry.kind) {
      case 'step-started':
      case 'gate-opened':
        hit(hits, coverageKeys.reached(step));
        break;
      case 'step-skipped':
        // (the one skip the history records per step: its `when` is false)
        hit(hits, coverageKeys.when(step, false));
        break;
      case 'loop':
      case 'loop-exhausted':
        if (decided?.step === step)
          hit(
            hits,
            coverageKeys.loop(`${step}.${decided.arm}`, entry.kind === 'loop' ? 'taken' : 'exhausted'),
          );
        break;
    }
  }
}

/** Adds `more` into `hits` (the hits of every test of a playbook, merged). */
export function mergeHits(hits: CoverageHits, more: CoverageHits): CoverageHits {
  for (const [key, count] of Object.entries(more)) hits[key] = (hits[key] ?? 0) + count;
  return hits;
}
