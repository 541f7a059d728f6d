import type { RunBounds } from './bounds.js';

/**
 * The bounds of a run in words, as `check --explore`, the language server's hover and `diff` say them:
 * one engine, one wording.
 */

/** `2h 30m`, `45s`; `unbounded` for Infinity. */
export function sayDuration(ms: number): string {
  if (ms === Infinity) return 'unbounded';
  if (ms === 0) return '0s';
  const parts: string[] = [];
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = Math.floor((ms % 60_000) / 1000);
  if (hours) parts.push(`${hours}h`);
  if (minutes) parts.push(`${minutes}m`);
  if (seconds || parts.length === 0) parts.push(`${seconds}s`);
  return parts.join(' ');
}

/** A count; past a million, two significant digits (a static bound of nested loops can be 10^99). */
export function sayCount(n: number): string {
  return n >= 1e6 && n !== Infinity ? `about ${n.toPrecision(2).replace('e+', ' × 10^')}` : String(n);
}

function count(n: number, one: string, many: string): string {
  return n === Infinity ? `unbounded ${many}` : `${sayCount(n)} ${n === 1 ? one : many}`;
}

/**
 * `at most 17 agent turns (a chain of 12), 3 gate decisions, 9h of agents and checks`; a static
 * bound says so.
 */
export function sayBounds(bounds: RunBounds): string {
  const turns = count(bounds.agentTurns, 'agent turn', 'agent turns');
  const chain =
    bounds.chainTurns < bounds.agentTurns ? ` (at most ${bounds.chainTurns} one after another)` : '';
  const gates = count(bounds.gateDecisions, 'gate decision', 'gate decisions');
  const clock = `${sayDuration(bounds.longestMs)} of agents and checks`;
  const how = bounds.explored ? '' : ' (a static bound: the exploration was cut off)';
  return `at most ${turns}${chain}, ${gates}, ${clock}${how}`;
}

/** A unit's own bound: `at most 9 attempts: retries: 1; loop qa.fail (max 3)`. */
export function sayUnitBound(unit: RunBounds['units'][number], explored: boolean): string {
  const attempts = unit.kind === 'gate' ? 'times asked' : 'attempts';
  const most =
    unit.maxAttempts === Infinity
      ? `unbounded ${attempts}`
      : `at most ${sayCount(unit.maxAttempts)} ${unit.maxAttempts === 1 && unit.kind !== 'gate' ? 'attempt' : attempts}`;
  return `${most}${explored ? '' : ' (static bound)'}: ${unit.why}`;
}
