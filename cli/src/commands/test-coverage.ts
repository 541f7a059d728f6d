import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Ir } from '@kairoku-playbook/compiler';
import {
  coverageFileOf,
  coverageReport,
  coverageSummary,
  coverageTable,
  mergeHits,
  toLcov,
  totalBranches,
} from '@kairoku-playbook/machine';
import type { CoverageFile, CoverageHits, CoverageReport } from '@kairoku-playbook/machine';
import { displayPath } from '../discover.js';
import { UsageError, writeUserFile } from '../io.js';
import type { CommandIo } from '../io.js';

/** Where `test --coverage` writes lcov when `--coverage-lcov` does not say (relative to the folder it runs in). */
export const DEFAULT_LCOV = 'coverage/playbooks.lcov';

/** The hits of every test of each playbook, merged: what `test --coverage` collects while tests run. */
export class CoverageCollector {
  private readonly playbooks = new Map<string, { ir: Ir; hits: CoverageHits; tests: number }>();
  /** each test's hits and the playbook's they are merged into once it has run */
  private readonly merges: [CoverageHits, CoverageHits][] = [];

  /** The hits one test of `playbook` (its path) counts into: give them to `runPlaybookTest`. */
  hitsFor(playbook: string, ir: Ir): CoverageHits {
    const entry = this.playbooks.get(playbook) ?? { ir, hits: {}, tests: 0 };
    this.playbooks.set(playbook, entry);
    entry.tests++;
    const hits: CoverageHits = {};
    this.merges.push([entry.hits, hits]);
    return hits;
  }

  /** One report per playbook, in the order of their files, named as `cwd` shows them. */
  reports(cwd: string): CoverageReport[] {
    for (const [into, from] of this.merges.splice(0)) mergeHits(into, from);
    return [...this.playbooks]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([file, entry]) => coverageReport(entry.ir, displayPath(file, cwd), entry.hits, entry.tests));
  }

  /** The playbooks' paths beside their reports. */
  files(cwd: string): { path: string; report: CoverageReport; sha256: string }[] {
    const reports = this.reports(cwd);
    return [...this.playbooks.keys()].sort().map((path, i) => ({
      path,
      report: reports[i]!,
      sha256: this.playbooks.get(path)!.ir.source.sha256,
    }));
  }
}

export interface CoverageOptions {
  lcov: string;
  min: number | undefined;
  json: boolean;
}

/** `--min-coverage N`: a percentage from 0 to 100. */
export function parseMinCoverage(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100)
    throw new UsageError(`--min-coverage takes a percentage from 0 to 100, not "${value}"`);
  return n;
}

/**
 * Writes the lcov file and each playbook's `NAME.coverage.json`, prints the tables (text mode), and
 * holds the branches to `--min-coverage`: false when they fall below it (said on standard error).
 */
export function finishCoverage(
  collector: CoverageCollector,
  options: CoverageOptions,
  io: CommandIo,
): { reports: CoverageReport[]; lcov: string; met: boolean } {
  const files = collector.files(io.cwd);
  const reports = files.map((f) => f.report);
  const lcovPath = resolve(io.cwd, options.lcov);
  mkdirSync(dirname(lcovPath), { recursive: true });
  writeUserFile(lcovPath, toLcov(reports), { durable: false });
  for (const { path, report, sha256 } of files) {
    const file: CoverageFile = { coverage: 1, sha256, ...report };
    writeUserFile(coverageFileOf(path), `${JSON.stringify(file, null, 2)}\n`, { durable: false });
  }
  const lcov = displayPath(lcovPath, io.cwd);
  if (!options.json) {
    for (const report of reports) io.stdout(`\n${coverageTable(report)}\n`);
    io.stdout(`\n${coverageSummary(reports)}; lcov: ${lcov}\n`);
  }
  const total = totalBranches(reports);
  const met = options.min === undefined || total.percent >= options.min;
  if (!met)
    io.stderr(
      `coverage of branches ${total.percent}% (${total.covered} of ${total.total}) is below --min-coverage ${options.min}\n`,
    );
  return { reports, lcov, met };
}
