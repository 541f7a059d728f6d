/**
 * Document highlights: the declaration (written) and the references (read) of the name under the cursor.
 */
import { occurrenceAt } from '../language/symbols.js';
import type { FileAnalysis, OffsetRange } from '../language/types.js';

export interface Highlight {
  range: OffsetRange;
  kind: 'read' | 'write';
}

export function highlightsAt(analysis: FileAnalysis, offset: number): Highlight[] {
  const occurrence = occurrenceAt(analysis, offset);
  if (!occurrence) return [];
  const { symbol } = occurrence;
  const highlights: Highlight[] = symbol.references.map((range) => ({ range, kind: 'read' }));
  if (symbol.declaration) highlights.unshift({ range: symbol.declaration, kind: 'write' });
  return highlights;
}
