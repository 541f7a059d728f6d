import type { Diagnostic } from '../diagnostic.js';
import type { Ir } from '../ir/ir.js';
import type { UngatedStep } from './policy-diff.js';

/**
 * The steps approval dominance (PB700) reports in one version of a playbook, for `diffPlaybooks`'s
 * `ungatedSteps`: each PB700 names its step or after-task by its key (the diagnostic's range), and its
 * related locations walk one ungated path: the first step's key, then for each next step the need that
 * names the step before it (the other hops — the command, a gate's `when` or choice — name no step).
 */
export function ungatedFromDiagnostics(
  text: string,
  ir: Ir,
  diagnostics: readonly Diagnostic[],
): UngatedStep[] {
  const steps = new Set(ir.steps.map((step) => step.name));
  const after = new Set(ir.after.map((task) => task.name));
  const nameAt = (range: { start: number; end: number }) =>
    text.slice(range.start, range.end).replace(/^(["'])(.*)\1$/s, '$2');
  const ungated: UngatedStep[] = [];
  for (const diagnostic of diagnostics) {
    if (diagnostic.code !== 'PB700') continue;
    const name = nameAt(diagnostic.range);
    const isAfter = diagnostic.message.startsWith('after-task') && after.has(name);
    if (!isAfter && !steps.has(name)) continue;
    // the first hop is the first step's key, each next one the need naming the step before: a name
    // comes twice in a row where a hop names the step the previous hop reached
    const path: string[] = [];
    for (const hop of diagnostic.related ?? []) {
      const step = nameAt(hop.range);
      if (steps.has(step) && path[path.length - 1] !== step) path.push(step);
    }
    if (path[path.length - 1] !== name) path.push(name);
    ungated.push({ step: name, ...(isAfter ? { after: true } : {}), path });
  }
  return ungated;
}
