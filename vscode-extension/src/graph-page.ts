/**
 * What the graph webview shows for the language server's answer about a document: the playbook's graph,
 * or, while it has errors, their count and the first of them, or why there is nothing to draw. The
 * server compiles the playbook with the compiler its diagnostics come from, so the view never disagrees
 * with `kairoku-playbook check` or the Problems panel. No `vscode` here.
 */
import type { GraphAnswer } from '@kairoku-playbook/protocol';
import { renderGraphHtml, renderMessageHtml, renderProblemsHtml } from './graph-view.js';
import type { GraphViewOptions } from './graph-view.js';

export interface PlaybookPage {
  html: string;
  errors: number;
  warnings: number;
  /** the step names in the graph (empty while the playbook has errors) */
  steps: string[];
}

/** The page of an answer; `options.file` names the playbook as the user sees it (else as the server does). */
export function renderGraphPage(answer: GraphAnswer, options: GraphViewOptions): PlaybookPage {
  switch (answer.kind) {
    case 'graph':
      return {
        html: renderGraphHtml(answer, options),
        errors: 0,
        warnings: answer.warnings,
        steps: answer.steps.map((s) => s.name),
      };
    case 'problems':
      return {
        html: renderProblemsHtml(
          {
            file: options.file ?? answer.file,
            errors: answer.errors,
            warnings: answer.warnings,
            problems: answer.problems,
          },
          options,
        ),
        errors: answer.errors,
        warnings: answer.warnings,
        steps: [],
      };
    case 'none':
      return { html: renderMessageHtml(answer.message, options), errors: 0, warnings: 0, steps: [] };
  }
}
