/** What a playbook's graph says of its steps: the gates before each, the steps after one, what leads on. */
import type { Ir, IrTransition } from '../ir/ir.js';

/** Whether a transition goes on to the steps after (`next`, or a loop that does once exhausted). */
export function leadsOn(t: IrTransition): boolean {
  return t.kind === 'next' || (t.kind === 'loop' && t.exhausted === 'next');
}

/** For every step, the gates it comes after through needs (its gate ancestors). */
export function gatesBefore(ir: Ir): Map<number, Set<number>> {
  const result = new Map<number, Set<number>>();
  for (const step of ir.steps) {
    const gates = new Set<number>();
    for (const need of step.needs) {
      if (ir.steps[need]!.kind === 'gate') gates.add(need);
      for (const g of result.get(need) ?? []) gates.add(g);
    }
    result.set(step.index, gates);
  }
  return result;
}

/** The steps that transitively need a step. */
export function descendants(ir: Ir, index: number): number[] {
  const reached = new Set<number>([index]);
  for (const step of ir.steps) if (step.needs.some((n) => reached.has(n))) reached.add(step.index);
  reached.delete(index);
  return [...reached].sort((a, b) => a - b);
}
