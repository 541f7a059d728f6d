import { compilePlaybook, isPlaybookTest, isPolicyFile } from '@kairoku-playbook/compiler';
import type { Diagnostic, OffsetRange } from '@kairoku-playbook/compiler';
import { applyExploreSuppressions, exploreDiagnostics } from './diagnostics.js';
import { explore } from './explore.js';
import type { Exploration, ExploreOptions } from './explore.js';
import type { RunBounds } from './bounds.js';

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
  /** PB310 and PB311 before the suppressions (`movedExploration` moves these) */
  found: Diagnostic[];
  /** every state was expanded; otherwise PB310 is not reported (`budgetRanOut` says why) */
  complete: boolean;
  states: number;
  maxStates: number;
  outOfTime: boolean;
  /** the worst case of a run (the language server's hover on `title` and on each step shows it) */
  bounds: RunBounds;
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
  const found = exploreDiagnostics(exploration, { file, text });
  const suppressed = applyExploreSuppressions(text, found);
  const { complete, states, maxStates, outOfTime, bounds } = exploration;
  return {
    bounds,
    diagnostics: suppressed.diagnostics,
    used: suppressed.used,
    found,
    complete,
    states,
    maxStates,
    outOfTime,
  };
}

/**
 * The places of templates whose text no explored run depends on: the explorer renders them (a step's
 * prompt, its commands, a gate's title, …) but no state's key reads them and rendering never fails, so a
 * playbook that differs from another only inside one of them has the same runs. Not `when` (a condition)
 * nor `feedback` (its text is the `loop.feedback` a condition may read: the state's key holds it).
 */
const RUN_INDEPENDENT = new Set([
  'title',
  'description',
  'prompt',
  'run',
  'env',
  'cwd',
  'gate-title',
  'gate-summary',
  'label',
  'output',
]);

/**
 * The exploration of a playbook after an edit inside one template at `place` (the compiler's
 * `templateEditOf`), from the exploration of the text before it: the same runs when the place is one no
 * run depends on, so the same findings, moved with the text (past `change.end` by the edit's length
 * difference) and suppressed again in the new text. Undefined when the playbook must be explored again.
 */
export function movedExploration(
  previous: ExploredPlaybook,
  text: string,
  edit: { change: { start: number; end: number; text: string }; place: string },
): ExploredPlaybook | undefined {
  if (!RUN_INDEPENDENT.has(edit.place)) return undefined;
  const { end } = edit.change;
  const delta = edit.change.text.length - (end - edit.change.start);
  const move = (range: OffsetRange): OffsetRange => ({
    start: range.start >= end ? range.start + delta : range.start,
    end: range.end >= end ? range.end + delta : range.end,
  });
  const found = previous.found.map((d) => ({
    ...d,
    range: move(d.range),
    ...(d.related ? { related: d.related.map((r) => ({ ...r, range: move(r.range) })) } : {}),
  }));
  const suppressed = applyExploreSuppressions(text, found);
  return { ...previous, diagnostics: suppressed.diagnostics, used: suppressed.used, found };
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
