import { isAbsolute, relative } from 'node:path';
import type { Diagnostic, OffsetRange } from '@kairoku-playbook/compiler';
import type { SourceText } from '@kairoku-playbook/compiler';

/** Resolves a diagnostic's file to its text; `undefined` when the text is not available. */
export type SourceOf = (file: string) => SourceText | undefined;

/** A range as 1-based lines and columns; columns count UTF-16 code units, the end is exclusive. */
export interface LineColumnSpan {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** Clamps a range into the text and puts its ends in order. */
export function normaliseRange(range: OffsetRange, length: number): OffsetRange {
  const clamp = (n: number) => Math.max(0, Math.min(Number.isFinite(n) ? n : 0, length));
  const a = clamp(range.start);
  const b = clamp(range.end);
  return a <= b ? { start: a, end: b } : { start: b, end: a };
}

/** The 1-based span of a range, or `undefined` when the file's text is not available. */
export function spanOf(file: string, range: OffsetRange, sourceOf: SourceOf): LineColumnSpan | undefined {
  const source = sourceOf(file);
  if (!source) return undefined;
  const { start, end } = normaliseRange(range, source.text.length);
  const from = source.positionAt(start);
  const to = source.positionAt(end);
  return {
    line: from.line + 1,
    column: from.character + 1,
    endLine: to.line + 1,
    endColumn: to.character + 1,
  };
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The order every format prints in: by file, then start, then code (then end and message, so the
 * order is total and the output does not depend on the order the checks ran in). Plain UTF-16
 * comparison rather than `localeCompare`, so the result does not depend on the machine's locale.
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

/** `file` relative to `cwd` when it is an absolute path inside `cwd`; otherwise `file` unchanged. */
export function displayPath(file: string, cwd: string | undefined): string {
  if (cwd === undefined || !isAbsolute(file)) return file;
  const rel = relative(cwd, file);
  if (rel === '' || rel === '..' || rel.startsWith('../') || rel.startsWith('..\\') || isAbsolute(rel))
    return file;
  return rel;
}
