import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { advance, createRun, vecToArray } from '@kairoku-playbook/machine';
import type { RunState } from '@kairoku-playbook/machine';
import { RunHost } from '../../src/host/run-host.js';
import type { RunChange } from '../../src/host/run-host.js';
import { simBackendFor } from '../../src/serve/backends.js';
import { RunStore } from '../../src/store/run-store.js';
import { compile, compileFile } from '../helpers.js';
import { tempDir } from '../../../test/kit/index.js';

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
  const dir = tempDir('run-host-');
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

describe('RunHost: every run is created in one place, whoever drives it', () => {
  /** A backend that records what it is asked and reports nothing (a manager's, an agent elsewhere). */
  function quiet() {
    const performed: string[] = [];
    return {
      performed,
      backend: {
        name: 'sim',
        perform: (effect: { type: string }) => void performed.push(effect.type),
        agentExists: () => true,
      },
    };
  }

  it('refuses a run without room with the same code and words, hosted, driven or managed', () => {
    const dir = home();
    const first = newHost(dir).start(PR, { task: 'x' });
    if (!first.ok) throw new Error('not started');
    const id = first.value.state.id;
    const help = { cancel: (run: string) => `cancel ${run}` };
    const hosts = [newHost(dir, { roomHelp: help }), newHost(dir, { roomHelp: help })];
    const driven = hosts[0]!.startDriven(PR, { task: 'y' }, {}, { backend: quiet().backend });
    const managed = hosts[1]!.startManaged(
      PR,
      { task: 'y' },
      { manager: 'a manager' },
      { backend: () => quiet().backend },
      () => undefined,
    );
    const hosted = newHost(dir, { roomHelp: help }).start(PR, { task: 'y' });
    const expected = {
      ok: false,
      refusal: {
        code: 'workspace-busy',
        kind: 'conflict',
        message: `run "${id}" of playbook "pr" is already active in this workspace (running); one run may be active per workspace: finish it (or cancel it with cancel ${id}) before starting another`,
      },
    };
    expect(driven).toEqual(expected);
    expect(managed).toEqual(expected);
    expect(hosted).toEqual(expected);
    expect(hosts[0]!.room(PR)).toEqual(expected.refusal);
    // Another workspace: pr.yml allows one active run at once.
    const elsewhere = newHost(dir, { workspace: '/work/elsewhere' });
    expect(elsewhere.startDriven(PR, { task: 'y' }, {}, { backend: quiet().backend })).toMatchObject({
      ok: false,
      refusal: { code: 'concurrency-limit' },
    });
    expect(new RunStore(dir).loadAll().runs.map((r) => r.id)).toEqual([id]);
  });

  it("startDriven: records the run (no manager, a new worktree's branch), claims it and drives it with the caller's backend; secrets stay in memory", () => {
    const host = newHost(home(), { backendFor: undefined });
    const changes: RunChange[] = [];
    host.subscribe((change) => changes.push(change));
    const { backend, performed } = quiet();
    const started = host.startDriven(PR, { task: 'x', api_key: 'sk-very-secret' }, {}, { backend });
    if (!started.ok) throw new Error(started.refusal.message);
    const run = started.value.run;
    const id = run.state.id;
    expect(changes.map((c) => c.state.id)).toEqual([id]);
    const stored = host.store.load(id)!;
    expect(stored).toMatchObject({ workspace: '/work/space', backend: 'sim', status: 'running' });
    expect(stored.manager).toBeUndefined();
    expect(stored.branch).toBe(`playbooks/pr-${id.slice(-6)}`);
    expect(JSON.stringify(stored)).not.toContain('sk-very-secret');
    expect(host.secretsOf(id)).toEqual({ api_key: 'sk-very-secret' });
    const claim = join(host.store.folder, `${id}.owner`);
    expect(existsSync(claim)).toBe(true);
    expect(run.begin({ type: 'start' })).toBeUndefined();
    expect(performed).toContain('start-agent');
    expect(changes.length).toBeGreaterThan(1);
    host.letGo(id);
    expect(existsSync(claim)).toBe(false);
    expect(host.secretsOf(id)).toEqual({});
  });

  it('manager mode: no claim, no autopilot; each change a one-shot under the lock, told to subscribers', () => {
    const dir = home();
    const host = newHost(dir, { backendFor: undefined, backend: 'mcp' });
    const changes: RunChange[] = [];
    host.subscribe((change) => changes.push(change));
    const started = host.startManaged(
      PR,
      { task: 'x', api_key: 'sk-very-secret' },
      { manager: 'tester (mcp)', workspaceBranch: 'main' },
      { backend: () => quiet().backend },
      (driver) => driver.send({ type: 'start' }),
    );
    if (!started.ok) throw new Error(started.refusal.message);
    const { state, value } = started.value;
    expect(value).toBeUndefined();
    expect(state).toMatchObject({
      manager: 'tester (mcp)',
      backend: 'mcp',
      branch: `playbooks/pr-${state.id.slice(-6)}`,
    });
    // Nobody claims it, nothing started by itself: the manager decides.
    expect(existsSync(join(dir, 'runs', `${state.id}.owner`))).toBe(false);
    expect(statusOf(state, 'plan')).toBe('ready');
    expect(changes.map((c) => c.state.id)).toEqual([state.id]);
    expect(host.secretsOf(state.id)).toEqual({ api_key: 'sk-very-secret' });

    // Another process's host (a step agent's server) changes the same file the same way.
    const other = newHost(dir, { backendFor: undefined, backend: 'mcp' });
    const { backend, performed } = quiet();
    const changed = other.change(state.id, { backend: () => backend }, (driver) =>
      driver.send({ type: 'start-step', step: 'plan' }),
    );
    expect(changed).toMatchObject({ ok: true, value: { value: undefined } });
    expect(performed).toContain('start-agent');
    expect(statusOf(host.store.load(state.id)!, 'plan')).toBe('running');
    expect(other.change('pr-nope', { backend: () => backend }, () => 1)).toMatchObject({
      ok: false,
      refusal: { code: 'unknown-run', kind: 'not-found' },
    });
    // A throw in the work is passed on, and what it would have written is not.
    expect(() =>
      other.change(state.id, { backend: () => backend }, (driver) => {
        driver.send({ type: 'cancel', reason: 'x' });
        throw new Error('refused by the caller');
      }),
    ).toThrow('refused by the caller');
    // (a cancel is written at once: the driver saves each batch; the throw came after it)
    expect(host.store.load(state.id)!.status).toBe('canceled');
    expect(existsSync(join(dir, 'runs', `${state.id}.owner`))).toBe(false);
  });

  it('manager mode: a restart (reopenAs) needs room, and hands the reopened run to its new manager, unarchived', () => {
    const dir = home();
    const host = newHost(dir, { backendFor: undefined, backend: 'mcp' });
    const how = { backend: () => quiet().backend };
    const started = host.startManaged(PR, { task: 'x' }, { manager: 'first' }, how, (driver) =>
      driver.send({ type: 'start' }),
    );
    if (!started.ok) throw new Error(started.refusal.message);
    const id = started.value.state.id;
    host.change(id, how, (driver) => driver.send({ type: 'cancel', reason: 'x' }));
    host.store.save({ ...host.store.load(id)!, archivedAt: new Date().toISOString() });
    // Another run of the workspace is active now: no room to reopen this one.
    const blocking = host.startManaged(PR, { task: 'y' }, { manager: 'other' }, how, (driver) =>
      driver.send({ type: 'start' }),
    );
    if (!blocking.ok) throw new Error(blocking.refusal.message);
    const restart = { ...how, reopenAs: 'second' };
    const send = (driver: { send: (e: { type: 'restart-from'; step: string }) => unknown }) =>
      driver.send({ type: 'restart-from', step: 'plan' });
    expect(host.change(id, restart, send)).toMatchObject({ ok: false, refusal: { code: 'workspace-busy' } });
    host.change(blocking.value.state.id, how, (driver) => driver.send({ type: 'cancel', reason: 'y' }));
    const reopened = host.change(id, restart, send);
    expect(reopened).toMatchObject({ ok: true, value: { state: { status: 'running', manager: 'second' } } });
    const stored = host.store.load(id)!;
    expect(stored.manager).toBe('second');
    expect(stored.archivedAt).toBeUndefined();
  });

  it('manager mode: a throw while the run is first applied leaves no run and no secret behind', () => {
    const host = newHost(home(), { backendFor: undefined });
    expect(() =>
      host.startManaged(
        PR,
        { task: 'x', api_key: 'sk-very-secret' },
        { manager: 'm' },
        { backend: () => quiet().backend },
        () => {
          throw new Error('no');
        },
      ),
    ).toThrow('no');
    expect(host.store.loadAll().runs).toEqual([]);
  });
});

describe('RunHost.loseGone', () => {
  it("applies the lost-agent rule to a backend's runs whose agents are gone, leaving a run another live process claims alone", () => {
    const dir = home();
    const store = new RunStore(dir);
    const at = Date.now();
    const withAgent = (id: string, workspace: string) =>
      advance(
        advance(
          started(
            createRun(PR, { id, inputs: { task: id, strict: false, reviewers: 1, target: 'main' }, now: at }),
            workspace,
            at,
          ),
          { type: 'start-step', step: 'plan' },
          at,
        ).state,
        { type: 'step-started', step: 'plan', attempt: 1, agent: 'sim:gone' },
        at,
      ).state;
    store.save(withAgent('pr-left', '/a'));
    store.save(withAgent('pr-claimed', '/b'));
    // Another live process (this test's parent) drives pr-claimed.
    writeFileSync(join(store.folder, 'pr-claimed.owner'), `${JSON.stringify({ pid: process.ppid })}\n`);
    const host = newHost(dir, { backendFor: undefined });
    const changes: string[] = [];
    host.subscribe(({ state }) => changes.push(state.id));
    const { runs, problems } = host.loseGone(() => false);
    expect(problems).toEqual([]);
    expect(changes).toEqual(['pr-left']);
    expect(runs.find((r) => r.id === 'pr-left')!.status).toBe('failed');
    expect(statusOf(store.load('pr-left')!, 'plan')).toBe('lost');
    expect(statusOf(store.load('pr-claimed')!, 'plan')).toBe('running');
  });
});
