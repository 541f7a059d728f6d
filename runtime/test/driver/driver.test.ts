import { describe, expect, it } from 'vitest';
import type { Backend, BackendEffect } from '../../src/driver/backend.js';
import { createRun, stepRun, vecToArray } from '@kairoku-playbook/machine';
import type { RunState } from '@kairoku-playbook/machine';
import { Driver, WriteFailed } from '../../src/driver/driver.js';
import { compileFile } from '../helpers.js';

const pr = compileFile('playbooks/pr.yml');

/** A backend that only records what it is asked to do; its events are sent by the test. */
class Recorder implements Backend {
  readonly name = 'recorder';
  readonly effects: BackendEffect[] = [];
  perform(effect: BackendEffect): void {
    this.effects.push(effect);
  }
  agentExists(): boolean {
    return true;
  }
}

function fresh(): RunState {
  return createRun(pr, {
    id: 'd-1',
    inputs: { task: 't', strict: false, reviewers: 1, target: 'main' },
    now: 0,
  });
}

describe('the driver', () => {
  it('with a manager (no autopilot): leaves ready steps to the manager and hands it the wake-ups', () => {
    const backend = new Recorder();
    const saved: RunState[] = [];
    const driver = new Driver(fresh(), {
      backend,
      autopilot: false,
      clock: () => 0,
      persist: (s) => saved.push(s),
    });
    expect(driver.dispatch({ type: 'start' })).toBeUndefined();
    expect(backend.effects).toEqual([]);
    expect(saved).toHaveLength(1);
    expect(driver.dispatch({ type: 'start-step', step: 'plan', brief: 'short' })).toBeUndefined();
    expect(backend.effects.map((e) => e.type)).toEqual(['start-agent']);
    driver.dispatch({ type: 'report', step: 'plan', outcome: 'done', outputs: { plan: 'p', files: [] } });
    expect(backend.effects.at(-1)).toMatchObject({
      type: 'wake-manager',
      wakeups: [{ kind: 'reported', step: 'plan' }],
    });
    // Nothing decided for the manager: the step waits for complete-step.
    expect(stepRun(driver.state, 'plan')!.status).toBe('reported');
    expect(driver.dispatch({ type: 'start-step', step: 'implement' })).toBe(
      'step "implement" is not ready: it is pending, waiting for plan',
    );
    expect(driver.refusals).toHaveLength(1);
  });

  it('with autopilot: starts ready steps, applies reported outcomes, opens gates; persists once per batch', () => {
    const backend = new Recorder();
    let saves = 0;
    const driver = new Driver(fresh(), { backend, clock: () => 0, persist: () => saves++ });
    driver.dispatch({ type: 'start' });
    expect(backend.effects).toMatchObject([{ type: 'start-agent', step: 'plan' }]);
    expect(saves).toBe(1);
    // The backend reports later (as a real one does): the driver completes the step and starts the next.
    driver.dispatch({ type: 'report', step: 'plan', outcome: 'done', outputs: { plan: 'p', files: ['a'] } });
    expect(backend.effects.map((e) => `${e.type}:${'step' in e ? e.step : ''}`)).toEqual([
      'start-agent:plan',
      'start-agent:implement',
    ]);
    expect(saves).toBe(2);
  });
});

describe('autopilot with parallel steps', () => {
  it('drops its decision on a report that a sibling loop has since reset, instead of refusing it', async () => {
    const { runSim } = await import('../../src/testing/sim-run.js');
    const { readScenario } = await import('../../src/backends/scenario.js');
    const { playbook } = await import('../helpers.js');
    const ir = playbook(`
  build: { role: implementer, prompt: Build }
  perf: { needs: build, role: reviewer, prompt: Perf, outcomes: { approved: next, changes: { loop: build, max: 2 } } }
  api: { needs: build, role: reviewer, prompt: Api, outcomes: { approved: next, changes: { loop: build, max: 2 } } }
`);
    const { scenario, errors } = readScenario(
      { steps: { perf: [{ outcome: 'changes' }, { outcome: 'approved' }], api: [{ outcome: 'approved' }] } },
      ir,
    );
    expect(errors).toEqual([]);
    const result = runSim({ ir, scenario, id: 'p-1', clock: () => 0 });
    if (!result.ok) throw new Error(result.inputErrors.join('; '));
    expect(result.refusals).toEqual([]);
    expect(result.state.status).toBe('completed');
    expect(result.state.loops).toEqual({ 'perf.changes': 1 });
  });
});

describe('what a backend sends', () => {
  it('a refused event from a backend lands in the history; the operator’s own refusals do not', () => {
    const backend = new Recorder();
    const driver = new Driver(fresh(), { backend, autopilot: false, clock: () => 0 });
    driver.dispatch({ type: 'start' });
    driver.dispatch({ type: 'start-step', step: 'plan' });
    const before = driver.state.history.size;
    // The operator's mistake is answered to the operator, not written down.
    expect(driver.dispatch({ type: 'start-step', step: 'implement' })).toMatch(/not ready/);
    expect(driver.state.history.size).toBe(before);
    // A step agent's report whose outputs do not fit: refused to the backend and recorded.
    const refusal = driver.context.submit({
      type: 'report',
      step: 'plan',
      attempt: 1,
      outcome: 'done',
      outputs: { plan: 3 },
    });
    expect(refusal).toMatch(/plan/);
    const last = vecToArray(driver.state.history).at(-1)!;
    expect(last).toMatchObject({ kind: 'refused', step: 'plan', attempt: 1 });
    expect(last.text).toContain('report from the recorder backend was refused');
    expect(stepRun(driver.state, 'plan')!.status).toBe('running');
  });

  it('refusalOf answers what the driver would, and applies nothing', () => {
    const backend = new Recorder();
    const driver = new Driver(fresh(), { backend, autopilot: false, clock: () => 0 });
    driver.dispatch({ type: 'start' });
    driver.dispatch({ type: 'start-step', step: 'plan' });
    const state = driver.state;
    const effects = backend.effects.length;
    const misfit = {
      type: 'report',
      step: 'plan',
      attempt: 1,
      outcome: 'done',
      outputs: { plan: 3 },
    } as const;
    const fit = {
      type: 'report',
      step: 'plan',
      attempt: 1,
      outcome: 'done',
      outputs: { plan: 'p', files: [] },
    } as const;
    expect(driver.context.refusalOf(misfit)).toMatch(/does not fit its outputs/);
    expect(driver.context.refusalOf(fit)).toBeUndefined();
    // Nothing was applied, refused or recorded: the same state object, no effects, no refusals.
    expect(driver.state).toBe(state);
    expect(backend.effects).toHaveLength(effects);
    expect(driver.refusals).toHaveLength(0);
    // What it said is what the run then does.
    expect(driver.context.submit(misfit)).toBe(driver.context.refusalOf(misfit));
    expect(driver.context.submit(fit)).toBeUndefined();
    expect(stepRun(driver.state, 'plan')!.status).toBe('reported');
  });

  it('a note records a backend’s fault, scrubbed of secrets and bounded, and changes nothing else', () => {
    const backend = new Recorder();
    const driver = new Driver(fresh(), {
      backend,
      autopilot: false,
      clock: () => 0,
      secrets: { token: 'hunter2-secret' },
    });
    driver.dispatch({ type: 'start' });
    const status = driver.state.status;
    driver.context.emit({
      type: 'note',
      kind: 'backend',
      text: `daemon said hunter2-secret ${'x'.repeat(5000)}`,
      step: 'nowhere',
    });
    const last = vecToArray(driver.state.history).at(-1)!;
    expect(last.kind).toBe('backend');
    expect(last.text).not.toContain('hunter2-secret');
    expect(last.text.startsWith('nowhere: daemon said ')).toBe(true);
    expect(last.text.length).toBeLessThan(2100);
    expect(driver.state.status).toBe(status);
  });
});

describe('write first, then act', () => {
  it("performs a backend's effects only once the state that made them is written", () => {
    const order: string[] = [];
    const backend: Backend = {
      name: 'far',
      perform: (effect) => order.push(`perform ${effect.type}`),
      agentExists: () => true,
    };
    const driver = new Driver(fresh(), {
      backend,
      clock: () => 0,
      persist: (s) => order.push(`write ${stepRun(s, 'plan')!.status}`),
    });
    driver.dispatch({ type: 'start' });
    const firstStart = order.indexOf('perform start-agent');
    expect(firstStart).toBeGreaterThan(0);
    // the step, started, is on disk before its agent is asked for
    expect(
      order.slice(0, firstStart).some((entry) => entry.startsWith('write ') && entry !== 'write pending'),
    ).toBe(true);
    expect(order[0]).toMatch(/^write /);
  });

  it('a failed write takes the run back to the state last written and performs nothing of it', () => {
    const backend = new Recorder();
    let full = false;
    const written: RunState[] = [];
    const driver = new Driver(fresh(), {
      backend,
      clock: () => 0,
      persist: (s) => {
        if (full) throw new Error('ENOSPC: no space left on device');
        written.push(s);
      },
    });
    driver.dispatch({ type: 'start' });
    const before = driver.state;
    const performed = backend.effects.length;
    full = true;
    expect(() => driver.dispatch({ type: 'cancel', reason: 'x' })).toThrow(WriteFailed);
    expect(driver.state).toBe(before);
    expect(backend.effects.length).toBe(performed); // no stop-agent for a cancel the file does not hold
    full = false;
    expect(driver.dispatch({ type: 'cancel', reason: 'x' })).toBeUndefined();
    expect(driver.state.status).toBe('canceled');
    expect(backend.effects.slice(performed).map((e) => e.type)).toContain('stop-agent');
  });
});
