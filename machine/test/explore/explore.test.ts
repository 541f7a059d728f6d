import { readFileSync, readdirSync } from 'node:fs';
import { compilePlaybook } from '@kairoku-playbook/compiler';
import type { Diagnostic, Ir } from '@kairoku-playbook/compiler';
import { describe, expect, it } from 'vitest';
import { explore } from '../../src/explore/explore.js';
import type { Exploration } from '../../src/explore/explore.js';
import { applyExploreSuppressions, exploreDiagnostics } from '../../src/explore/diagnostics.js';
import { pathLines } from '../../src/explore/describe.js';
import { compile, repo } from '../helpers.js';

const head = 'version: 1\nid: t\ntitle: Test\n';

function explored(text: string, maxStates?: number) {
  const ir = compile(text, 't.yml');
  const exploration = explore(ir, maxStates === undefined ? {} : { maxStates });
  const diagnostics = exploreDiagnostics(exploration, { file: 't.yml', text });
  return { ir, exploration, diagnostics, text };
}

function attempts(exploration: Exploration): Record<string, number> {
  return Object.fromEntries(exploration.units.map((u) => [u.name, u.maxAttempts]));
}

/** What a diagnostic's range covers in the text. */
function at(text: string, d: Diagnostic): string {
  return text.slice(d.range.start, d.range.end);
}

const samples = readdirSync(`${repo}playbooks`)
  .filter((name) => /\.ya?ml$/.test(name) && !/\.test\.ya?ml$/.test(name))
  .sort();

describe('exploring the samples', () => {
  // refactor.yml has ~45,000 states (three reviewers in parallel, five loops): a few seconds.
  it.each(samples)(
    '%s explores to completion within the budget: every run ends',
    { timeout: 120_000 },
    (name) => {
      const text = readFileSync(`${repo}playbooks/${name}`, 'utf8');
      const { ir } = compilePlaybook(`playbooks/${name}`, text);
      expect(ir).toBeDefined();
      const exploration = explore(ir!);
      expect(exploration.complete).toBe(true);
      expect(exploration.allEnd).toBe(true);
      expect(exploration.stuck).toEqual([]);
      expect(exploration.cycle).toBeNull();
      expect(exploration.endings).toContain('completed');
      expect(exploration.notes).toEqual([]);
      expect(exploreDiagnostics(exploration, { file: `playbooks/${name}`, text })).toEqual([]);
      for (const unit of exploration.units) expect(unit.started, unit.name).toBe(true);
    },
  );

  it('pr.yml: the bounds of SPEC §3.2, over the inputs that decide the optional review', () => {
    const exploration = explore(compile(readFileSync(`${repo}playbooks/pr.yml`, 'utf8'), 'playbooks/pr.yml'));
    // implement runs once, then once per loop back to it: qa.fail (3), review.changes_requested (3,
    // max_loops) and ship.revise (2) all target it and none resets another. review runs in the rounds
    // qa lets through: 1 + 3 + 2; ship opens at most 1 + 2 times.
    expect(attempts(exploration)).toEqual({
      plan: 1,
      implement: 9,
      qa: 9,
      review: 6,
      ship: 3,
      'after.summarize': 1,
    });
    expect(exploration.worstTurns).toBe(1 + 9 + 6 + 1);
    expect(exploration.endings).toEqual(['completed', 'failed']);
    // strict × reviewers (1, 2, 3) is six combinations, but only "is the review on" tells them apart.
    expect(exploration.model.readInputs).toEqual(['strict', 'reviewers']);
    expect(exploration.model.inputs).toHaveLength(2);
    // A regression guard on the size of the search (the bench script times it).
    expect(exploration.states).toBe(238);
  });

  it('bugfix.yml and release.yml: retries multiply the rounds of their step', () => {
    const bugfix = explore(compile(readFileSync(`${repo}playbooks/bugfix.yml`, 'utf8')));
    // fix: retries 1, looped back to by verify.fail (max 4) and land.revise (max 2): 7 rounds × 2.
    expect(attempts(bugfix)).toMatchObject({ reproduce: 1, fix: 14, verify: 7, land: 3 });
    expect(bugfix.worstTurns).toBe(1 + 14 + 1);
    const release = explore(compile(readFileSync(`${repo}playbooks/release.yml`, 'utf8')));
    // test: `fail: retry` with retries 1, in each of the 1 + 3 rounds approve-release.revise allows;
    // announce.hold loops to itself 5 times.
    expect(attempts(release)).toMatchObject({ changelog: 4, test: 8, announce: 6, post: 1 });
  });
});

describe('attempt bounds', () => {
  it('a loop with max 3 on a step with retries 1: (3 + 1) rounds × (1 + 1) attempts', () => {
    const { exploration } = explored(`${head}steps:
  a: { role: implementer, prompt: A, retries: 1 }
  b:
    needs: a
    run: npm test
    outcomes:
      pass: next
      fail: { loop: a, max: 3 }
`);
    expect(attempts(exploration)).toEqual({ a: 8, b: 4 });
    expect(exploration.worstTurns).toBe(8);
    expect(exploration.allEnd).toBe(true);
  });

  it('nested loops: the outer loop sets the inner counter back to 0, so the rounds multiply', () => {
    const { exploration } = explored(`${head}steps:
  a: { role: implementer, prompt: A }
  b: { needs: a, role: implementer, prompt: B }
  c:
    needs: b
    run: npm test
    outcomes:
      pass: next
      fail: { loop: b, max: 2 }
  d:
    needs: c
    gate:
      choices:
        approve: next
        redo: { then: { loop: a, max: 2 } }
`);
    // d.redo (target a) resets c.fail (target b, a strict descendant of a): 3 rounds of a, each with
    // up to 3 rounds of b. Without the reset b would get 1 + 2 + 2 = 5.
    expect(attempts(exploration)).toEqual({ a: 3, b: 9, c: 9, d: 3 });
    expect(exploration.worstTurns).toBe(3 + 9);
  });

  it('loops aimed at the same step add up: no counter resets another', () => {
    const { exploration } = explored(`${head}steps:
  a: { role: implementer, prompt: A }
  b:
    needs: a
    run: npm test
    outcomes:
      pass: next
      fail: { loop: a, max: 2 }
  c:
    needs: b
    role: reviewer
    prompt: C
    outcomes:
      ok: next
      again: { loop: a, max: 3 }
`);
    expect(attempts(exploration)).toEqual({ a: 6, b: 6, c: 4 });
  });

  it('counts an attempt stopped in flight by a loop fired beside it', () => {
    // After a, u and x start together. x can loop back to a while u is running: u's attempt is
    // stopped, and u runs again in the next round. Run one step at a time, u would get 1 attempt:
    // its only outcome ends the run.
    const { exploration } = explored(`${head}steps:
  a: { role: implementer, prompt: A }
  u:
    needs: a
    role: implementer
    prompt: U
    outcomes: { done: end }
  x:
    needs: a
    role: implementer
    prompt: X
    outcomes:
      ok: next
      again: { loop: a, max: 1 }
`);
    expect(attempts(exploration)).toEqual({ a: 2, u: 2, x: 2 });
    expect(exploration.worstTurns).toBe(6);
    expect(pathLines(exploration, exploration.worstPath)).toEqual([
      'the run starts',
      'a reports done',
      'x reports again: loop back to a (x.again 1 of 1), u is stopped',
      'a reports done',
      'u reports done: x is stopped, the run completes',
    ]);
  });

  it('when a condition reads an attempt count, starting is a choice and attempts are state', () => {
    const { exploration, diagnostics } = explored(`${head}steps:
  a: { role: implementer, prompt: A, retries: 2 }
  b: { needs: a, role: implementer, prompt: B, when: steps.a.attempt > 2 }
  c: { needs: b, role: implementer, prompt: C }
`);
    expect(exploration.model.eager).toBe(false);
    expect(attempts(exploration)).toEqual({ a: 3, b: 1, c: 1 });
    expect(exploration.units.find((u) => u.name === 'b')!.skipped).toBe(true);
    expect(diagnostics).toEqual([]);
    expect(pathLines(exploration, exploration.worstPath).slice(0, 4)).toEqual([
      'the run starts',
      'a starts',
      'a loses its agent: a retries (retry 1 of 2)',
      'a starts',
    ]);
  });

  it('counts auto after-tasks in the turns, and not manual ones', () => {
    const { exploration } = explored(`${head}steps:
  a: { role: implementer, prompt: A }
after:
  notes: { role: researcher, prompt: Notes, retries: 2, on: [completed, failed] }
  by-hand: { role: researcher, prompt: Later, trigger: manual }
`);
    expect(attempts(exploration)).toEqual({ a: 1, 'after.notes': 3, 'after.by-hand': 0 });
    expect(exploration.units.find((u) => u.name === 'after.by-hand')!.manual).toBe(true);
    expect(exploration.worstTurns).toBe(4);
  });
});

describe('PB310: a step that can never run', () => {
  it('a step after a step whose outcomes all end or fail the run; its dependents are named, not reported', () => {
    const { diagnostics, text } = explored(`${head}steps:
  a:
    role: implementer
    prompt: A
    outcomes: { done: end, failed: fail }
  b: { needs: a, role: implementer, prompt: B }
  c: { needs: b, role: implementer, prompt: C }
`);
    expect(diagnostics).toHaveLength(1);
    const [d] = diagnostics;
    expect(d).toMatchObject({ code: 'PB310', severity: 'warning', file: 't.yml' });
    expect(at(text, d!)).toBe('b');
    expect(d!.message).toBe(
      'step "b" can never run: no run goes on past "a" (it never completes, or completing ends the run); nor can what needs it: c',
    );
    expect(d!.related!.map((r) => at(text, { ...d!, range: r.range }))).toEqual(['a']);
  });

  it('a step after a step that has no outcome at all (it can only be lost)', () => {
    const { diagnostics, exploration } = explored(`${head}steps:
  a: { role: implementer, prompt: A, outcomes: {} }
  b: { needs: a, role: implementer, prompt: B }
`);
    expect(diagnostics.map((d) => d.message)).toEqual([
      'step "b" can never run: no run goes on past "a" (it never completes, or completing ends the run)',
    ]);
    expect(exploration.endings).toEqual(['failed']);
  });

  it('skipping does not spread: a step after an always-skipped step still runs', () => {
    const { diagnostics, exploration, text } = explored(`${head}steps:
  a: { role: implementer, prompt: A, when: false }
  b: { needs: a, role: implementer, prompt: B }
`);
    expect(attempts(exploration)).toEqual({ a: 0, b: 1 });
    expect(diagnostics.map((d) => [d.code, at(text, d), d.message])).toEqual([
      ['PB310', 'a', 'step "a" can never run: its `when` condition is false in every run that reaches it'],
    ]);
  });

  it('decides `when` over the input values its conditions tell apart', () => {
    const { diagnostics, exploration, text } = explored(`${head}inputs:
  n: { type: integer, default: 1, min: 1, max: 3 }
  mode: { type: 'enum(fast, slow)', default: fast }
  label: { type: string, required: false }
steps:
  a: { role: implementer, prompt: A, when: inputs.n > 2 }
  b: { needs: a, role: implementer, prompt: B, when: "inputs.n > 1 && inputs.mode == 'slow'" }
  c: { needs: b, role: implementer, prompt: C, when: inputs.n > 5 }
  d: { needs: c, role: implementer, prompt: D, when: "startsWith(default(inputs.label, ''), 'x-')" }
`);
    // n ∈ {1, 2, 3} (0..6 from the literals, within min..max), mode both ways, label absent, '' or 'x-'.
    expect(attempts(exploration)).toEqual({ a: 1, b: 1, c: 0, d: 1 });
    expect(diagnostics.map((d) => at(text, d))).toEqual(['c']);
  });

  it('decides `when` over the outputs it reads, and the outcomes', () => {
    const { diagnostics, exploration } = explored(`${head}steps:
  a:
    role: implementer
    prompt: A
    outputs: { risk: 'enum(low, high)', n: integer, ok: boolean? }
    outcomes: { done: next, unsure: next }
  high: { needs: a, role: implementer, prompt: B, when: "steps.a.outputs.risk == 'high'" }
  many: { needs: a, role: implementer, prompt: B, when: steps.a.outputs.n >= 7 }
  ok: { needs: a, role: implementer, prompt: B, when: steps.a.outputs.ok == true }
  unsure: { needs: a, role: implementer, prompt: B, when: "steps.a.outcome == 'unsure'" }
`);
    expect(diagnostics).toEqual([]);
    expect(exploration.units.every((u) => u.started && u.skipped === (u.name !== 'a'))).toBe(true);
  });

  it('an after-task that waits for an ending no run has', () => {
    const { diagnostics, text } = explored(`${head}steps:
  a: { role: implementer, prompt: A, outcomes: { done: end } }
after:
  "on-failure": { role: researcher, prompt: Why, on: [failed] }
  "on-success": { role: researcher, prompt: Notes, on: [completed] }
`);
    // (a can still fail: its agent may be lost, and it has no retries)
    expect(diagnostics).toEqual([]);
    const never = explored(`${head}steps:
  a: { role: implementer, prompt: A, outcomes: {} }
after:
  "on-success": { role: researcher, prompt: Notes, on: [completed] }
`);
    expect(never.diagnostics.map((d) => [at(never.text, d), d.message])).toEqual([
      ['"on-success"', 'after-task "on-success" can never run: no run ends completed'],
    ]);
    expect(text).toContain('"on-failure"');
  });

  it('is silenced by `# playbook-ignore PB310`, which then silences something', () => {
    const text = `${head}steps:
  a: { role: implementer, prompt: A, outcomes: { done: end } }
  # playbook-ignore PB310 kept for the next release
  b: { needs: a, role: implementer, prompt: B }
`;
    const { diagnostics } = explored(text);
    expect(diagnostics).toHaveLength(1);
    const suppressed = applyExploreSuppressions(text, diagnostics);
    expect(suppressed.diagnostics).toEqual([]);
    expect(suppressed.used.map((r) => text.slice(r.start, r.end))).toEqual(['PB310']);
  });

  it('stops at the time budget too, with lower bounds', () => {
    const ir = compile(readFileSync(`${repo}playbooks/pr.yml`, 'utf8'));
    let now = 0;
    const exploration = explore(ir, { maxMillis: 1, clock: () => (now += 1) });
    expect(exploration.complete).toBe(false);
    expect(exploration.outOfTime).toBe(true);
    expect(exploration.states).toBeLessThan(238);
    expect(exploration.units.find((u) => u.name === 'implement')!.maxAttempts).toBeLessThanOrEqual(9);
  });

  it('is not reported when the budget runs out: the search is then partial', () => {
    const { exploration, diagnostics } = explored(
      `${head}steps:
  a: { role: implementer, prompt: A, retries: 3 }
  b: { needs: a, role: implementer, prompt: B, retries: 3 }
  c: { needs: b, role: implementer, prompt: C, retries: 3 }
`,
      3,
    );
    expect(exploration.complete).toBe(false);
    expect(exploration.states).toBe(3);
    expect(exploration.allEnd).toBe(false);
    expect(diagnostics).toEqual([]);
  });
});

/*
 * PB311 under the current semantics: no playbook the compiler accepts can reach a stuck state.
 *
 * Invariant I, for a run that is `running` (not paused), after every transition:
 *   (a) a pending or ready step's `unsettledNeeds` is the number of its needs not completed or skipped;
 *   (b) no step is pending with `unsettledNeeds` 0;
 *   (c) no step is failed, lost or canceled (`failStep` fails the run; `canceled` comes only from
 *       `stopAll`, which ends it).
 * I ⇒ not stuck. Say no step is ready, running, reported or waiting. If all steps are settled,
 * `settleReadiness` has completed the run. Otherwise, by (c), some step is pending; take the pending
 * step P first in topological order. Its needs come before it, so none is pending; none is ready or
 * active by assumption, none failed/lost/canceled by (c): all are settled, so by (a) P's count is 0,
 * against (b).
 * The transitions keep I: `start` unblocks the roots (count 0 from `createRun`, which counts
 * `needs.length`); completing or skipping a step decrements exactly its dependents (`settle`), and
 * every pending dependent that reaches 0 is unblocked, so becomes ready or is skipped (which settles
 * it in turn) before the transition ends; retry and lost make the step ready at once; a loop resets
 * its region (the target and every step that transitively needs it, so every step with a need in it)
 * and recounts the region's needs from the statuses, then unblocks the members whose count is 0;
 * `fail` and `end` end the run; pause defers and resume re-unblocks what it deferred (and pause is a
 * state with an open action: resume).
 * Needing oneself (PB208) or a cycle (PB300) would break (a)'s start: the count can never reach 0. The
 * compiler refuses both, so the detector is tested on an IR built by hand.
 */
describe('PB311: a reachable state where the run is stuck', () => {
  const text = `${head}steps:
  a: { role: implementer, prompt: A }
  b: { needs: a, role: implementer, prompt: B }
  c: { needs: a, role: implementer, prompt: C }
`;
  /** b needs itself: the compiler says PB208, so the IR is edited by hand. */
  function stuckIr(): Ir {
    const ir = structuredClone(compile(text, 't.yml'));
    const b = ir.steps.find((s) => s.name === 'b')!;
    b.needs = [...b.needs, b.index];
    return ir;
  }

  it('finds the stuck state, with the shortest path to it', () => {
    const exploration = explore(stuckIr());
    expect(exploration.stuck).toHaveLength(1);
    const [stuck] = exploration.stuck;
    expect(exploration.model.nameOf(stuck!.blocked)).toBe('b');
    expect(stuck!.waitingFor.map((u) => exploration.model.nameOf(u))).toEqual(['b']);
    expect(pathLines(exploration, stuck!.path)).toEqual([
      'the run starts',
      'a reports done',
      'c reports done',
    ]);
    expect(exploration.allEnd).toBe(false);
    // b can never run either, since it never becomes ready
    expect(exploration.units.find((u) => u.name === 'b')!.started).toBe(false);
  });

  it('reports it as an error on the waiting step, the path in the message and as related locations', () => {
    const exploration = explore(stuckIr());
    const diagnostics = exploreDiagnostics(exploration, { file: 't.yml', text });
    const stuck = diagnostics.filter((d) => d.code === 'PB311');
    expect(stuck).toHaveLength(1);
    const [d] = stuck;
    expect(d!.severity).toBe('error');
    expect(at(text, d!)).toBe('b');
    expect(d!.message).toBe(
      'a run can get stuck here: after the run starts → a reports done → c reports done, no step is ' +
        'ready, running or waiting and the run has not ended; "b" waits for "b", which will never complete',
    );
    expect(d!.related!.map((r) => [text.slice(r.range.start, r.range.end), r.message])).toEqual([
      ['a', '2. a reports done'],
      ['c', '3. c reports done'],
    ]);
  });
});

describe('a run that never ends', () => {
  it('is found as a cycle of states, and the bounds are then unbounded', () => {
    const ir = structuredClone(
      compile(`${head}steps:
  a: { role: implementer, prompt: A }
  b:
    needs: a
    role: implementer
    prompt: B
    outcomes: { done: next, redo: { loop: b, max: 1 } }
  c:
    needs: b
    role: implementer
    prompt: C
    outcomes: { done: next, again: { loop: a, max: 1 } }
`),
    );
    // By hand: c.again counts on b.redo's counter, which c.again itself sets back to 0 (its target a
    // is above b), so it is never exhausted. The compiler names every counter STEP.OUTCOME.
    const again = ir.steps.find((s) => s.name === 'c')!.outcomes.find((o) => o.name === 'again')!;
    if (again.transition.kind !== 'loop') throw new Error('expected a loop');
    again.transition.counter = 'b.redo';
    const exploration = explore(ir);
    expect(exploration.complete).toBe(true);
    expect(exploration.cycle).not.toBeNull();
    expect(exploration.allEnd).toBe(false);
    expect(exploration.worstTurns).toBe(Infinity);
    expect(exploration.units.find((u) => u.name === 'a')!.maxAttempts).toBe(Infinity);
    expect(pathLines(exploration, exploration.cycle!).at(-1)).toBe(
      'c reports again: loop back to a (b.redo 1 of 1)',
    );
  });
});

describe('diagnostic ranges', () => {
  it('covers a quoted key with its quotes', () => {
    const text = `${head}steps:
  a: { role: implementer, prompt: A, outcomes: { done: end } }
  'b': { needs: a, role: implementer, prompt: B }
  "c": { needs: a, role: implementer, prompt: C }
`;
    const { diagnostics } = explored(text);
    expect(diagnostics.map((d) => at(text, d))).toEqual(["'b'", '"c"']);
  });
});
