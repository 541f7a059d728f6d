/**
 * Diagnostics as the compiler produces them: ranges are UTF-16 offsets into the file's text.
 * Lines and columns are computed once, at the edge, by `toLineColumn` / `toJsonDiagnostic`.
 */

export type Severity = 'error' | 'warning' | 'info';

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
  code: string;
  message: string;
  related?: RelatedLocation[];
  fix?: QuickFix;
}

/** The quick fix of a did-you-mean: writes `suggestion` over `range` (none without a suggestion). */
export function replaceFix(range: OffsetRange, suggestion: string | undefined): QuickFix | undefined {
  return suggestion
    ? { title: `Replace with "${suggestion}"`, edits: [{ range, newText: suggestion }] }
    : undefined;
}
