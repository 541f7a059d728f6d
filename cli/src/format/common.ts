import { displayPath, lineColumnSpan } from '@kairoku-playbook/compiler';
import type { OffsetRange, SourceText } from '@kairoku-playbook/compiler';

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
  return lineColumnSpan(source, start, end);
}

/** The order every format prints in (the compiler's, shared with `validate_playbooks`). */
export { sortDiagnostics } from '@kairoku-playbook/compiler';

/**
 * A diagnostic's file as the formats print it: the compiler's `displayPath` against `cwd` (relative, with
 * forward slashes, when inside it; as it is otherwise), the rule `check` names files by; as it is
 * without a `cwd`.
 */
export function printedPath(file: string, cwd: string | undefined): string {
  return cwd === undefined ? file : displayPath(file, cwd);
}
