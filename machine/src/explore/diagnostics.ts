import { SourceText, findSuppressions } from '@kairoku-playbook/compiler';
import type { Diagnostic, OffsetRange, RelatedLocation } from '@kairoku-playbook/compiler';
import { sayBounds } from './bounds-text.js';
import { describePath } from './describe.js';
import type { Exploration } from './explore.js';

/**
 * PB310 and PB311 as compiler diagnostics (SPEC §4), placed on the key of the step they are about:
 * the IR's source map gives the key's line and column, the playbook's text its length.
 */

export interface PlaybookSource {
  /** the file as diagnostics name it */
  file: string;
  /** the text the IR was compiled from */
  text: string;
}

/** Paths longer than this are shortened in messages (the related locations keep every step). */
const SHOWN_EVENTS = 6;

/** What a team allows a run (`check --explore --max-agent-turns N`): over it, PB312. */
export interface RunBudget {
  maxAgentTurns?: number;
}

export function exploreDiagnostics(
  exploration: Exploration,
  source: PlaybookSource,
  budget: RunBudget = {},
): Diagnostic[] {
  const words = wordsFor(exploration, source);
  return [
    ...stuckDiagnostics(exploration, source, words),
    // An incomplete exploration proves nothing about what never runs.
    ...(exploration.complete ? neverRunDiagnostics(exploration, source, words) : []),
    ...overBudget(exploration, source, budget),
  ];
}

/**
 * PB312: a run can take more agent turns than allowed, on the playbook's `title` key (its first line
 * when it has none). The bound is the explorer's, or the static one when it was cut off: a static
 * bound over the budget may be a false alarm, and the message says which it is.
 */
function overBudget(exploration: Exploration, source: PlaybookSource, budget: RunBudget): Diagnostic[] {
  const allowed = budget.maxAgentTurns;
  const { bounds } = exploration;
  if (allowed === undefined || bounds.agentTurns <= allowed) return [];
  const title = /^title[ \t]*:/m.exec(source.text);
  const range = title ? { start: title.index, end: title.index + 5 } : { start: 0, end: 0 };
  return [
    {
      file: source.file,
      range,
      severity: 'error',
      code: 'PB312',
      message: `a run can take more agent turns than --max-agent-turns ${allowed}: ${sayBounds(bounds)}`,
    },
  ];
}

/** How the diagnostics place and name a step (or after-task), by its unit. */
interface Words {
  keyRange(unit: number): OffsetRange;
  quote(unit: number): string;
  label(unit: number): string;
}

function wordsFor(exploration: Exploration, source: PlaybookSource): Words {
  const { model } = exploration;
  const lines = new SourceText(source.text);
  const n = exploration.ir.steps.length;
  const quote = (unit: number) => `"${model.irOf(unit).name}"`;
  return {
    keyRange: (unit) => {
      const ir = model.irOf(unit);
      return keyAt(lines, source.text, ir.at, ir.name);
    },
    quote,
    label: (unit) =>
      unit >= n
        ? `after-task ${quote(unit)}`
        : `${model.irOf(unit).kind === 'gate' ? 'gate' : 'step'} ${quote(unit)}`,
  };
}

/** PB311: each stuck state found, on the first step that waits, with the path that gets there. */
function stuckDiagnostics(
  exploration: Exploration,
  source: PlaybookSource,
  { keyRange, quote }: Words,
): Diagnostic[] {
  const { model } = exploration;
  const diagnostics: Diagnostic[] = [];
  for (const stuck of exploration.stuck) {
    const events = describePath(model, stuck.path);
    const shown =
      events.length <= SHOWN_EVENTS
        ? events.map((e) => e.text)
        : [
            ...events.slice(0, 2).map((e) => e.text),
            `… ${events.length - 5} more …`,
            ...events.slice(-3).map((e) => e.text),
          ];
    const unit = stuck.blocked >= 0 ? stuck.blocked : 0;
    const waits = stuck.waitingFor.length
      ? `; ${quote(unit)} waits for ${stuck.waitingFor.map(quote).join(', ')}, which will never complete`
      : '';
    const related: RelatedLocation[] = [];
    events.forEach((event, i) => {
      if (event.unit === undefined) return;
      related.push({ file: source.file, range: keyRange(event.unit), message: `${i + 1}. ${event.text}` });
    });
    diagnostics.push({
      file: source.file,
      range: keyRange(unit),
      severity: 'error',
      code: 'PB311',
      message:
        `a run can get stuck here: after ${shown.join(' → ')}, no step is ready, running or waiting ` +
        `and the run has not ended${waits}`,
      ...(related.length ? { related } : {}),
    });
  }

  return diagnostics;
}

/**
 * PB310: a step no explored run starts. Only the first of a chain is reported (its dependents can
 * never run because it cannot).
 */
function neverRunDiagnostics(
  exploration: Exploration,
  source: PlaybookSource,
  { keyRange, quote, label }: Words,
): Diagnostic[] {
  const { model } = exploration;
  const n = exploration.ir.steps.length;
  const diagnostics: Diagnostic[] = [];
  const units = exploration.units;
  const never = (unit: number) => !units[unit]!.started && !units[unit]!.manual;
  // A step that never runs because a need of it never runs and never settles is a consequence.
  const blockedByNeed = (unit: number) =>
    unit < n && exploration.ir.steps[unit]!.needs.some((need) => never(need) && !units[need]!.settled);
  const reported = new Set<number>();
  for (let unit = 0; unit < units.length; unit++) if (never(unit) && !blockedByNeed(unit)) reported.add(unit);
  for (const unit of reported) {
    const isAfter = unit >= n;
    const needs = isAfter ? [] : exploration.ir.steps[unit]!.needs;
    let why: string;
    const related: RelatedLocation[] = [];
    if (isAfter) {
      const on = (model.irOf(unit) as { on: string[] }).on;
      why = on.length ? `no run ends ${on.join(' or ')}` : 'it has no `on` status to start on';
    } else if (units[unit]!.skipped) {
      why = 'its `when` condition is false in every run that reaches it';
    } else {
      const unsettled = needs.filter((need) => !units[need]!.settled);
      if (unsettled.length) {
        why = `no run goes on past ${unsettled.map(quote).join(' or ')} (${unsettled.length > 1 ? 'they never complete' : 'it never completes'}, or completing ends the run)`;
        for (const need of unsettled)
          related.push({
            file: source.file,
            range: keyRange(need),
            message: `${quote(need)} is declared here: every run fails, ends or waits at it`,
          });
      } else {
        why = `its needs (${needs.map(quote).join(', ')}) never all complete in the same run`;
      }
    }
    const consequences = dependentsOf(exploration, unit).filter((u) => never(u) && !reported.has(u));
    const tail = consequences.length
      ? `; nor can what needs it: ${consequences.map((u) => model.irOf(u).name).join(', ')}`
      : '';
    diagnostics.push({
      file: source.file,
      range: keyRange(unit),
      severity: 'warning',
      code: 'PB310',
      message: `${label(unit)} can never run: ${why}${tail}`,
      ...(related.length ? { related } : {}),
    });
  }
  return diagnostics;
}

/** Steps that transitively need a step, in IR order. */
function dependentsOf(exploration: Exploration, unit: number): number[] {
  const steps = exploration.ir.steps;
  if (unit >= steps.length) return [];
  const found = new Set<number>([unit]);
  for (const step of steps) if (step.needs.some((need) => found.has(need))) found.add(step.index);
  found.delete(unit);
  return [...found].sort((a, b) => a - b);
}

/**
 * The range of a step's key from its `[line, column]` (1-based) in the source map: the plain name,
 * or the quoted key with its quotes.
 */
export function keyAt(lines: SourceText, text: string, at: [number, number], name: string): OffsetRange {
  if (at[0] < 1) return { start: 0, end: 0 };
  const start = lines.offsetAt({ line: at[0] - 1, character: at[1] - 1 });
  const first = text[start];
  if (first === '"' || first === "'") {
    for (let i = start + 1; i < text.length && text[i] !== '\n'; i++) {
      if (first === '"' && text[i] === '\\') {
        i++;
        continue;
      }
      if (text[i] !== first) continue;
      if (first === "'" && text[i + 1] === "'") {
        i++;
        continue;
      }
      return { start, end: i + 1 };
    }
  }
  if (text.startsWith(name, start)) return { start, end: start + name.length };
  let end = start;
  while (end < text.length && !/[\s:]/.test(text[end]!)) end++;
  return { start, end };
}

/**
 * `# playbook-ignore PB310 reason` comments (the compiler's rule: at the end of the reported line, or
 * alone on the line before) applied to explore's diagnostics. Returns what is kept and the ranges of
 * the codes in comments that silenced something, so that the compiler's PB903 ("silences nothing")
 * for them can be dropped.
 */
export function applyExploreSuppressions(
  text: string,
  diagnostics: readonly Diagnostic[],
): { diagnostics: Diagnostic[]; used: OffsetRange[] } {
  if (!text.includes('playbook-ignore')) return { diagnostics: [...diagnostics], used: [] };
  const lines = new SourceText(text);
  // The compiler's reading of the comments, so both agree on what a suppression is.
  const suppressions = findSuppressions(text, lines);
  const used: OffsetRange[] = [];
  const kept = diagnostics.filter((diagnostic) => {
    const line = lines.positionAt(diagnostic.range.start).line;
    const suppression = suppressions.find((s) => s.code === diagnostic.code && s.line === line);
    if (!suppression) return true;
    if (!used.includes(suppression.range)) used.push(suppression.range);
    return false;
  });
  return { diagnostics: kept, used };
}
