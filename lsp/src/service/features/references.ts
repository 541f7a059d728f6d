/**
 * Find references: every place that names the step, input, role, output or outcome under the cursor,
 * the declaration included when asked.
 */
import { occurrenceAt, rangesOf } from '../language/symbols.js';
import type { FileAnalysis, OffsetRange } from '../language/types.js';

export function referencesAt(
  analysis: FileAnalysis,
  offset: number,
  includeDeclaration: boolean,
): OffsetRange[] {
  const occurrence = occurrenceAt(analysis, offset);
  return occurrence ? rangesOf(occurrence.symbol, includeDeclaration) : [];
}
