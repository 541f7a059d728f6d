import { resolve } from 'node:path';
import { SourceText, compilePlaybook, sortDiagnostics } from '@kairoku-playbook/compiler';
import type { Diagnostic } from '@kairoku-playbook/compiler';
import {
  DEFAULT_MAX_STATES,
  applyExploreSuppressions,
  budgetRanOut,
  explore,
  exploreDiagnostics,
  sayBounds,
} from '@kairoku-playbook/runtime';
import type { Exploration } from '@kairoku-playbook/runtime';
import { flag, parseArgs } from '../args.js';
import { displayPath } from '../discover.js';
import { formatText } from '../format/index.js';
import { UsageError, readPlaybookFile } from '../io.js';
import type { CommandIo } from '../io.js';

/** The wall clock `explore` gives one playbook unless told otherwise, and `check --explore` each. */
export const EXPLORE_SECONDS = 60;
export const CHECK_EXPLORE_SECONDS = 30;

/** Why an exploration stopped early (the machine's words, which the language server's note uses too). */
export { budgetRanOut };

export const EXPLORE_HELP = `Usage: kairoku-playbook explore FILE [--max-states N] [--max-seconds N]

Explores every run a playbook allows, with the runtime's own transition function: from the start,
every outcome each running step can report, every choice of each open gate, agents lost and
retried, and each value of the inputs that a \`when\` condition tells apart. Prints how many states
it visited, the most attempts any run can give each step, the most agent turns one run can take,
whether every run ends, and what it found: PB310 (a step that can never run) and PB311 (a run that
can get stuck, with the events that lead there).

Options:
  --max-states N   stop after N distinct states (default ${DEFAULT_MAX_STATES}); the numbers are then
                   lower bounds and PB310 is not reported
  --max-seconds N  likewise, stop after N seconds (default ${EXPLORE_SECONDS})
  --no-color       plain text even on a terminal
  -h, --help       this help

Exit codes: 0 every run ends (or the budget ran out first), 1 the playbook has errors or a run can
get stuck (PB311) or go on forever, 2 usage or I/O errors.`;

export function runExplore(argv: readonly string[], io: CommandIo): number {
  const args = parseArgs(
    argv,
    { 'max-states': 'string', 'max-seconds': 'string', 'no-color': 'boolean', help: 'boolean' },
    { h: 'help' },
  );
  if (args.flags.has('help')) {
    io.stdout(`${EXPLORE_HELP}\n`);
    return 0;
  }
  const maxStates = wholeNumber(flag(args, 'max-states'), 'max-states', 'states');
  const maxSeconds = wholeNumber(flag(args, 'max-seconds'), 'max-seconds', 'seconds') ?? EXPLORE_SECONDS;
  if (args.positionals.length !== 1)
    throw new UsageError('explore takes exactly one FILE (see kairoku-playbook explore --help)');
  const path = resolve(io.cwd, args.positionals[0]!);
  const shown = displayPath(path, io.cwd);
  const read = readPlaybookFile(path, shown);
  const text = 'text' in read ? read.text : '';
  const source = new SourceText(text);
  const color = !args.flags.has('no-color') && io.color;
  const compiled =
    'text' in read ? compilePlaybook(shown, text) : { diagnostics: [read.diagnostic], ir: undefined };
  if (!compiled.ir) {
    io.stderr(formatText(compiled.diagnostics, () => source, { color: io.colorStderr, fileCount: 1 }));
    return 1;
  }
  const exploration = explore(compiled.ir, { maxStates, maxMillis: maxSeconds * 1000 });
  const found = applyExploreSuppressions(text, exploreDiagnostics(exploration, { file: shown, text }));
  io.stdout(report(exploration, shown, maxSeconds));
  if (found.diagnostics.length) {
    io.stdout('\n');
    io.stdout(formatText(sortDiagnostics(found.diagnostics), () => source, { color, fileCount: 1 }));
  } else {
    io.stdout(
      exploration.complete
        ? 'no step that can never run (PB310), no run that can get stuck (PB311)\n'
        : 'no run that can get stuck (PB311) in the states explored\n',
    );
  }
  const stuck = found.diagnostics.some((d: Diagnostic) => d.code === 'PB311');
  return stuck || exploration.cycle ? 1 : 0;
}

function wholeNumber(value: string | undefined, name: string, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new UsageError(`--${name} takes a whole number of ${what}, at least 1, not "${value}"`);
  return Number(value);
}

const count = (n: number) => n.toLocaleString('en-US');

/** The readable report: states, a table of steps and their most attempts, turns, endings. */
export function report(exploration: Exploration, file: string, seconds = EXPLORE_SECONDS): string {
  const lines: string[] = [];
  const { complete, model } = exploration;
  const atLeast = complete ? '' : 'at least ';
  const variants = model.inputs.length;
  const inputs = model.readInputs.length
    ? `, ${variants} input ${variants === 1 ? 'variant' : 'variants'} of ${model.readInputs.join(', ')}`
    : '';
  lines.push(
    `${file}: explored ${count(exploration.states)} states (${count(exploration.transitions)} transitions${inputs})` +
      (complete ? '' : `; ${budgetRanOut(exploration, seconds)}`),
  );
  if (!complete)
    lines.push(
      `the numbers below are lower bounds, and PB310 is not reported; raise ${exploration.outOfTime ? '--max-seconds' : '--max-states'} to finish`,
    );
  lines.push('');
  const rows = exploration.units.map((unit) => [
    unit.name,
    unit.kind,
    unit.manual
      ? 'started by hand'
      : unit.maxAttempts === Infinity
        ? 'unbounded'
        : `${atLeast}${unit.maxAttempts}${unit.started ? '' : ' (never runs)'}`,
  ]);
  const header = ['step', 'kind', 'most attempts'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const row of [header, ...rows])
    lines.push(`  ${row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i]!) : cell)).join('  ')}`);
  lines.push('');
  const turns = exploration.worstTurns === Infinity ? 'unbounded' : `${atLeast}${exploration.worstTurns}`;
  lines.push(`most agent turns in one run: ${turns}`);
  // the bounds of a run (as check --explore prints them): past the budget, the static upper bound
  lines.push(`bounds: ${sayBounds(exploration.bounds)}`);
  const endings = exploration.endings.length ? exploration.endings.join(' or ') : 'never';
  if (exploration.cycle) lines.push('some run never ends: it can go round forever');
  else if (exploration.stuck.length) lines.push(`runs end ${endings}, but some get stuck (PB311)`);
  else if (complete) lines.push(`every run ends: ${endings}`);
  else lines.push(`runs end ${endings} in the states explored`);
  for (const note of exploration.notes) lines.push(`note: ${note}`);
  return `${lines.join('\n')}\n`;
}
