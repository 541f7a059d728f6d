/**
 * Go to definition: from a step, input, role, output or outcome named anywhere (a `needs` item, a loop
 * target, `role:`, `base:`, an expression, a compared outcome string) to the key that declares it.
 * Implicit ones (default outcomes, check-step outputs, undeclared fixed-table roles) have no definition.
 */
import { occurrenceAt } from '../language/symbols.js';
import type { FileAnalysis, OffsetRange } from '../language/types.js';

export interface DefinitionResult {
  /** the name under the cursor */
  origin: OffsetRange;
  target: OffsetRange;
}

export function definitionAt(analysis: FileAnalysis, offset: number): DefinitionResult | undefined {
  const occurrence = occurrenceAt(analysis, offset);
  const target = occurrence?.symbol.declaration;
  return occurrence && target ? { origin: occurrence.range, target } : undefined;
}
