/**
 * Diagnostics as the compiler produces them: ranges are UTF-16 offsets into the file's text.
 * Lines and columns are computed once, at the edge, by `toLineColumn` / `toJsonDiagnostic`.
 */

import { CODES } from './codes.js';
import type { Code, Severity } from './codes.js';

export type { Severity };

export interface OffsetRange {
  start: number;
  end: number;
}

export interface RelatedLocation {
  file: string;
  range: OffsetRange;
  message: string;
}

export interface TextEdit {
  range: OffsetRange;
  newText: string;
}

export interface QuickFix {
  title: string;
  edits: TextEdit[];
}

export interface Diagnostic {
  file: string;
  range: OffsetRange;
  severity: Severity;
  code: Code;
  message: string;
  related?: RelatedLocation[];
  fix?: QuickFix;
}

export interface DiagnosticOptions {
  related?: RelatedLocation[] | undefined;
  fix?: QuickFix | undefined;
}

/**
 * The one way the compiler makes a diagnostic: its severity is the code's (codes.ts). Each code is made in
 * one file, its producer, with the code written out as a literal (test/code-producers.test.ts checks it).
 */
export function createDiagnostic(
  file: string,
  code: Code,
  range: OffsetRange,
  message: string,
  options: DiagnosticOptions = {},
): Diagnostic {
  const diagnostic: Diagnostic = { file, range, severity: CODES[code].severity, code, message };
  if (options.related?.length) diagnostic.related = options.related;
  if (options.fix) diagnostic.fix = options.fix;
  return diagnostic;
}

/** The quick fix of a did-you-mean: writes `suggestion` over `range` (none without a suggestion). */
export function replaceFix(range: OffsetRange, suggestion: string | undefined): QuickFix | undefined {
  return suggestion
    ? { title: `Replace with "${suggestion}"`, edits: [{ range, newText: suggestion }] }
    : undefined;
}

/** The quick fix of a did-you-mean for a string literal (an outcome, a choice): writes `'suggestion'` over it. */
export function replaceLiteralFix(range: OffsetRange, suggestion: string | undefined): QuickFix | undefined {
  return suggestion
    ? { title: `Replace with '${suggestion}'`, edits: [{ range, newText: `'${suggestion}'` }] }
    : undefined;
}

/**
 * The most characters of the file's own text (a name, a key, a value, an expression) one message repeats:
 * a message says which thing, it does not copy it (an expression can be 100 KB long).
 */
export const MAX_SHOWN = 60;

/** The most characters of a whole message, whatever it quotes (see `boundMessage`). */
export const MAX_MESSAGE = 1_000;

/** `text` cut to `most` characters, an ellipsis standing for the rest (never half a surrogate pair). */
export function shown(text: string, most = MAX_SHOWN): string {
  if (text.length <= most) return text;
  let cut = most - 1;
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--;
  return `${text.slice(0, cut)}…`;
}

/** Names quoted for a message, at most `most` of them, then how many more. */
export function shownList(names: readonly string[], most = 10): string {
  const listed = names.slice(0, most).map((name) => `"${shown(name)}"`);
  if (names.length > most) listed.push(`and ${names.length - most} more`);
  return listed.join(', ');
}

/** A message within `MAX_MESSAGE`: the last guard, for text that reached a message uncut. */
export function boundMessage(message: string): string {
  return shown(message, MAX_MESSAGE);
}

/** A value from the file as a message shows it: text quoted and cut, anything else as JSON, cut. */
export function shownValue(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(shown(value)) : shown(String(JSON.stringify(value)));
}

/**
 * The one order of diagnostics: by file, then start, then code, then end and message. `validate` returns
 * them so and every printed form (`check` in every format, `validate_playbooks`) prints them so; the order
 * is total and does not depend on the order the checks ran in. Plain UTF-16 comparison, not
 * `localeCompare`: no machine's locale matters. Returns a sorted copy.
 */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) =>
      compareStrings(a.file, b.file) ||
      a.range.start - b.range.start ||
      compareStrings(a.code, b.code) ||
      a.range.end - b.range.end ||
      compareStrings(a.message, b.message),
  );
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
