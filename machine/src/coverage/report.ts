import type { Ir } from '@kairoku-playbook/compiler';
import { coverageModel } from './model.js';
import type { CoverageBranch, CoverageLine } from './model.js';
import type { CoverageHits } from './record.js';

/** A count of covered items out of all of them. */
export interface CoverageCount {
  covered: number;
  total: number;
}

/**
 * The coverage of one playbook over all of its tests: each line and branch with its hits, and the
 * totals. Plain JSON: `test --coverage --format json` prints it, and `NAME.coverage.json` beside the
 * playbook (`CoverageFile`) keeps it for the editor.
 */
export interface CoverageReport {
  /** the playbook's file, as the caller names it */
  playbook: string;
  /** the tests that ran (their hits are merged) */
  tests: number;
  lines: (CoverageLine & { hits: number })[];
  /** `reached`: the decision was made at all (its step reached; a `when` evaluated), lcov's block taken */
  branches: (CoverageBranch & { hits: number; reached: boolean })[];
  totals: { lines: CoverageCount; branches: CoverageCount; percent: number };
}

/** What `test --coverage` writes beside a playbook as `NAME.coverage.json` (for the editor). */
/** Where `test --coverage` writes a playbook's coverage and the editor reads it: `pr.yml` → `pr.coverage.json`. */
export function coverageFileOf(playbook: string): string {
  return `${playbook.replace(/\.ya?ml$/i, '')}.coverage.json`;
}

export interface CoverageFile extends CoverageReport {
  coverage: 1;
  /** the playbook's sha256 when the tests ran (the IR's `source.sha256`) */
  sha256: string;
}

/** The lines and branches of `ir` with the hits of `tests` tests. */
export function coverageReport(ir: Ir, playbook: string, hits: CoverageHits, tests: number): CoverageReport {
  const model = coverageModel(ir);
  const lines = model.lines.map((line) => ({ ...line, hits: hits[line.key] ?? 0 }));
  const reachedUnits = new Set(lines.filter((l) => l.hits > 0).map((l) => l.unit));
  const whenDecided = new Set(
    model.branches.filter((b) => b.kind === 'when' && (hits[b.key] ?? 0) > 0).map((b) => b.unit),
  );
  const branches = model.branches.map((branch) => ({
    ...branch,
    hits: hits[branch.key] ?? 0,
    reached: branch.kind === 'when' ? whenDecided.has(branch.unit) : reachedUnits.has(branch.unit),
  }));
  const count = (items: readonly { hits: number }[]): CoverageCount => ({
    covered: items.filter((i) => i.hits > 0).length,
    total: items.length,
  });
  const branchCount = count(branches);
  return {
    playbook,
    tests,
    lines,
    branches,
    totals: { lines: count(lines), branches: branchCount, percent: percentOf(branchCount) },
  };
}

/** Covered out of total in percent, one decimal; 100 when there is nothing to cover. */
export function percentOf(count: CoverageCount): number {
  return count.total === 0 ? 100 : Math.floor((count.covered / count.total) * 1000) / 10;
}

/** The branch totals of several playbooks together (what `--min-coverage` holds to its minimum). */
export function totalBranches(reports: readonly CoverageReport[]): CoverageCount & { percent: number } {
  const covered = reports.reduce((sum, r) => sum + r.totals.branches.covered, 0);
  const total = reports.reduce((sum, r) => sum + r.totals.branches.total, 0);
  return { covered, total, percent: percentOf({ covered, total }) };
}

/** The outcomes and choices no test takes (what the editor fades), as unit and arm. */
export function untakenOutcomes(report: Pick<CoverageReport, 'branches'>): CoverageBranch[] {
  return report.branches.filter((b) => (b.kind === 'outcome' || b.kind === 'choice') && b.hits === 0);
}
