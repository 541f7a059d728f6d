/**
 * How long the server waits after an edit before it validates: the adaptive policy (issue 13, item 6).
 *
 * A fixed debounce makes every edit wait for it, although on a typical playbook the analysis takes a few
 * milliseconds. Waiting pays only in two cases: edits arriving faster than anyone types (a paste in
 * pieces, an editor's own multi-part edit, a replace-all), where one validation after the last one is
 * enough; and an analysis so costly that validating after every keystroke of someone typing would block
 * the server (validation is synchronous: a completion asked meanwhile waits for it). Otherwise the
 * server validates at once.
 *
 * A pure function of two measurements, so the policy is tested without timing (validation-delay.test.ts).
 */

/** An analysis at most this long runs at once, even while the author types: it cannot be felt. */
export const CHEAP_ANALYSIS_MS = 20;
/** Edits closer together than this come from a program, not from typing: they are coalesced. */
export const BURST_GAP_MS = 30;
/** The longest the server ever waits after an edit. */
export const MAX_ADAPTIVE_DELAY_MS = 300;
/**
 * The wall clock the explorer gets per playbook (the `explore` setting: PB310 and PB311 as
 * `check --explore` reports them), explored again when its text changes. With the analysis of an edit
 * (a few ms on a typical playbook) the validation stays under MAX_ADAPTIVE_DELAY_MS, so the delay it
 * causes while someone types (about the validation's own duration) does too. A playbook whose exploration
 * needs longer (refactor.yml, about 6 s) is cut there: PB310 is not reported for it, and a log line says so.
 */
export const EXPLORE_BUDGET_MS = 200;

export interface DelayInputs {
  /** How long the last validation took, in ms (undefined before the first). */
  lastValidationMs: number | undefined;
  /** The time between this edit of the document and its previous one, in ms (undefined for the first). */
  sinceLastEditMs: number | undefined;
}

/**
 * The delay before validating, in whole ms, from 0 to MAX_ADAPTIVE_DELAY_MS:
 * - 0 when the last validation was cheap and the edit is not part of a burst, and 0 for an edit after a
 *   pause longer than twice the analysis, however costly (nobody is typing: waiting only adds latency);
 * - about the analysis's own duration when the author is typing (the previous edit came less than twice
 *   the analysis ago) and the analysis is not cheap: at most half the time goes to validating;
 * - at least BURST_GAP_MS under a burst, so that the burst's last edit is the one validated.
 */
export function adaptiveValidationDelay({ lastValidationMs, sinceLastEditMs }: DelayInputs): number {
  const cost = lastValidationMs !== undefined && Number.isFinite(lastValidationMs) ? lastValidationMs : 0;
  const gap = sinceLastEditMs !== undefined && Number.isFinite(sinceLastEditMs) ? sinceLastEditMs : undefined;
  let delay = 0;
  const typing = gap !== undefined && gap < 2 * cost;
  if (cost > CHEAP_ANALYSIS_MS && typing) delay = cost;
  if (gap !== undefined && gap < BURST_GAP_MS) delay = Math.max(delay, BURST_GAP_MS);
  return Math.min(MAX_ADAPTIVE_DELAY_MS, Math.max(0, Math.round(delay)));
}
