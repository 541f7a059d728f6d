import type { CoverageBranch } from './model.js';
import type { CoverageReport } from './report.js';
import { totalBranches } from './report.js';

/** A branch in words: `outcome fail`, `choice approve`, `loop qa.fail exhausted`, `when false`. */
export function sayBranch(branch: CoverageBranch): string {
  if (branch.kind === 'loop') return `loop ${branch.counter ?? branch.unit} ${branch.arm}`;
  return `${branch.kind} ${branch.arm}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `branches 15 of 22 taken (68.1%)`. */
export function sayBranchTotals(count: { covered: number; total: number; percent: number }): string {
  return `branches ${count.covered} of ${count.total} taken (${count.percent}%)`;
}

/**
 * One playbook's coverage as `test --coverage` prints it: a heading with the totals, then a table of
 * every branch with its line and hits, the ones no test takes marked.
 */
export function coverageTable(report: CoverageReport): string {
  const { lines } = report.totals;
  const heading =
    `${report.playbook}: ${plural(report.tests, 'test')}, ` +
    `steps ${lines.covered} of ${lines.total} reached, ` +
    sayBranchTotals({ ...report.totals.branches, percent: report.totals.percent });
  const rows = report.branches.map((b) => [String(b.line), b.unit, sayBranch(b), String(b.hits)]);
  const unreached = report.lines.filter((l) => l.hits === 0).map((l) => `${l.unit} (line ${l.line})`);
  const header = ['line', 'step', 'branch', 'hits'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const format = (row: string[], mark = '') =>
    `  ${row[0]!.padStart(widths[0]!)}  ${row[1]!.padEnd(widths[1]!)}  ${row[2]!.padEnd(widths[2]!)}  ${row[3]!.padStart(widths[3]!)}${mark}`.trimEnd();
  const table = [
    format(header),
    ...rows.map((row, i) => format(row, report.branches[i]!.hits === 0 ? '  not taken' : '')),
  ];
  const never = unreached.length ? [`  never reached: ${unreached.join(', ')}`] : [];
  return [heading, ...(rows.length ? table : []), ...never].join('\n');
}

/** The last line over every playbook: `coverage: branches 40 of 61 taken (65.5%) in 5 playbooks`. */
export function coverageSummary(reports: readonly CoverageReport[]): string {
  return `coverage: ${sayBranchTotals(totalBranches(reports))} in ${plural(reports.length, 'playbook')}`;
}
