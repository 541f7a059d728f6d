/**
 * What the graph webview shows for a document's text: the compiler's IR drawn as a graph, or, while the
 * playbook has errors, their count and the first of them. The one compile function the CLI's `compile`
 * and `graph` use, so the view never disagrees with `kairoku-playbook check`. No `vscode` here.
 */
import { SourceText, compilePlaybook } from '@kairoku-playbook/compiler';
import type { Diagnostic } from '@kairoku-playbook/compiler';
import { renderGraphHtml, renderProblemsHtml } from './graph-view.js';
import type { GraphViewOptions, ProblemLine } from './graph-view.js';

/** How many problems the page lists under the count. */
export const LISTED_PROBLEMS = 20;

export interface PlaybookPage {
  html: string;
  errors: number;
  warnings: number;
  /** the step names in the graph (empty while the playbook has errors) */
  steps: string[];
}

function problemLine(source: SourceText, diagnostic: Diagnostic): ProblemLine {
  const at = source.positionAt(diagnostic.range.start);
  return {
    line: at.line + 1,
    column: at.character + 1,
    severity: diagnostic.severity,
    code: diagnostic.code,
    message: diagnostic.message,
  };
}

export function renderPlaybookPage(file: string, text: string, options: GraphViewOptions): PlaybookPage {
  const { diagnostics, ir } = compilePlaybook(file, text);
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
  if (ir) {
    return {
      html: renderGraphHtml(ir, { ...options, file, warnings }),
      errors,
      warnings,
      steps: ir.steps.map((s) => s.name),
    };
  }
  const source = new SourceText(text);
  const listed = diagnostics
    .filter((d) => d.severity === 'error')
    .concat(diagnostics.filter((d) => d.severity !== 'error'))
    .slice(0, LISTED_PROBLEMS)
    .map((d) => problemLine(source, d));
  return {
    html: renderProblemsHtml({ file, errors: Math.max(errors, 1), warnings, problems: listed }, options),
    errors: Math.max(errors, 1),
    warnings,
    steps: [],
  };
}
