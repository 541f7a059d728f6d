/**
 * The coverage layer in LSP's types: the hints of `features/coverage-hints.ts` as faded Hint diagnostics
 * of their own source (so nothing takes them for the compiler's, and the parity test with `check` leaves
 * them out), and the code action that writes a test taking the faded outcome or choice.
 */
import { pathToFileURL } from 'node:url';
import type { CodeAction, Diagnostic as LspDiagnostic } from 'vscode-languageserver-types';
import { DiagnosticSeverity, DiagnosticTag } from 'vscode-languageserver-types';
import { toRange } from './convert.js';
import { coverageHints, testSkeleton } from './features/coverage-hints.js';
import type { CoverageBranches, CoverageHint } from './features/coverage-hints.js';
import type { FileAnalysis } from './language/types.js';

/** The `source` of coverage hints: not the compiler's (`kairoku-playbook`). */
export const COVERAGE_SOURCE = 'kairoku-playbook coverage';

type HintData = Pick<CoverageHint, 'unit' | 'arm' | 'kind'>;

/** Each outcome and choice no test takes, faded (DiagnosticTag.Unnecessary) with a Hint. */
export function coverageDiagnostics(analysis: FileAnalysis, coverage: CoverageBranches): LspDiagnostic[] {
  return coverageHints(analysis, coverage).map((hint) => {
    const data: HintData = { unit: hint.unit, arm: hint.arm, kind: hint.kind };
    return {
      range: toRange(analysis.source, hint.range),
      severity: DiagnosticSeverity.Hint,
      tags: [DiagnosticTag.Unnecessary],
      source: COVERAGE_SOURCE,
      message: hint.message,
      data,
    };
  });
}

function hintData(diagnostic: LspDiagnostic): HintData | undefined {
  const data = diagnostic.data as Partial<HintData> | undefined;
  if (diagnostic.source !== COVERAGE_SOURCE || !data) return undefined;
  if (typeof data.unit !== 'string' || typeof data.arm !== 'string') return undefined;
  return { unit: data.unit, arm: data.arm, kind: data.kind === 'choice' ? 'choice' : 'outcome' };
}

/**
 * For each coverage hint among `diagnostics`: an action that creates a test file beside the playbook with
 * a scenario that takes the outcome or choice. `testPathFor` names the file (`NAME.test.yml` while the
 * playbook has no test, else a named test, `NAME.STEP-ARM.test.yml`), or undefined where that file is there
 * already: a test file holds one test, and rewriting one is the author's.
 */
export function coverageActions(
  analysis: FileAnalysis,
  diagnostics: readonly LspDiagnostic[],
  testPathFor: (hint: { unit: string; arm: string }) => string | undefined,
): CodeAction[] {
  return diagnostics.flatMap((diagnostic) => {
    const hint = hintData(diagnostic);
    const testPath = hint && testPathFor(hint);
    if (!hint || testPath === undefined) return [];
    const uri = pathToFileURL(testPath).href;
    const name = testPath.slice(testPath.lastIndexOf('/') + 1);
    const action: CodeAction = {
      title: `Write a test that takes ${hint.unit}: ${hint.arm} (${name})`,
      kind: 'quickfix',
      diagnostics: [diagnostic],
      edit: {
        documentChanges: [
          { kind: 'create', uri, options: { ignoreIfExists: true } },
          {
            textDocument: { uri, version: null },
            edits: [
              {
                range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
                newText: testSkeleton(analysis, hint),
              },
            ],
          },
        ],
      },
    };
    return [action];
  });
}
