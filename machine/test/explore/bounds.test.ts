import { compilePlaybook } from '@kairoku-playbook/compiler';
import type { Ir } from '@kairoku-playbook/compiler';
import { describe, expect, it } from 'vitest';
import { staticBounds } from '../../src/explore/bounds.js';
import { sayBounds } from '../../src/explore/bounds-text.js';
import { explore } from '../../src/explore/explore.js';
import { Model } from '../../src/explore/model.js';
import type { RunState } from '../../src/core/state.js';
import { compile } from '../helpers.js';

/**
 * The bounds (bounds.ts) against brute force: every run of small generated playbooks enumerated one
 * by one, with no state merged, each run's agent turns, gate decisions, attempts per step, chain of
 * agent turns (each after the one it waited for) and wall clock counted along it.
 */

/** A small deterministic generator (mulberry32): the same playbooks on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A playbook of 2–4 steps: agents, checks and gates; loops back, retries, `when`, an after-task. */
export function generatePlaybook(seed: number): string {
  const rand = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const count = 2 + Math.floor(rand() * 3);
  const ancestors: Set<number>[] = [];
  const good: string[] = [];
  const lines = [
    'version: 1',
    `id: g${seed}`,
    'title: Generated',
    'inputs:',
    '  flag: { type: boolean, default: false }',
    'steps:',
  ];
  for (let i = 0; i < count; i++) {
    const needs = i === 0 ? [] : [...Array(i).keys()].filter(() => rand() < 0.5);
    if (i > 0 && needs.length === 0 && rand() < 0.7) needs.push(i - 1);
    const mine = new Set<number>([i]);
    for (const need of needs) for (const a of ancestors[need]!) mine.add(a);
    ancestors.push(mine);
    const target = pick([...mine]);
    const loop = rand() < 0.5 ? `{ loop: s${target}, max: ${1 + Math.floor(rand() * 2)} }` : null;
    const kind = pick(['agent', 'agent', 'check', 'gate'] as const);
    good.push(kind === 'agent' ? 'ok' : kind === 'check' ? 'pass' : 'approve');
    lines.push(`  s${i}:`);
    if (needs.length) lines.push(`    needs: [${needs.map((n) => `s${n}`).join(', ')}]`);
    if (needs.length && rand() < 0.3)
      lines.push(
        `    when: ${rand() < 0.5 ? 'inputs.flag' : `steps.s${needs[0]}.outcome == '${good[needs[0]!]}'`}`,
      );
    if (kind !== 'gate' && rand() < 0.3) lines.push('    retries: 1');
    if (kind === 'gate') {
      const redo = loop ? `, redo: { then: ${loop} }` : ', reject: fail';
      lines.push(`    gate: { choices: { approve: next${redo} } }`);
      continue;
    }
    if (kind === 'agent') lines.push(`    role: implementer`, `    prompt: P${i}`);
    else lines.push('    run: npm test');
    lines.push(`    timeout: ${i + 1}m`);
    const other = loop ?? pick(['end', 'fail']);
    lines.push(
      `    outcomes: { ${kind === 'agent' ? `ok: next, again: ${other}` : `pass: next, fail: ${other}`} }`,
    );
  }
  if (rand() < 0.4)
    lines.push('after:', '  wrap: { trigger: auto, on: [completed, failed], role: researcher, prompt: W }');
  return `${lines.join('\n')}\n`;
}

interface Counted {
  runs: number;
  agentTurns: number;
  gateDecisions: number;
  chainTurns: number;
  longestMs: number;
  attempts: number[];
}

/** Every run, one by one (depth first, no state merged). */
function bruteForce(ir: Ir, limit: number): Counted | undefined {
  const model = new Model(ir);
  const units = [...ir.steps, ...ir.after];
  const total: Counted = {
    runs: 0,
    agentTurns: 0,
    gateDecisions: 0,
    chainTurns: 0,
    longestMs: 0,
    attempts: units.map(() => 0),
  };
  // Per unit along the run: when its attempt began and when its last attempt ended, in turns and ms.
  interface Path {
    starts: number[];
    turns: number;
    gates: number;
    begun: number[][];
    ended: number[][];
  }
  let visited = 0;
  const walk = (state: RunState | undefined, moves: ReturnType<Model['moves']>, path: Path): boolean => {
    if (++visited > limit) return false;
    if (state && moves.length === 0) {
      total.runs++;
      total.agentTurns = Math.max(total.agentTurns, path.turns);
      total.gateDecisions = Math.max(total.gateDecisions, path.gates);
      for (const e of path.ended) {
        total.chainTurns = Math.max(total.chainTurns, e[0]!);
        total.longestMs = Math.max(total.longestMs, e[1]!);
      }
      path.starts.forEach((n, u) => (total.attempts[u] = Math.max(total.attempts[u]!, n)));
      return true;
    }
    for (const move of moves) {
      const applied = model.apply(state, move);
      if ('error' in applied) continue;
      const next: Path = {
        ...path,
        starts: [...path.starts],
        begun: path.begun.map((b) => [...b]),
        ended: path.ended.map((e) => [...e]),
      };
      let from = [0, 0];
      if (move.kind !== 'start') {
        const u = move.unit;
        const unit = units[u]!;
        const b = next.begun[u]!;
        // An attempt that reports or is lost took a turn (an agent) and at most its timeout.
        next.ended[u] =
          unit.kind === 'gate' ? [...b] : [b[0]! + (unit.kind === 'agent' ? 1 : 0), b[1]! + unit.timeoutMs];
        from = next.ended[u]!;
      }
      for (const s of applied.started) {
        const unit = units[s]!;
        // It waited for the move's unit and for its needs (after-tasks: for every step).
        const waited = s < ir.steps.length ? ir.steps[s]!.needs : [...ir.steps.keys()];
        const begin = [from[0]!, from[1]!];
        for (const need of waited)
          for (const k of [0, 1]) begin[k] = Math.max(begin[k]!, next.ended[need]![k]!);
        next.begun[s] = begin;
        next.starts[s]!++;
        if (unit.kind === 'agent') next.turns++;
        if (unit.kind === 'gate') next.gates++;
      }
      if (!walk(applied.state, model.moves(applied.state), next)) return false;
    }
    return true;
  };
  const zero = () => units.map(() => [0, 0]);
  const root = model.inputs.map((_, variant) => ({ kind: 'start' as const, variant }));
  const done = walk(undefined, root, {
    starts: units.map(() => 0),
    turns: 0,
    gates: 0,
    begun: zero(),
    ended: zero(),
  });
  return done ? total : undefined;
}

describe('bounds equal a brute-force count of every run', () => {
  it(
    'on 200 generated playbooks: loops, retries, gates that loop back, skipped steps',
    { timeout: 120_000 },
    () => {
      let compared = 0;
      for (let seed = 1; seed <= 200; seed++) {
        const text = generatePlaybook(seed);
        const { ir } = compilePlaybook(`g${seed}.yml`, text);
        if (!ir) continue;
        const counted = bruteForce(ir, 20_000);
        if (!counted) continue;
        compared++;
        const exploration = explore(ir);
        const { bounds } = exploration;
        const context = `seed ${seed}:\n${text}`;
        expect(exploration.complete, context).toBe(true);
        expect(bounds.explored, context).toBe(true);
        expect(bounds.agentTurns, context).toBe(counted.agentTurns);
        expect(bounds.gateDecisions, context).toBe(counted.gateDecisions);
        expect(
          bounds.units.map((u) => u.maxAttempts),
          context,
        ).toEqual(counted.attempts);
        // The chain and the clock are upper bounds: at least the brute force's, at most the total.
        expect(bounds.chainTurns, context).toBeGreaterThanOrEqual(counted.chainTurns);
        expect(bounds.chainTurns, context).toBeLessThanOrEqual(counted.agentTurns);
        expect(bounds.longestMs, context).toBeGreaterThanOrEqual(counted.longestMs);
        // The static bound (for a cut-off exploration) is sound: never below the exact count.
        const fallback = staticBounds(ir);
        expect(fallback.agentTurns, context).toBeGreaterThanOrEqual(counted.agentTurns);
        expect(fallback.gateDecisions, context).toBeGreaterThanOrEqual(counted.gateDecisions);
        fallback.units.forEach((u, i) =>
          expect(u.maxAttempts, `${context}${u.name}`).toBeGreaterThanOrEqual(counted.attempts[i]!),
        );
        expect(fallback.longestMs, context).toBeGreaterThanOrEqual(counted.longestMs);
      }
      expect(compared).toBeGreaterThanOrEqual(150);
    },
  );
});

describe('bounds', () => {
  it('three reviewers in parallel: 5 turns, but a chain of 3; a gate asked up to 3 times', () => {
    const ir = compile(`version: 1
id: t
title: T
steps:
  a: { role: implementer, prompt: A, timeout: 10m }
  r1: { needs: a, role: reviewer, prompt: R, timeout: 5m }
  r2: { needs: a, role: reviewer, prompt: R, timeout: 5m }
  r3: { needs: a, role: reviewer, prompt: R, timeout: 5m }
  ok:
    needs: [r1, r2, r3]
    gate: { choices: { approve: next, again: { then: { loop: ok, max: 2 } } } }
`);
    const { bounds } = explore(ir);
    expect(bounds).toMatchObject({ explored: true, agentTurns: 4, gateDecisions: 3 });
    // a, then the reviewers at once (one move starts all three), then one reviewer at most.
    expect(bounds.chainTurns).toBe(2);
    expect(bounds.longestMs).toBe(15 * 60_000);
    expect(bounds.units.find((u) => u.name === 'ok')).toMatchObject({
      maxAttempts: 3,
      why: 'loop ok.again (max 2)',
    });
  });

  it('a cut-off exploration gives the static bound, marked as such', () => {
    const ir = compile(`version: 1
id: t
title: T
steps:
  a: { role: implementer, prompt: A, retries: 1 }
  b:
    needs: a
    run: npm test
    outcomes: { pass: next, fail: { loop: a, max: 3 } }
`);
    const { bounds, complete } = explore(ir, { maxStates: 3 });
    expect(complete).toBe(false);
    expect(bounds).toMatchObject({ explored: false, agentTurns: 8, gateDecisions: 0 });
    expect(bounds.units.find((u) => u.name === 'a')).toMatchObject({
      maxAttempts: 8,
      why: 'retries: 1; loop b.fail (max 3)',
    });
  });
});

describe('bounds in words', () => {
  it('says a huge static bound with two digits, and says it is static', () => {
    const words = sayBounds({
      explored: false,
      agentTurns: 1.2370301923874332e99,
      gateDecisions: 3,
      chainTurns: 1.2370301923874332e99,
      longestMs: 90 * 60_000,
      perInput: [],
      units: [],
    });
    expect(words).toBe(
      'at most about 1.2 × 10^99 agent turns, 3 gate decisions, 1h 30m of agents and checks (a static bound: the exploration was cut off)',
    );
  });
});
