/**
 * Names for the compiler's analysis types that the compiler exports only as parts of `FileAnalysis`, and
 * the offset-based shapes the features return. Offsets are UTF-16 offsets into the document's text; they
 * become LSP positions only at the edge (service/convert.ts).
 */
import type { FileAnalysis, OffsetRange, SemanticModel } from '@kairoku-playbook/compiler';

export type TemplateInfo = SemanticModel['templates'][number];

/** A text edit in offsets. */
export interface OffsetEdit {
  range: OffsetRange;
  newText: string;
}

export type { FileAnalysis, OffsetRange, SemanticModel };

/** Whether `offset` lies in `range`, both ends included (a cursor right after a name is on it). */
export function touches(range: OffsetRange, offset: number): boolean {
  return range.start <= offset && offset <= range.end;
}

/** The valid names of steps, inputs, roles, outputs, outcomes and choices (SPEC §4, PB105). */
export const NAME_PATTERN = /^[a-z][a-z0-9_-]*$/;

/** The fixed role table, the check outputs and the step statuses are the compiler's (SPEC §3.3–3.6). */
export { CHECK_OUTPUTS, FIXED_ROLES, STEP_STATUSES } from '@kairoku-playbook/compiler';
