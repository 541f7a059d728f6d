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
 * For each coverage hint among `diagnostics`: an action that creates the playbook's test file
 * (`testPath`, `NAME.test.yml` beside it) with a scenario that takes the outcome or choice. Offered only
 * while the playbook has no test file: a test file holds one test, and rewriting one is the author's.
 */
export function coverageActions(
  analysis: FileAnalysis,
  diagnostics: readonly LspDiagnostic[],
  testPath: string,
  testExists: boolean,
): CodeAction[] {
  if (testExists) return [];
  const uri = pathToFileURL(testPath).href;
  const name = testPath.slice(testPath.lastIndexOf('/') + 1);
  return diagnostics.flatMap((diagnostic) => {
    const hint = hintData(diagnostic);
    if (!hint) return [];
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
