export { coverageKeys, coverageModel } from './model.js';
export type { CoverageBranch, CoverageBranchKind, CoverageLine, CoverageModel } from './model.js';
export { mergeHits, recordTransition } from './record.js';
export type { CoverageHits } from './record.js';
export { coverageFileOf, coverageReport, percentOf, totalBranches, untakenOutcomes } from './report.js';
export type { CoverageCount, CoverageFile, CoverageReport } from './report.js';
export { toLcov } from './lcov.js';
export { coverageSummary, coverageTable, sayBranch, sayBranchTotals } from './coverage-text.js';
