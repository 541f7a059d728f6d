import type { Ir, IrOutcome, IrRole } from '@kairoku-playbook/compiler';

/**
 * Facts computed once per IR and cached by identity: dependents, names → indices, outcomes by name,
 * loop counters by target. The transition function reads these instead of scanning the steps.
 */
export interface Derived {
  stepIndex: Map<string, number>;
  afterIndex: Map<string, number>;
  dependents: number[][];
  roots: number[];
  stepOutcomes: Map<string, IrOutcome>[];
  afterOutcomes: Map<string, IrOutcome>[];
  roles: Map<string, IrRole>;
  /** loop target index → the counters of the loops that target it */
  countersByTarget: Map<number, string[]>;
}

const cache = new WeakMap<Ir, Derived>();

export function derive(ir: Ir): Derived {
  const cached = cache.get(ir);
  if (cached) return cached;
  const dependents: number[][] = ir.steps.map(() => []);
  const roots: number[] = [];
  const countersByTarget = new Map<number, string[]>();
  for (const step of ir.steps) {
    if (step.needs.length === 0) roots.push(step.index);
    for (const need of step.needs) dependents[need]!.push(step.index);
    for (const outcome of step.outcomes) {
      const t = outcome.transition;
      if (t.kind !== 'loop') continue;
      const list = countersByTarget.get(t.target) ?? [];
      if (!list.includes(t.counter)) list.push(t.counter);
      countersByTarget.set(t.target, list);
    }
  }
  const derived: Derived = {
    stepIndex: new Map(ir.steps.map((s) => [s.name, s.index])),
    afterIndex: new Map(ir.after.map((a, i) => [a.name, i])),
    dependents,
    roots,
    stepOutcomes: ir.steps.map((s) => new Map(s.outcomes.map((o) => [o.name, o]))),
    afterOutcomes: ir.after.map((a) => new Map(a.outcomes.map((o) => [o.name, o]))),
    roles: new Map(ir.roles.map((r) => [r.name, r])),
    countersByTarget,
  };
  cache.set(ir, derived);
  return derived;
}
