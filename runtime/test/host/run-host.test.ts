import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { vecToArray } from '../../src/core/pvec.js';
import { createRun } from '../../src/core/create-run.js';
import type { RunState } from '../../src/core/state.js';
import { advance } from '../../src/core/transition.js';
import { RunHost } from '../../src/host/run-host.js';
import type { RunChange } from '../../src/host/run-host.js';
import { simBackendFor } from '../../src/serve/backends.js';
import { RunStore } from '../../src/store/run-store.js';
import { compile, compileFile } from '../helpers.js';

const PR = compileFile('playbooks/pr.yml');
const homes: string[] = [];
const hosts: RunHost[] = [];

function newHost(home: string, options: Partial<ConstructorParameters<typeof RunHost>[0]> = {}): RunHost {
  const host = new RunHost({
    home,
    workspace: '/work/space',
    backend: 'sim',
    backendFor: simBackendFor(undefined),
    ...options,
  });
  hosts.push(host);
  return host;
}

function home(): string {
  const dir = mkdtempSync(join(tmpdir(), 'run-host-'));
  homes.push(dir);
  return dir;
}

afterEach(() => {
  for (const host of hosts.splice(0)) host.close();
  for (const dir of homes.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function statusOf(state: RunState, step: string): string {
  return vecToArray(state.steps).find((s) => s.name === step)!.status;
}

describe('RunHost', () => {
  it('starts a sim run with autopilot; the gate stays open until decided; every write is announced', () => {
    const host = newHost(home());
    const changes: RunChange[] = [];
    host.subscribe((change) => changes.push(change));
    const started = host.start(PR, { task: 'Add a flag' });
    expect(started.ok).toBe(true);
    if (!started.ok) return;
    const id = started.value.state.id;
    expect(started.value.state.status).toBe('running');
    expect(statusOf(started.value.state, 'ship')).toBe('waiting');
    expect(host.active).toEqual([id]);
    // The run file holds the open gate.
    expect(statusOf(new RunStore(host.store.home).load(id)!, 'ship')).toBe('waiting');

    const refused = host.operate(id, { type: 'decide', step: 'ship', choice: 'nope' });
    expect(refused).toMatchObject({ ok: false, refusal: { code: 'unknown-choice', kind: 'conflict' } });
    const decided = host.operate(id, { type: 'decide', step: 'ship', choice: 'approve' });
    expect(decided.ok && decided.value.status).toBe('completed');
    expect(host.active).toEqual([]);
    const again = host.operate(id, { type: 'decide', step: 'ship', choice: 'approve' });
    expect(again).toMatchObject({ ok: false, refusal: { code: 'not-waiting' } });

    const versions = changes.map((c) => c.version);
    expect(versions.length).toBeGreaterThanOrEqual(3);
    expect([...versions].sort((a, b) => a - b)).toEqual(versions);
    expect(new Set(versions).size).toBe(versions.length);
    expect(host.version(id)).toBe(versions.at(-1));
  });

  it('refuses bad inputs with a pointer, a second active run, and unknown runs', () => {
    const host = newHost(home());
    expect(host.start(PR, { task: 'x', reviewers: 9 })).toMatchObject({
      ok: false,
      refusal: { code: 'invalid-input', kind: 'invalid', field: '/inputs/reviewers' },
    });
    expect(host.start(PR, { task: 'x' }).ok).toBe(true);
    expect(host.start(PR, { task: 'x' })).toMatchObject({ ok: false, refusal: { code: 'workspace-busy' } });
    expect(host.operate('nope-1', { type: 'pause' })).toMatchObject({
      ok: false,
      refusal: { code: 'unknown-run', kind: 'not-found' },
    });
  });

  it('pauses, resumes, cancels, archives and restarts from a step', () => {
    const host = newHost(home());
    const started = host.start(PR, { task: 'x' });
    if (!started.ok) throw new Error('not started');
    const id = started.value.state.id;
    expect(host.operate(id, { type: 'archive' })).toMatchObject({
      ok: false,
      refusal: { code: 'run-not-ended' },
    });
    expect(host.operate(id, { type: 'pause' })).toMatchObject({ ok: true, value: { status: 'paused' } });
    expect(host.operate(id, { type: 'resume' })).toMatchObject({ ok: true, value: { status: 'running' } });
    expect(host.operate(id, { type: 'cancel' })).toMatchObject({ ok: true, value: { status: 'canceled' } });
    expect(host.operate(id, { type: 'archive' })).toMatchObject({
      ok: true,
      value: { archivedAt: expect.any(String) },
    });
    const restarted = host.operate(id, { type: 'restart', step: 'ship' });
    expect(restarted.ok && restarted.value.status).toBe('running');
    expect(restarted.ok && restarted.value.archivedAt).toBeUndefined();
    expect(restarted.ok && statusOf(restarted.value, 'ship')).toBe('waiting');
    expect(host.operate(id, { type: 'decide', step: 'ship', choice: 'approve' })).toMatchObject({
      ok: true,
      value: { status: 'completed' },
    });
  });

  it('recovers on start: running steps whose agents are gone are lost, open gates stay open, a run whose manager is gone fails', () => {
    const dir = home();
    const store = new RunStore(dir);
    // A run a killed host left with its gate open, one with a step running, one whose manager is gone.
    const at = Date.now();
    const gated = newHost(dir).start(PR, { task: 'x' });
    if (!gated.ok) throw new Error('not started');
    hosts.pop()!.close();
    const running = started(
      createRun(PR, {
        id: 'pr-running',
        inputs: { task: 'y', strict: false, reviewers: 1, target: 'main' },
        now: at,
      }),
      '/other',
      at,
    );
    const stepping = advance(running, { type: 'start-step', step: 'plan' }, at).state;
    const withAgent = advance(
      stepping,
      { type: 'step-started', step: 'plan', attempt: 1, agent: 'sim:gone' },
      at,
    ).state;
    store.save(withAgent);
    const orphan = started(
      createRun(PR, {
        id: 'pr-orphan',
        inputs: { task: 'z', strict: false, reviewers: 1, target: 'main' },
        now: at,
      }),
      '/third',
      at,
    );
    store.save({ ...orphan, manager: 'agent-that-left' });

    for (const workspace of ['/work/space', '/other', '/third']) {
      const host = newHost(dir, { workspace, managerExists: (m) => m !== 'agent-that-left' });
      host.recover();
    }
    const gate = store.load(gated.value.state.id)!;
    expect(gate.status).toBe('running');
    expect(statusOf(gate, 'ship')).toBe('waiting');
    const lost = store.load('pr-running')!;
    const plan = vecToArray(lost.steps).find((s) => s.name === 'plan')!;
    expect(plan.attempts[0]!.ended).toBe('lost');
    // The step has no retries: lost, and the run fails with it.
    expect(plan.status).toBe('lost');
    expect(lost.status).toBe('failed');
    expect(store.load('pr-orphan')!.status).toBe('failed');

    // A paseo run a killed paseo serve left is not taken up by a sim host: it waits, untouched.
    const paseoRun = advance(
      advance(
        started(
          createRun(PR, {
            id: 'pr-paseo',
            inputs: { task: 'p', strict: false, reviewers: 1, target: 'main' },
            now: at,
            backend: 'paseo',
          }),
          '/fourth',
          at,
        ),
        { type: 'start-step', step: 'plan' },
        at,
      ).state,
      { type: 'step-started', step: 'plan', attempt: 1, agent: 'paseo-agent-1' },
      at,
    ).state;
    store.save(paseoRun);
    const simHost = newHost(dir, { workspace: '/fourth' });
    expect(simHost.recover()).toMatchObject({ adopted: [], otherBackends: ['pr-paseo'] });
    expect(store.load('pr-paseo')).toEqual(paseoRun);
  });

  it('retries a failed step (the run restarts there), nudges a running step, starts a manual after-task', () => {
    const wrap = compile(`version: 1
id: wrap
title: Wrap
steps:
  build:
    role: implementer
    prompt: Build
    outcomes: { done: next, broken: fail }
after:
  cleanup:
    trigger: manual
    run: git worktree prune
`);
    const scenario = { steps: { build: [{ outcome: 'broken' }, { outcome: 'done' }] } };
    const host = newHost(home(), { backendFor: simBackendFor(scenario) });
    const started = host.start(wrap, {});
    if (!started.ok) throw new Error('not started');
    const id = started.value.state.id;
    expect(started.value.state.status).toBe('failed');
    expect(host.operate(id, { type: 'retry', step: 'nope' })).toMatchObject({
      ok: false,
      refusal: { code: 'unknown-step', kind: 'not-found' },
    });
    expect(host.operate(id, { type: 'restart', step: 'buld' })).toMatchObject({
      ok: false,
      refusal: { code: 'unknown-step', kind: 'not-found', message: expect.stringContaining('"build"') },
    });
    expect(host.operate(id, { type: 'start-after', name: 'nope' })).toMatchObject({
      ok: false,
      refusal: { code: 'unknown-after-task', kind: 'not-found' },
    });
    const cleanup = host.operate(id, { type: 'start-after', name: 'cleanup' });
    expect(cleanup.ok && cleanup.value.after[0]!.status).toBe('completed');
    const retried = host.operate(id, { type: 'retry', step: 'build' });
    expect(retried.ok && retried.value.status).toBe('completed');
    expect(host.operate(id, { type: 'retry', step: 'build' })).toMatchObject({
      ok: false,
      refusal: { code: 'not-failed' },
    });
  });

  it('nudges a running step; the nudge is in the run’s history', () => {
    const slow = compile(`version: 1
id: slow
title: Slow
steps:
  build:
    role: implementer
    prompt: Build
`);
    // A backend whose agents never answer: the step stays running.
    const host = newHost(home(), {
      backendFor: () => ({ name: 'sim', perform: () => undefined, agentExists: () => true }),
    });
    const started = host.start(slow, {});
    if (!started.ok) throw new Error('not started');
    const id = started.value.state.id;
    const nudged = host.operate(id, { type: 'nudge', step: 'build', message: 'any news?' });
    expect(
      nudged.ok && vecToArray(nudged.value.history).some((h) => h.text === 'build nudged: any news?'),
    ).toBe(true);
  });
});

function started(state: RunState, workspace: string, at: number): RunState {
  return { ...advance(state, { type: 'start' }, at).state, workspace };
}
