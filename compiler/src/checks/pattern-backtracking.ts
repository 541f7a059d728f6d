import type { Check } from '../check-context.js';
import { shown } from '../diagnostic.js';
import { catastrophicPart } from './backtracking.js';

/**
 * PB108: an input's `pattern` that can backtrack catastrophically — take exponential time on a value that
 * almost matches (issue 27: one froze `serve` for 6 s on 28 characters, doubling with each). Reported on
 * the offending part of the pattern, with why (`backtracking.ts` says which shapes).
 */
export const checkPatternBacktracking: Check = (context) => {
  for (const input of context.model.inputs) {
    if (!input.pattern) continue;
    const part = catastrophicPart(input.pattern.value);
    if (!part) continue;
    const text = input.pattern.value.slice(part.start, part.end);
    context.report(
      'PB108',
      context.rangeIn(input.pattern, part.start, part.end),
      `pattern of input "${shown(input.name)}" can take exponential time on a value that almost matches: "${shown(text, 80)}": ${part.why}; ${part.fix}`,
    );
  }
};
