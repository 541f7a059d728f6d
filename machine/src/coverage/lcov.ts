import type { CoverageReport } from './report.js';

/**
 * Playbook coverage as lcov tracefile text (the format of `geninfo(1)`, read by `genhtml`, Codecov,
 * Coveralls and the editors' coverage gutters): one record per playbook, its file as `SF`, each step
 * and after-task a line (`DA`, hit when it started), each branch a `BRDA` at the line of its outcome,
 * choice, loop or `when`, in the block of its decision; `-` for a branch whose decision was never made
 * (its step never reached), as lcov writes a branch whose block never ran.
 */
export function toLcov(reports: readonly CoverageReport[], testName = 'playbooks'): string {
  const out: string[] = [];
  for (const report of reports) {
    out.push(`TN:${testName}`, `SF:${report.playbook}`);
    // A line holds one count: two steps on one line (a flow mapping) add up.
    const lines = new Map<number, number>();
    for (const line of report.lines) lines.set(line.line, (lines.get(line.line) ?? 0) + line.hits);
    const arms = new Map<number, number>();
    for (const branch of report.branches) {
      const arm = arms.get(branch.block) ?? 0;
      arms.set(branch.block, arm + 1);
      const taken = branch.reached ? String(branch.hits) : '-';
      out.push(`BRDA:${branch.line},${branch.block},${arm},${taken}`);
    }
    out.push(`BRF:${report.totals.branches.total}`, `BRH:${report.totals.branches.covered}`);
    for (const [line, hits] of [...lines].sort((a, b) => a[0] - b[0])) out.push(`DA:${line},${hits}`);
    out.push(`LF:${lines.size}`, `LH:${[...lines.values()].filter((h) => h > 0).length}`);
    out.push('end_of_record');
  }
  return out.length ? `${out.join('\n')}\n` : '';
}
