export { DEFAULT_MAX_STATES, explore } from './explore.js';
export type { Exploration, ExploreOptions, StuckRun, UnitBound } from './explore.js';
export { Model } from './model.js';
export type { Applied, Move } from './model.js';
export { describePath, pathLines, sayMove } from './describe.js';
export type { PathEvent } from './describe.js';
export { applyExploreSuppressions, exploreDiagnostics, keyAt } from './diagnostics.js';
export type { PlaybookSource } from './diagnostics.js';
