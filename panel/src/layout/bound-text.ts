/**
 * Words for what the page, the start form and the VS Code graph view say of times and of a run's worst
 * case. Pure (no DOM): the extension imports it with the layout.
 */

/** The numbers of a run's worst case that are said (the protocol's `RunBounds` has these and more). */
export interface SaidBounds {
  explored: boolean;
  agentTurns: number;
  gateDecisions: number;
  longestMs: number;
}

/** A duration: "45 s", "3 min 12 s", "2 h 5 min". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return s % 60 ? `${min} min ${s % 60} s` : `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
  return `${Math.floor(h / 24)} d`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "At most 17 agent turns and 3 decisions by a person; at most 4 h by the timeouts." */
export function boundText(bounds: SaidBounds): string {
  const decisions = bounds.gateDecisions
    ? ` and ${plural(bounds.gateDecisions, 'decision')} by a person`
    : ', no decision by a person';
  const time = Number.isFinite(bounds.longestMs)
    ? `; at most ${duration(bounds.longestMs)} by the timeouts`
    : '';
  const cut = bounds.explored ? '' : ' (an upper bound: the exploration of its runs was cut short)';
  return `At most ${plural(bounds.agentTurns, 'agent turn')}${decisions}${time}${cut}.`;
}
