/**
 * "Did you mean …?" suggestions for misspelt names (types, keys, steps, functions).
 */

/**
 * Edit distance between `a` and `b` counting insertions, deletions, substitutions and swaps of two
 * neighbouring characters (optimal string alignment: `plna` is one edit from `plan`), giving up
 * (returning `limit + 1`) as soon as the distance is known to exceed `limit`. Three rolling rows:
 * O(|a|·|b|) time at worst, O(|b|) memory.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = new Array<number>(b.length + 1);
  let current = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cb = b.charCodeAt(j - 1);
      const cost = ca === cb ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        value = Math.min(value, before[j - 2]! + 1);
      }
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}

/**
 * The candidate closest to `name`, if any is close enough to be a plausible typo: the edit distance must be
 * at most `max(1, floor(name.length / 3))`. Ties go to the earliest candidate; a candidate equal to `name`
 * is returned as is. Case differences count as edits, except that a candidate differing from `name` only
 * in case always qualifies.
 */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  const threshold = Math.max(1, Math.floor(name.length / 3));
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === name) return candidate;
    let distance = editDistance(name, candidate, threshold);
    if (distance > threshold && candidate.toLowerCase() === lower) distance = threshold;
    if (distance <= threshold && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
