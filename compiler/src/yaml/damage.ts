import { isMap, isScalar } from 'yaml';
import type { Document, Node, Pair, YAMLMap } from 'yaml';
import type { Diagnostic, OffsetRange } from '../diagnostic.js';

/**
 * After a YAML syntax error the parser recovers, but what it makes of the text around the error is
 * a guess: keys move to other mappings, later steps vanish into a run-away string. Checking that guess
 * gives a cascade of nonsense (unknown keys, missing keys, unused inputs) for one mistake.
 *
 * So each syntax error marks a *damaged* part of the file: from the start of the entry that holds it
 * (a step, an input, a role, an after-task or a playbook output; else the top-level key) to the next
 * line where the parser is back on track (a key of the same or an outer mapping, at or left of the
 * entry's column, that the parser did read as such). Diagnostics inside a damaged part are dropped,
 * except the syntax errors themselves. The rest of the file is checked as usual, except the checks
 * that look at the whole file (see `WHOLE_FILE_CODES`): they wait until the YAML is fixed.
 */

/** Top-level keys whose value maps names to entries: a syntax error damages one entry, not all. */
const NAMED = new Set(['steps', 'inputs', 'roles', 'after', 'outputs']);

/**
 * Codes whose diagnostics depend on parts of the file that may be damaged: a name declared there, a use
 * there, a need there (ancestors), or a diagnostic there (what a suppression would silence).
 */
const WHOLE_FILE_CODES = new Set([
  'PB200',
  'PB201',
  'PB202',
  'PB203',
  'PB204',
  'PB205',
  'PB206',
  'PB207',
  'PB301',
  'PB900',
  'PB901',
  'PB903',
]);

function keyStart(pair: Pair): number | undefined {
  const key = pair.key as Node | null;
  if (key && key.range) return key.range[0];
  const value = pair.value as Node | null;
  return value?.range?.[0];
}

/** The last pair of a mapping whose key starts at or before `offset`. */
function pairBefore(map: YAMLMap, offset: number): Pair | undefined {
  let found: Pair | undefined;
  for (const pair of map.items) {
    const start = keyStart(pair as Pair);
    if (start !== undefined && start <= offset) found = pair as Pair;
  }
  return found;
}

function lineStartOf(text: string, offset: number): number {
  let i = Math.min(offset, text.length);
  while (i > 0 && text[i - 1] !== '\n' && text[i - 1] !== '\r') i--;
  return i;
}

/** The damaged part of the file around a syntax error at `offset`. */
export function damageAround(document: Document.Parsed, text: string, offset: number): OffsetRange {
  const root = document.contents as Node | null;
  if (!isMap(root)) return { start: 0, end: text.length };
  let unit = pairBefore(root as YAMLMap, offset);
  if (!unit) return { start: 0, end: text.length };
  const maps: YAMLMap[] = [root as YAMLMap];
  const name = isScalar(unit.key) ? String(unit.key.value) : '';
  if (NAMED.has(name) && isMap(unit.value)) {
    const entry = pairBefore(unit.value as YAMLMap, offset);
    if (entry) {
      maps.push(unit.value as YAMLMap);
      unit = entry;
    }
  }
  const start = keyStart(unit) ?? 0;
  const column = start - lineStartOf(text, start);
  const resumeAt = new Set<number>();
  for (const map of maps) {
    for (const pair of map.items) {
      const at = keyStart(pair as Pair);
      if (at !== undefined && at > offset) resumeAt.add(at);
    }
  }
  // Scan the lines after the error's line for one that starts a key the parser read in place.
  let i = offset;
  while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
  while (i < text.length) {
    while (i < text.length && (text[i] === '\n' || text[i] === '\r')) i++;
    const lineStart = i;
    while (i < text.length && text[i] === ' ') i++;
    if (i - lineStart <= column && resumeAt.has(i)) return { start, end: lineStart };
    while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
  }
  return { start, end: text.length };
}

/**
 * Drops what a syntax error's damage makes unreliable: every diagnostic but PB100 inside a damaged
 * part, the codes that look at the whole file, and a "missing required key" of the playbook itself
 * (the key may be in the damaged part).
 */
export function dropDamageFallout(
  diagnostics: Diagnostic[],
  damaged: readonly OffsetRange[],
  document: Document.Parsed | undefined,
): Diagnostic[] {
  if (damaged.length === 0) return diagnostics;
  const root = document?.contents as Node | null | undefined;
  const firstKey = isMap(root) ? ((root as YAMLMap).items[0]?.key as Node | null | undefined) : undefined;
  const rootRange = firstKey?.range
    ? { start: firstKey.range[0], end: firstKey.range[1] }
    : { start: 0, end: 0 };
  return diagnostics.filter((d) => {
    if (d.code === 'PB100') return true;
    if (WHOLE_FILE_CODES.has(d.code)) return false;
    if (d.code === 'PB103' && d.range.start === rootRange.start && d.range.end === rootRange.end)
      return false;
    return !damaged.some((r) => d.range.start >= r.start && d.range.start < r.end);
  });
}
