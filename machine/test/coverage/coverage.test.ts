import { describe, expect, it } from 'vitest';
import { coverageModel } from '../../src/coverage/model.js';
import { mergeHits, recordTransition } from '../../src/coverage/record.js';
import type { CoverageHits } from '../../src/coverage/record.js';
import { coverageReport, totalBranches, untakenOutcomes } from '../../src/coverage/report.js';
import { toLcov } from '../../src/coverage/lcov.js';
import { coverageSummary, coverageTable } from '../../src/coverage/coverage-text.js';
import type { RunEvent } from '../../src/core/events.js';
import { Run, compile } from '../helpers.js';

// Line numbers matter: each branch is counted at the line of its outcome, choice, loop or `when`.
const PLAYBOOK = `version: 1
id: cov
title: Coverage
inputs:
  strict: { type: boolean, default: false }
steps:
  build:
    run: [make]
    outcomes:
      pass: next
      fail: { loop: build, max: 1, exhausted: next }
  review:
    needs: [build]
    when: inputs.strict
    role: reviewer
    prompt: Review it.
  ship:
    needs: [review]
    gate:
      title: Ship?
      choices:
        approve: next
        reject: fail
after:
  notify:
    run: [echo done]
`;

/** A run driven by hand, its hits counted from each accepted transition. */
class CoveredRun extends Run {
  readonly hits: CoverageHits = {};
  override send(event: RunEvent) {
    const before = this.state;
    const effects = super.send(event);
    recordTransition(this.hits, before, this.state, event, effects);
    return effects;
  }
}

describe('playbook coverage', () => {
  const ir = compile(PLAYBOOK);

  it('lists each step as a line and each outcome, choice, loop arm and when arm as a branch, at its line', () => {
    const model = coverageModel(ir);
    expect(model.lines.map((l) => [l.unit, l.line])).toEqual([
      ['build', 7],
      ['review', 12],
      ['ship', 17],
      ['after.notify', 25],
    ]);
    expect(model.branches.map((b) => [b.key, b.line, b.block])).toEqual(
      [
        ['outcome build pass', 10, 0],
        ['outcome build fail', 11, 0],
        ['loop build.fail taken', 11, 1],
        ['loop build.fail exhausted', 11, 1],
        ['when review true', 14, 2],
        ['when review false', 14, 2],
        ['outcome review done', 12, 3],
        ['outcome review failed', 12, 3],
        ['choice', 22, 4],
        ['choice', 23, 4],
        ['outcome after.notify pass', 25, 5],
        ['outcome after.notify fail', 25, 5],
      ].map(([key, line, block]) => [
        key === 'choice' ? expect.stringMatching(/^outcome ship /) : key,
        line,
        block,
      ]),
    );
  });

  it('counts outcomes, loops taken and exhausted, when false, gates and after-tasks from a run', () => {
    const run = new CoveredRun(ir);
    run.send({ type: 'start' });
    run.pass('build', 'fail');
    run.pass('build', 'fail');
    run.decide('ship', 'approve');
    run.pass('after.notify', 'pass');
    expect(run.hits).toEqual({
      'reached build': 2,
      'outcome build fail': 2,
      'loop build.fail taken': 1,
      'loop build.fail exhausted': 1,
      'when review false': 1,
      'reached ship': 1,
      'outcome ship approve': 1,
      'reached after.notify': 1,
      'outcome after.notify pass': 1,
    });
    const report = coverageReport(ir, 'cov.yml', run.hits, 1);
    expect(report.totals).toEqual({
      lines: { covered: 3, total: 4 },
      branches: { covered: 6, total: 12 },
      percent: 50,
    });
    expect(untakenOutcomes(report).map((b) => b.key)).toEqual([
      'outcome build pass',
      'outcome review done',
      'outcome review failed',
      'outcome ship reject',
      'outcome after.notify fail',
    ]);
  });

  it('merges the hits of several tests, and a when true where a test starts the step', () => {
    const strict = new CoveredRun(ir, { strict: true });
    strict.send({ type: 'start' });
    strict.pass('build', 'pass');
    strict.pass('review', 'done');
    strict.decide('ship', 'reject');
    const hits = mergeHits({ 'outcome build pass': 2 }, strict.hits);
    expect(hits).toMatchObject({ 'outcome build pass': 3, 'when review true': 1, 'outcome ship reject': 1 });
  });

  it('counts a when true as the step becomes ready, also when the run ends before it starts', () => {
    // (SPEC §3.3: `when` is evaluated when the step becomes ready; here `late` never starts)
    const ended = compile(`version: 1
id: ended
title: Ended
inputs:
  go: { type: boolean, default: true }
steps:
  first:
    run: [make]
    outcomes: { pass: end, fail: fail }
  late:
    when: inputs.go
    role: reviewer
    prompt: Review it.
`);
    const run = new CoveredRun(ended);
    const effects = run.send({ type: 'start' });
    expect(effects).toContainEqual({ type: 'step-ready', step: 'late', kind: 'agent', when: true });
    expect(effects).toContainEqual({ type: 'step-ready', step: 'first', kind: 'check' });
    run.pass('first', 'pass');
    expect(run.state.status).toBe('completed');
    expect(run.status('late')).not.toBe('running');
    expect(run.hits).toEqual({ 'reached first': 1, 'outcome first pass': 1, 'when late true': 1 });
  });

  it('counts a when once per evaluation, not again on a retry', () => {
    const retried = compile(`version: 1
id: retried
title: Retried
inputs:
  go: { type: boolean, default: true }
steps:
  flaky:
    when: inputs.go
    retries: 1
    run: [make]
    outcomes: { pass: next, fail: retry }
`);
    const run = new CoveredRun(retried);
    run.send({ type: 'start' });
    run.pass('flaky', 'fail');
    run.pass('flaky', 'pass');
    expect(run.hits).toMatchObject({ 'when flaky true': 1, 'reached flaky': 2 });
  });

  it('writes lcov: a BRDA per branch at its line, - where its decision was never made, a DA per step', () => {
    const run = new CoveredRun(ir);
    run.send({ type: 'start' });
    run.pass('build', 'pass');
    run.decide('ship', 'approve');
    const lcov = toLcov([coverageReport(ir, 'playbooks/cov.yml', run.hits, 1)]);
    expect(lcov).toBe(
      [
        'TN:playbooks',
        'SF:playbooks/cov.yml',
        'BRDA:10,0,0,1',
        'BRDA:11,0,1,0',
        'BRDA:11,1,0,0',
        'BRDA:11,1,1,0',
        'BRDA:14,2,0,0',
        'BRDA:14,2,1,1',
        'BRDA:12,3,0,-',
        'BRDA:12,3,1,-',
        'BRDA:22,4,0,1',
        'BRDA:23,4,1,0',
        'BRDA:25,5,0,-',
        'BRDA:25,5,1,-',
        'BRF:12',
        'BRH:3',
        'DA:7,1',
        'DA:12,0',
        'DA:17,1',
        'DA:25,0',
        'LF:4',
        'LH:2',
        'end_of_record',
        '',
      ].join('\n'),
    );
  });

  it('prints a table with the branches no test takes marked, and the totals', () => {
    const run = new CoveredRun(ir);
    run.send({ type: 'start' });
    run.pass('build', 'pass');
    run.decide('ship', 'approve');
    const report = coverageReport(ir, 'cov.yml', run.hits, 1);
    const table = coverageTable(report);
    expect(table.split('\n')[0]).toBe('cov.yml: 1 test, steps 2 of 4 reached, branches 3 of 12 taken (25%)');
    expect(table).toContain('   11  build         loop build.fail exhausted     0  not taken');
    expect(table).toContain('never reached: review (line 12), after.notify (line 25)');
    expect(coverageSummary([report, report])).toBe('coverage: branches 6 of 24 taken (25%) in 2 playbooks');
    expect(totalBranches([])).toEqual({ covered: 0, total: 0, percent: 100 });
  });
});
