/**
 * A change of the worst case of a run in a diff (issue 26): the most agent turns and gate decisions,
 * from the explorer (the machine's, which the compiler does not depend on: `DiffOptions.bounds` is the
 * seam), widened when a run can now take more, with the loop maxima and retries that made it so.
 */
import type { Ir } from '../ir/ir.js';
import type { DiffBounds, PolicyChange } from './policy-change.js';

const MEASURES = [
  ['agentTurns', 'max agent turns'],
  ['gateDecisions', 'max gate decisions'],
] as const;

/** The `bound` changes between two versions; `found`: the other changes, to say why. */
export function boundChanges(
  base: Ir,
  head: Ir,
  bounds: (ir: Ir) => DiffBounds | undefined,
  found: readonly PolicyChange[],
): PolicyChange[] {
  const before = bounds(base);
  const after = bounds(head);
  if (!before || !after) return [];
  const causes = found.filter((c) => c.kind === 'loop-max' || c.kind === 'retries').map((c) => c.message);
  const changes: PolicyChange[] = [];
  for (const [measure, words] of MEASURES) {
    const b = before[measure];
    const h = after[measure];
    if (b === h) continue;
    const direction = h > b ? 'widened' : 'narrowed';
    const static_ = before.explored && after.explored ? '' : ' (a static bound)';
    const why = causes.length ? `: ${causes.join('; ')}` : '';
    changes.push({
      kind: 'bound',
      direction,
      subject: { type: 'playbook', name: head.id },
      message: `${words} ${b} → ${h}${static_}${why}`,
      before: b,
      after: h,
    });
  }
  return changes;
}
