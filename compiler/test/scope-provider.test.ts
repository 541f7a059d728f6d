// The scope provider and the reference index: what binding resolved, and what an editor can ask.
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../src/compile.js';
import type { SemanticModel } from '../src/bind/semantic-model.js';
import { stepScope } from '../src/bind/scope-provider.js';

const PLAYBOOK = `version: 1
title: Test
inputs:
  task: { type: string, description: What to build }
  strict: { type: boolean, default: false }
  token: { type: string, secret: true, required: false }
roles:
  sec:
    base: reviewer
steps:
  plan:
    role: planner
    prompt: Plan \${{ inputs.task }}
    outputs:
      plan: string
      files: list<string>
  build:
    needs: [plan]
    role: implementer
    prompt: |
      Build \${{ steps.plan.outputs.plan }}
    outputs:
      branch: string
  qa:
    needs: [build]
    run: npm test
    env:
      TOKEN: \${{ inputs.token }}
  review:
    needs: [qa]
    role: sec
    when: inputs.strict
    prompt: Review \${{ steps.build.outputs.branch }} of \${{ steps.plan.outputs.files }}
    outcomes:
      approved: next
      changes: { loop: build, feedback: "\${{ report.summary }}" }
  ship:
    needs: [review]
    when: steps.review.outcome == 'approved'
    gate:
      title: Ship?
      choices:
        go: next
        revise: { comment: required, then: { loop: build, feedback: "\${{ gate.comment }}" } }
after:
  notify:
    role: planner
    prompt: Tell them \${{ run.status }}
`;

function semanticOf(text: string): SemanticModel {
  const analysis = analyzeFile('pb.yml', text);
  expect(analysis.semantic).toBeDefined();
  return analysis.semantic!;
}

const slice = (text: string, range: { start: number; end: number }) => text.slice(range.start, range.end);

describe('the reference index', () => {
  const semantic = semanticOf(PLAYBOOK);

  it('resolves the YAML structure: needs, roles, role bases, loop targets', () => {
    const needs = semantic.referencesOf('need').map((n) => `${n.from.name}->${n.target?.name}`);
    expect(needs).toEqual(['build->plan', 'qa->build', 'review->qa', 'ship->review']);
    const roles = semantic.referencesOf('role').map((r) => `${r.from.name}:${r.target?.name}`);
    expect(roles).toEqual(['plan:planner', 'build:implementer', 'review:sec', 'notify:planner']);
    expect(semantic.referencesOf('role-base').map((b) => [b.from.name, b.target])).toEqual([
      ['sec', 'reviewer'],
    ]);
    const loops = semantic.referencesOf('loop-target');
    expect(loops.map((l) => `${l.from.name}.${l.outcome.name}->${l.target?.name}`)).toEqual([
      'review.changes->build',
      'ship.revise->build',
    ]);
    for (const reference of [...semantic.referencesOf('need'), ...loops])
      expect(slice(PLAYBOOK, reference.range)).toBe(reference.name);
  });

  it('resolves every name of the expressions, with its range and type', () => {
    const inputs = semantic.referencesOf('input');
    expect(inputs.map((i) => [i.name, i.target?.name, slice(PLAYBOOK, i.range)])).toEqual([
      ['task', 'task', 'task'],
      ['token', 'token', 'token'],
      ['strict', 'strict', 'strict'],
    ]);
    const steps = semantic.referencesOf('step');
    expect(steps.map((s) => [s.step, s.visible, s.template.scope.owner?.name])).toEqual([
      ['plan', true, 'build'],
      ['build', true, 'review'],
      ['plan', true, 'review'],
      ['review', true, 'ship'],
    ]);
    const outputs = semantic.referencesOf('output');
    expect(outputs.map((o) => `${o.step}.${o.output}:${o.status}`)).toEqual([
      'plan.plan:found',
      'build.branch:found',
      'plan.files:found',
    ]);
    expect(outputs.map((o) => o.type)).toEqual([
      { kind: 'string' },
      { kind: 'string' },
      { kind: 'list', element: { kind: 'string' } },
    ]);
    const [outcome] = semantic.referencesOf('outcome');
    expect(outcome!.owner?.name).toBe('review');
    expect(outcome!.target?.name).toBe('approved');
    expect(semantic.rangeIn(outcome!.template.text, outcome!.nameSpan.start, outcome!.nameSpan.end)).toEqual(
      semantic.rangeIn(outcome!.template.text, outcome!.span.start + 1, outcome!.span.end - 1),
    );
  });

  it('keeps what does not resolve, with the did-you-mean of its scope', () => {
    const text = PLAYBOOK.replace(
      'Plan ${{ inputs.task }}',
      'Plan ${{ inputs.tsk }} ${{ loop.count }} ${{ stpes }} ${{ task }}',
    )
      .replace('Review ${{ steps.build', 'Review ${{ steps.biuld')
      .replace(
        'Tell them ${{ run.status }}',
        'Tell them ${{ loop.count }} ${{ run.staus }} ${{ lenn(inputs.task) }}',
      );
    const broken = semanticOf(text);
    const [input] = broken.referencesOf('input').filter((i) => !i.target);
    expect([input!.name, input!.suggestion]).toEqual(['tsk', 'task']);
    const [step] = broken.referencesOf('step').filter((s) => !s.target);
    expect([step!.step, step!.suggestion]).toEqual(['biuld', 'build']);
    const contexts = broken
      .referencesOf('context')
      .map((c) => [c.name, c.visible, c.template.scope.owner?.name]);
    // (`plan` is no loop's target, so loop.* does not exist there either: PB210)
    expect(contexts).toEqual([
      ['loop', false, 'plan'],
      ['loop', false, 'notify'],
    ]);
    expect(broken.referencesOf('name').map((n) => [n.name, n.suggestion, n.input?.name])).toEqual([
      ['stpes', 'steps', undefined],
      ['task', undefined, 'task'],
    ]);
    expect(broken.referencesOf('property').map((p) => [p.name, p.status, p.suggestion])).toEqual([
      ['staus', 'unknown', 'status'],
    ]);
    const [fn] = broken.referencesOf('function').filter((f) => !f.target);
    expect([fn!.name, fn!.suggestion]).toEqual(['lenn', 'len']);
  });
});

describe('the scope provider', () => {
  const semantic = semanticOf(PLAYBOOK);
  const { scopes, model } = semantic;
  const step = (name: string) => model.stepByName.get(name)!;

  it('says which roots exist where: loop in loop targets, report in outcome transitions, gate in choice transitions', () => {
    const names = (scope: Parameters<typeof scopes.rootMembers>[0]) =>
      scopes.rootMembers(scope).map((m) => m.name);
    // `review` and `ship` loop back to `build`: only `build` has loop.*
    expect(names(stepScope(step('build'), 'prompt'))).toEqual(['inputs', 'steps', 'run', 'loop']);
    expect(names(stepScope(step('plan'), 'prompt'))).toEqual(['inputs', 'steps', 'run']);
    expect(names(stepScope(step('review'), 'feedback', 'changes'))).toEqual([
      'inputs',
      'steps',
      'run',
      'report',
    ]);
    // a gate has no report: a person decided it
    expect(names(stepScope(step('ship'), 'feedback', 'revise'))).toEqual(['inputs', 'steps', 'run', 'gate']);
    expect(names(stepScope(model.after[0]!, 'prompt'))).toEqual(['inputs', 'steps', 'run']);
    expect(scopes.rootMembers(stepScope(step('build'), 'prompt'))[0]!.doc).toMatch(/inputs/);
  });

  it('sees the ancestors from a step, itself in its own transitions, every step from an after-task', () => {
    const visible = (scope: Parameters<typeof scopes.visibleSteps>[0]) =>
      scopes.visibleSteps(scope).map((s) => s.name);
    expect(visible(stepScope(step('build'), 'prompt'))).toEqual(['plan']);
    expect(visible(stepScope(step('review'), 'prompt'))).toEqual(['plan', 'build', 'qa']);
    expect(visible(stepScope(step('review'), 'feedback', 'changes'))).toEqual([
      'plan',
      'build',
      'qa',
      'review',
    ]);
    expect(visible(stepScope(model.after[0]!, 'prompt'))).toEqual(['plan', 'build', 'qa', 'review', 'ship']);
  });

  it('lists the members after a chain, with types and docs', () => {
    const scope = stepScope(step('review'), 'prompt');
    expect(scopes.membersAfter(scope, ['inputs'])!.map((m) => [m.name, m.type])).toEqual([
      ['task', 'string'],
      ['strict', 'boolean'],
      ['token', 'string?'],
    ]);
    expect(scopes.membersAfter(scope, ['inputs'])![0]!.doc).toContain('What to build');
    expect(scopes.membersAfter(scope, ['steps', 'plan'])!.map((m) => m.name)).toEqual([
      'outputs',
      'outcome',
      'status',
      'summary',
      'attempt',
    ]);
    expect(scopes.membersAfter(scope, ['steps', 'plan', 'outputs'])!.map((m) => [m.name, m.type])).toEqual([
      ['plan', 'string'],
      ['files', 'list<string>'],
    ]);
    expect(scopes.membersAfter(scope, ['steps', 'qa', 'outputs'])!.map((m) => m.name)).toEqual([
      'passed',
      'failed',
      'skipped',
      'todo',
      'exit_code',
    ]);
    // `ship` runs only when review approved: from an after-task its results may be null
    const after = stepScope(model.after[0]!, 'prompt');
    expect(scopes.membersAfter(after, ['steps', 'ship'])!.find((m) => m.name === 'summary')!.type).toBe(
      'string?',
    );
    expect(scopes.membersAfter(after, ['run'])!.map((m) => m.name)).toEqual([
      'id',
      'playbook',
      'branch',
      'status',
    ]);
    expect(scopes.membersAfter(scope, ['report'])).toBeUndefined();
  });

  it('describes a whole chain, for hover', () => {
    const scope = stepScope(step('review'), 'prompt');
    expect(scopes.describeChain(scope, ['steps', 'build'])).toMatchObject({
      name: 'build',
      kind: 'step',
      doc: 'agent step run by role `implementer`. Needs `plan`.',
    });
    expect(scopes.describeChain(scope, ['steps', 'plan', 'outputs', 'files'])).toMatchObject({
      kind: 'output',
      type: 'list<string>',
    });
    expect(scopes.describeChain(stepScope(step('build'), 'prompt'), ['steps', 'review'])!.doc).toContain(
      'Not an ancestor of this step',
    );
  });

  it('lists what a need and a loop may name', () => {
    // (not build itself, nor the steps that need it: that would close a cycle)
    expect(scopes.needCandidates(step('build')).map((s) => s.name)).toEqual(['plan']);
    expect(scopes.needCandidates(step('qa')).map((s) => s.name)).toEqual(['plan', 'build']);
    expect(scopes.loopTargets(step('review')).map((s) => s.name)).toEqual(['review', 'plan', 'build', 'qa']);
    expect(scopes.loopTargets(model.after[0]!)).toEqual([]);
  });

  it('offers what may be written: no members of a step the place may not read, no secret where it is shown', () => {
    const names = (members: { name: string }[] | undefined) => members?.map((m) => m.name);
    // (what exists, for hover; what is offered, for completion)
    expect(names(scopes.membersAfter(stepScope(step('build'), 'prompt'), ['steps', 'qa']))).toContain(
      'outputs',
    );
    expect(scopes.offeredAfter(stepScope(step('build'), 'prompt'), ['steps', 'qa'])).toBeUndefined();
    expect(
      scopes.offeredAfter(stepScope(step('build'), 'prompt'), ['steps', 'qa', 'outputs']),
    ).toBeUndefined();
    expect(names(scopes.offeredAfter(stepScope(step('review'), 'prompt'), ['inputs']))).toEqual([
      'task',
      'strict',
    ]);
    expect(names(scopes.offeredAfter(stepScope(step('qa'), 'env'), ['inputs']))).toEqual([
      'task',
      'strict',
      'token',
    ]);
  });

  it('says whose outcomes a string compared with a chain names', () => {
    const compared = (scope: Parameters<typeof scopes.outcomesComparedWith>[0], chain: string[]) =>
      scopes.outcomesComparedWith(scope, chain)?.name;
    expect(compared(stepScope(step('ship'), 'when'), ['steps', 'review', 'outcome'])).toBe('review');
    expect(compared(stepScope(step('review'), 'feedback', 'changes'), ['report', 'outcome'])).toBe('review');
    // a gate has no report; its choice is gate.choice
    expect(compared(stepScope(step('ship'), 'feedback', 'revise'), ['report', 'outcome'])).toBeUndefined();
    expect(compared(stepScope(step('ship'), 'feedback', 'revise'), ['gate', 'choice'])).toBe('ship');
    expect(compared(stepScope(step('review'), 'prompt'), ['report', 'outcome'])).toBeUndefined();
  });
});
