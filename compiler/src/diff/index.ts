export { diffPlaybooks, toolChanges } from './policy-diff.js';
export { ungatedFromDiagnostics } from './ungated.js';
export type { DiffBounds } from './policy-change.js';
export type {
  ChangeKind,
  ChangeSubject,
  DiffOptions,
  Direction,
  PolicyChange,
  UngatedStep,
} from './policy-diff.js';
export { matchPlaybooks } from './match.js';
export type { Matching } from './match.js';
