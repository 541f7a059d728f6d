import type { Ir, IrOutcome } from '@kairoku-playbook/compiler';
import { checkIr } from '@kairoku-playbook/compiler';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyScenario } from '../../src/backends/scenario.js';
import {
  advance,
  createRun,
  emptyVec,
  vecFromArray,
  vecGet,
  vecPush,
  vecSet,
  vecSlice,
  vecToArray,
} from '@kairoku-playbook/machine';
import type { PVec } from '@kairoku-playbook/machine';
import { runSim } from '../../src/testing/sim-run.js';
import { compile } from '../helpers.js';

describe('the persistent vector', () => {
  it('behaves like an array that is copied on every write, without copying it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer(), { maxLength: 2000 }),
        fc.array(fc.tuple(fc.nat(), fc.integer())),
        (items, writes) => {
          let vec = vecFromArray(items);
          const model = items.slice();
          const before = vec;
          for (const [at, value] of writes) {
            if (!model.length) break;
            vec = vecSet(vec, at % model.length, value);
            model[at % model.length] = value;
          }
          expect(vecToArray(vec)).toEqual(model);
          expect(vecToArray(before)).toEqual(items);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('grows by push across levels and slices from an index', () => {
    let vec = emptyVec<number>();
    const versions = [];
    for (let i = 0; i < 40_000; i++) {
      vec = vecPush(vec, i);
      if (i % 10_000 === 0) versions.push(vec);
    }
    expect(vec.size).toBe(40_000);
    expect(vecGet(vec, 39_999)).toBe(39_999);
    expect(vecGet(vec, 1024)).toBe(1024);
    expect(vecToArray(vec)).toEqual([...Array(40_000).keys()]);
    expect(versions.map((v) => v.size)).toEqual([1, 10_001, 20_001, 30_001]);
    expect(vecSlice(vec, 39_998)).toEqual([39_998, 39_999]);
    expect(() => vecGet(vec, 40_000)).toThrow(RangeError);
  });
});

/**
 * Big IRs are built from one compiled step, so the test measures the runtime, not the compiler
 * (which a 10,000-step playbook keeps busy for seconds).
 */
const ONE = compile('version: 1\nid: big\ntitle: Big\nsteps:\n  s: { role: implementer, prompt: Step }\n');

function withSteps(steps: { name: string; needs: number[]; outcomes?: IrOutcome[] }[]): Ir {
  const template = ONE.steps[0]!;
  return {
    ...ONE,
    steps: steps.map((s, index) => ({
      ...template,
      index,
      name: s.name,
      needs: s.needs,
      outcomes: s.outcomes ?? template.outcomes,
    })),
  };
}

/** A chain of `n` agent steps, each needing the one before; the last loops back three steps, twice. */
function chain(n: number): Ir {
  const steps = Array.from({ length: n }, (_, i) => ({ name: `s${i}`, needs: i ? [i - 1] : [] }));
  const redo: IrOutcome = {
    name: 'redo',
    label: null,
    comment: 'none',
    at: null,
    transition: {
      kind: 'loop',
      target: n - 3,
      max: 2,
      feedback: null,
      exhausted: 'fail',
      reset: [[n - 3, n - 1]],
      counter: `s${n - 1}.redo`,
    },
  };
  steps[n - 1] = { ...steps[n - 1]!, outcomes: [ONE.steps[0]!.outcomes[0]!, redo] } as (typeof steps)[number];
  return withSteps(steps);
}

/** `n` agent steps that need one root and are needed by one sink. */
function fan(n: number): Ir {
  return withSteps([
    { name: 'root', needs: [] },
    ...Array.from({ length: n }, (_, i) => ({ name: `w${i}`, needs: [0] })),
    { name: 'sink', needs: Array.from({ length: n }, (_, i) => i + 1) },
  ]);
}

function simulate(ir: Ir) {
  const scenario = emptyScenario();
  const last = ir.steps[ir.steps.length - 1]!.name;
  if (last !== 'sink') scenario.steps[last] = [{ outcome: 'redo' }, { outcome: 'redo' }, { outcome: 'done' }];
  const result = runSim({ ir, scenario, id: 'big', clock: () => 0 });
  if (!result.ok) throw new Error(result.inputErrors.join('; '));
  return result.state;
}

/** Tree nodes of `after` that `before` does not share: what a transition had to copy. */
function copiedNodes(before: PVec<unknown>, after: PVec<unknown>): number {
  const walk = (a: unknown, b: unknown, level: number): number => {
    if (a === b) return 0;
    if (level === 0 || !Array.isArray(a)) return 1;
    const old = Array.isArray(b) ? b : [];
    return 1 + a.reduce((n: number, child, i) => n + walk(child, old[i], level - 5), 0);
  };
  return walk(after.root, before.root, after.shift);
}

/**
 * Timing ratios live in `runtime/bench/scale.mjs`; here the same property is checked without a clock:
 * what one transition copies, and that big runs finish.
 */
describe('scale: work per transition does not grow with the run', () => {
  it('builds IRs that pass the IR schema', () => {
    expect(checkIr(JSON.parse(JSON.stringify(chain(10)))).ok).toBe(true);
    expect(checkIr(JSON.parse(JSON.stringify(fan(10)))).ok).toBe(true);
  });

  it('runs a 10,000-step chain with a loop near its end', () => {
    const state = simulate(chain(10_000));
    expect(state.status).toBe('completed');
    expect(state.loops).toEqual({ 's9999.redo': 2 });
    expect(state.history.size).toBeGreaterThan(30_000);
  });

  it('runs a 10,000-wide fan-out and fan-in', () => {
    const state = simulate(fan(10_000));
    expect(state.status).toBe('completed');
    expect(state.settled).toBe(10_002);
  });

  it('copies a few tree nodes per transition, whatever the size of the run', () => {
    const copies = (n: number) => {
      const ir = chain(n);
      let state = createRun(ir, { id: 'big', inputs: {}, now: 0 });
      state = advance(state, { type: 'start' }, 0).state;
      state = advance(state, { type: 'start-step', step: 's0' }, 0).state;
      state = advance(state, { type: 'report', step: 's0', outcome: 'done' }, 0).state;
      const before = state;
      // Completing s0 changes two steps (s0, and s1 which becomes ready) and adds history.
      const after = advance(state, { type: 'complete-step', step: 's0', outcome: 'done' }, 0).state;
      expect(vecGet(after.steps, 1).status).toBe('ready');
      return {
        steps: copiedNodes(before.steps, after.steps),
        history: copiedNodes(before.history, after.history),
      };
    };
    const small = copies(100);
    const large = copies(30_000);
    // Two changed steps: their leaves and the paths above them (a tree of depth 2 at 100, 3 at 30,000).
    expect(small.steps).toBeLessThanOrEqual(2 * 2);
    expect(large.steps).toBeLessThanOrEqual(2 * 3 + 1);
    expect(large.history).toBeLessThanOrEqual(small.history + 2);
  });
});
