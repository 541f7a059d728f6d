/** `runs list` and `runs show`: the stored runs as a table, and one run's steps, loops, outputs and history. */
import { allSteps, forTerminal, isEnded, summarize, toText, vecSlice } from '@kairoku-playbook/runtime';
import type { RunState, RunStore, StepRun } from '@kairoku-playbook/runtime';
import { progressLine } from '../live-view.js';
import type { CommandIo } from '../io.js';

// ---- list --------------------------------------------------------------------------------------

interface ListedRun {
  id: string;
  playbook: string;
  status: RunState['status'];
  startedAt: string | null;
  endedAt: string | null;
  steps: { done: number; total: number };
  archivedAt?: string;
}

export function list(store: RunStore, io: CommandIo, all: boolean, json: boolean): number {
  // The store's index (no run file is read but those changed behind it).
  const { entries, problems } = store.list();
  for (const problem of problems)
    io.stderr(`kairoku-playbook: warning: cannot read ${problem.file}: ${problem.message}\n`);
  const runs = entries
    .filter((r) => all || !r.archivedAt)
    .sort(
      (a, b) =>
        Number(isEnded(a.status)) - Number(isEnded(b.status)) ||
        // (ISO times compare as strings: no locale's collation, which costs much at 10,000 runs)
        (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0),
    );
  const listed: ListedRun[] = runs.map((r) => {
    const entry: ListedRun = {
      id: r.id,
      playbook: r.playbook,
      status: r.status,
      startedAt: r.startedAt,
      endedAt: r.endedAt,
      steps: r.steps,
    };
    if (r.archivedAt) entry.archivedAt = r.archivedAt;
    return entry;
  });
  if (json) {
    io.stdout(`${JSON.stringify(listed, null, 2)}\n`);
    return 0;
  }
  if (!listed.length) {
    io.stdout(all ? 'no runs\n' : 'no runs (archived ones are listed with --all)\n');
    return 0;
  }
  const rows = [
    ['ID', 'PLAYBOOK', 'STATUS', 'STARTED', 'STEPS'],
    ...listed.map((r) =>
      [
        r.id,
        r.playbook,
        r.archivedAt ? `${r.status} (archived)` : r.status,
        r.startedAt ?? '-',
        `${r.steps.done}/${r.steps.total}`,
        // A run file is read as it is on disk: nothing in it reaches the terminal raw.
      ].map((cell) => forTerminal(cell, { oneLine: true })),
    ),
  ];
  io.stdout(table(rows));
  return 0;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '),
    )
    .join('\n')
    .concat('\n');
}

// ---- show --------------------------------------------------------------------------------------

const HISTORY_SHOWN = 15;

export function show(state: RunState, io: CommandIo, json: boolean): number {
  if (json) {
    io.stdout(`${JSON.stringify(summarize(state), null, 2)}\n`);
    return 0;
  }
  const lines: string[] = [];
  lines.push(`run ${state.id}: ${state.playbook} (${state.title})`);
  lines.push(`status: ${state.status}${state.reason ? ` (${state.reason})` : ''}`);
  lines.push(`backend: ${state.backend}${state.branch ? `, branch ${state.branch}` : ''}`);
  lines.push(
    `started: ${state.startedAt ?? '-'}${state.endedAt ? `, ended: ${state.endedAt}` : ''}${state.archivedAt ? `, archived: ${state.archivedAt}` : ''}`,
  );
  lines.push(`steps (${state.settled}/${state.steps.size} done):`);
  for (const run of allSteps(state)) lines.push(...stepLines(run));
  if (state.after.length) {
    lines.push('after:');
    for (const run of state.after) lines.push(...stepLines(run));
  }
  const loops = Object.entries(state.loops).filter(([, n]) => n > 0);
  if (loops.length) lines.push(`loops: ${loops.map(([k, n]) => `${k}=${n}`).join(', ')}`);
  const outputs = Object.entries(state.outputs ?? {});
  if (outputs.length) {
    lines.push('outputs:');
    for (const [name, value] of outputs) lines.push(`  ${name}: ${toText(value)}`);
  }
  const history = vecSlice(state.history, state.history.size - HISTORY_SHOWN);
  lines.push(`history (last ${history.length} of ${state.history.size}):`);
  for (const entry of history) lines.push(`  ${entry.at} ${progressLine(entry)}`);
  // Reasons, outputs, gate titles and history quote agents: shown without their control sequences
  // (`--json` and the run file keep them as they are).
  io.stdout(`${forTerminal(lines.join('\n'))}\n`);
  return 0;
}

function stepLines(run: StepRun): string[] {
  const attempts = run.attempts.map((a) => a.outcome ?? a.ended ?? (a.endedAt ? 'ended' : 'open'));
  const head = `  ${run.name.padEnd(12)} ${run.status.padEnd(9)}`;
  const tried = attempts.length
    ? ` ${attempts.length} attempt${attempts.length === 1 ? '' : 's'}: ${attempts.join(', ')}`
    : '';
  const lines = [`${head}${tried}${run.reason ? ` (${run.reason})` : ''}`.trimEnd()];
  if (run.gate) lines.push(`    gate open: ${run.gate.title}`);
  return lines;
}
