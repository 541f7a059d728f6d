import { compilePlaybook, isPlaybookTest, isPolicyFile } from '@kairoku-playbook/compiler';
import type { Diagnostic, OffsetRange } from '@kairoku-playbook/compiler';
import { applyExploreSuppressions, exploreDiagnostics } from './diagnostics.js';
import { explore } from './explore.js';
import type { Exploration, ExploreOptions } from './explore.js';

/**
 * `check --explore` for one playbook, as the language server runs it too: which files are explored, and
 * what exploring one gives, so both report the same PB310 and PB311 (lsp/test/server/parity.test.ts holds
 * the language server to the CLI's output).
 */

/** What exploring one playbook gives `check --explore`. */
export interface ExploredPlaybook {
  /** PB310 and PB311, placed on the playbook's text, without those a `# playbook-ignore` silences */
  diagnostics: Diagnostic[];
  /** the ranges of the `# playbook-ignore` comments that silenced one: the compiler's PB903 on them goes */
  used: OffsetRange[];
  /** every state was expanded; otherwise PB310 is not reported (`budgetRanOut` says why) */
  complete: boolean;
  states: number;
  maxStates: number;
  outOfTime: boolean;
}

/**
 * Whether `check --explore` explores a file: a playbook (not a playbook test, not the approval policy)
 * on which the check found no error. `errors`: whether the check found one in it.
 */
export function isExplored(file: string, errors: boolean): boolean {
  return !errors && !isPlaybookTest(file) && !isPolicyFile(file);
}

/** Compiles and explores one playbook (`isExplored`); undefined when it does not compile. */
export function explorePlaybook(
  file: string,
  text: string,
  options: ExploreOptions = {},
): ExploredPlaybook | undefined {
  const { ir } = compilePlaybook(file, text);
  if (!ir) return undefined;
  const exploration = explore(ir, options);
  const suppressed = applyExploreSuppressions(text, exploreDiagnostics(exploration, { file, text }));
  const { complete, states, maxStates, outOfTime } = exploration;
  return {
    diagnostics: suppressed.diagnostics,
    used: suppressed.used,
    complete,
    states,
    maxStates,
    outOfTime,
  };
}

/** Why an exploration stopped early, for `explore`'s report and the note of `check --explore`. */
export function budgetRanOut(
  exploration: Pick<Exploration, 'outOfTime' | 'maxStates'>,
  seconds: number,
): string {
  return exploration.outOfTime
    ? `the time budget of ${seconds} s ran out`
    : `the budget of ${exploration.maxStates.toLocaleString('en-US')} states ran out`;
}
