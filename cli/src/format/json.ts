import type { Diagnostic } from '@kairoku-playbook/compiler';
import { toJsonDiagnostic } from '@kairoku-playbook/compiler';
import { sortDiagnostics, type SourceOf } from './common.js';

/**
 * The stable JSON array of SPEC §7 (`toJsonDiagnostic` for each diagnostic, in the order of the
 * text output), pretty-printed with two spaces and ending with a newline.
 */
export function formatJson(diagnostics: Diagnostic[], sourceOf: SourceOf): string {
  return (
    JSON.stringify(
      sortDiagnostics(diagnostics).map((d) => toJsonDiagnostic(d, sourceOf)),
      null,
      2,
    ) + '\n'
  );
}
