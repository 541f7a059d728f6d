/**
 * "Did you mean …?" suggestions for misspelt names (types, keys, steps, functions).
 *
 * A playbook may hold thousands of names and as many misspellings, so `closest` is built to stay near
 * linear in the number of candidates: a typo one edit away is found with a linear comparison per
 * candidate; otherwise the edit distance is computed only inside the band the threshold allows, stops
 * once the threshold is exceeded, and the work spent on one name is bounded (`SUGGESTION_BUDGET`).
 */

/**
 * Dynamic-programming cells one `closest` call may compute to find a typo of two edits or more. A name
 * checked against a few hundred candidates of its length never comes near it; past it (thousands of
 * similar names, each misspelt) `closest` gives no suggestion: one can be missed, never a wrong one.
 */
export const SUGGESTION_BUDGET = 20_000;

/** Three reusable rows of the dynamic program: no allocation per comparison. */
let rows: [Int32Array, Int32Array, Int32Array] = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/**
 * The optimal-string-alignment distance of `a` and `b` if it is at most `limit` (an integer, at least 0),
 * else `limit + 1`; or `undefined` when computing it would take more than `budget` cells. Only the cells
 * within `limit` of the diagonal are computed (the others cannot lead to a distance within the limit).
 */
function boundedDistance(a: string, b: string, limit: number, budget: { cells: number }): number | undefined {
  const n = a.length;
  const m = b.length;
  const over = limit + 1;
  if (Math.abs(n - m) > limit) return over;
  if (rows[0].length < m + 2) {
    const size = Math.max(m + 2, rows[0].length * 2);
    rows = [new Int32Array(size), new Int32Array(size), new Int32Array(size)];
  }
  let [before, previous, current] = rows;
  for (let j = 0; j <= m; j++) previous[j] = j <= limit ? j : over;
  previous[m + 1] = over;
  for (let i = 1; i <= n; i++) {
    const low = Math.max(1, i - limit);
    const high = Math.min(m, i + limit);
    budget.cells -= high - low + 1;
    if (budget.cells < 0) return undefined;
    current[0] = i <= limit ? i : over;
    if (low > 1) current[low - 1] = over;
    let rowMin = current[0]!;
    const ca = a.charCodeAt(i - 1);
    const caBefore = i > 1 ? a.charCodeAt(i - 2) : -1;
    for (let j = low; j <= high; j++) {
      const cb = b.charCodeAt(j - 1);
      let value = previous[j - 1]! + (ca === cb ? 0 : 1);
      const up = previous[j]! + 1;
      if (up < value) value = up;
      const left = current[j - 1]! + 1;
      if (left < value) value = left;
      if (j > 1 && ca === b.charCodeAt(j - 2) && caBefore === cb) {
        const swap = before[j - 2]! + 1;
        if (swap < value) value = swap;
      }
      if (value > over) value = over;
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (high < m) current[high + 1] = over;
    if (rowMin > limit) return over;
    [before, previous, current] = [previous, current, before];
  }
  return previous[m]!;
}

/**
 * Edit distance between `a` and `b` counting insertions, deletions, substitutions and swaps of two
 * neighbouring characters (optimal string alignment: `plna` is one edit from `plan`), giving up
 * (returning `limit + 1`) as soon as the distance is known to exceed `limit`.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (a === b) return 0;
  const most = Math.max(a.length, b.length);
  const bound = Math.max(0, Math.floor(Math.min(limit, most)));
  const distance = boundedDistance(a, b, bound, { cells: Infinity })!;
  return distance > limit ? limit + 1 : distance;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Whether two different strings are one insertion, deletion, substitution or swap apart. */
function oneEditApart(a: string, b: string): boolean {
  const short = a.length <= b.length ? a : b;
  const long = short === a ? b : a;
  const n = short.length;
  const m = long.length;
  if (m - n > 1) return false;
  let i = 0;
  while (i < n && short.charCodeAt(i) === long.charCodeAt(i)) i++;
  if (n === m) {
    if (i === n) return false;
    let k = i + 1;
    // a substitution at i: the rest is equal
    while (k < n && short.charCodeAt(k) === long.charCodeAt(k)) k++;
    if (k === n) return true;
    // a swap of i and i + 1: the rest after them is equal
    if (i + 1 >= n || short.charCodeAt(i) !== long.charCodeAt(i + 1)) return false;
    if (short.charCodeAt(i + 1) !== long.charCodeAt(i)) return false;
    for (k = i + 2; k < n; k++) if (short.charCodeAt(k) !== long.charCodeAt(k)) return false;
    return true;
  }
  // one character more in `long`, at i: the rest of `short` follows it
  for (let k = i; k < n; k++) if (short.charCodeAt(k) !== long.charCodeAt(k + 1)) return false;
  return true;
}

/**
 * The candidate closest to `name`, if any is close enough to be a plausible typo: the edit distance must be
 * at most `max(1, floor(name.length / 3))`. Ties go to the earliest candidate; a candidate equal to `name`
 * is returned as is. Case differences count as edits, except that a candidate differing from `name` only
 * in case always qualifies (at the threshold's distance). `exclude` is left out of the candidates (a step
 * never suggests itself).
 *
 * Most typos are one edit, and nothing but an equal name is closer: a first pass finds the earliest such
 * candidate with a linear comparison each. Only when there is none does the full edit distance run, within
 * `SUGGESTION_BUDGET`; past it there is no suggestion rather than one that may not be the closest.
 */
export function closest(name: string, candidates: readonly string[], exclude?: string): string | undefined {
  if (name !== exclude && candidates.includes(name)) return name;
  const threshold = Math.max(1, Math.floor(name.length / 3));
  const lower = name.toLowerCase();
  // (an ASCII name's lower case only matches a candidate of its own length: no case mapping to ASCII
  // changes a length)
  const caseNeedsSameLength = isAscii(name);
  const caseOnly = (candidate: string): boolean =>
    (candidate.length === name.length || !caseNeedsSameLength) &&
    candidate !== name &&
    candidate.toLowerCase() === lower;

  for (const candidate of candidates) {
    if (candidate === exclude || Math.abs(candidate.length - name.length) > 1) {
      // (with a threshold of 1 a difference in case only is one edit too, at any length)
      if (threshold === 1 && candidate !== exclude && !caseNeedsSameLength && caseOnly(candidate))
        return candidate;
      continue;
    }
    if (oneEditApart(name, candidate) || (threshold === 1 && caseOnly(candidate))) return candidate;
  }
  if (threshold === 1) return undefined;

  const budget = { cells: SUGGESTION_BUDGET };
  let best: string | undefined;
  let bestDistance = threshold + 1;
  for (const candidate of candidates) {
    if (candidate === exclude) continue;
    // A later candidate must be strictly closer to win (and none is one edit away).
    const limit = Math.min(threshold, bestDistance - 1);
    let distance = limit + 1;
    if (limit >= 2 && Math.abs(candidate.length - name.length) <= limit) {
      const measured = boundedDistance(name, candidate, limit, budget);
      if (measured === undefined) return undefined;
      distance = measured;
    }
    if (distance > limit && caseOnly(candidate)) distance = threshold;
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
