import type { JsonDiagnostic as WireDiagnostic } from '@kairoku-playbook/protocol';
import type { Code } from './codes.js';
import type { Diagnostic, Severity } from './diagnostic.js';
import type { SourceText } from './source-text.js';

/**
 * The stable JSON shape of SPEC §7 (`@kairoku-playbook/protocol`'s `JsonDiagnostic`), its code one of
 * SPEC §4's: lines and columns 1-based, columns in UTF-16 code units.
 */
export interface JsonDiagnostic extends WireDiagnostic {
  severity: Severity;
  code: Code;
}

/** Offsets as 1-based lines and columns (UTF-16 code units, the end exclusive): converted once, at the edge. */
export function lineColumnSpan(
  source: SourceText,
  start: number,
  end: number,
): { line: number; column: number; endLine: number; endColumn: number } {
  const from = source.positionAt(start);
  const to = source.positionAt(end);
  return {
    line: from.line + 1,
    column: from.character + 1,
    endLine: to.line + 1,
    endColumn: to.character + 1,
  };
}

export function toJsonDiagnostic(
  diagnostic: Diagnostic,
  sourceOf: (file: string) => SourceText | undefined,
): JsonDiagnostic {
  const span = (file: string, start: number, end: number) => {
    const source = sourceOf(file);
    return source ? lineColumnSpan(source, start, end) : { line: 1, column: 1, endLine: 1, endColumn: 1 };
  };
  const json: JsonDiagnostic = {
    file: diagnostic.file,
    ...span(diagnostic.file, diagnostic.range.start, diagnostic.range.end),
    severity: diagnostic.severity,
    code: diagnostic.code,
    message: diagnostic.message,
  };
  if (diagnostic.related?.length) {
    json.related = diagnostic.related.map((r) => ({
      file: r.file,
      ...span(r.file, r.range.start, r.range.end),
      message: r.message,
    }));
  }
  return json;
}
