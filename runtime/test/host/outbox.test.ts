/**
 * One `operate`, wherever the run is (issue 22): a decision applied where nobody can perform its
 * effects saves them on the run (its outbox) in the same write, and the process that hosts the run
 * next performs exactly those effects, as they were made — nothing is rebuilt from the history. A run
 * another live process drives is asked through the store's mailbox instead.
 */
import { spawn } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Backend, BackendEffect } from '../../src/driver/backend.js';
import { carry, performCarried } from '../../src/host/outbox.js';
import { RunHost } from '../../src/host/run-host.js';
import { HOST_MANAGER } from '../../src/host/run-host-types.js';
import { compileFile } from '../helpers.js';
import { tempDir } from '../../../test/kit/index.js';

const PR = compileFile('playbooks/pr.yml');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A backend that performs nothing and remembers what it was asked. */
function recording(): Backend & { performed: BackendEffect[] } {
  const performed: BackendEffect[] = [];
  return {
    name: 'sim',
    performed,
    perform: (effect) => void performed.push(effect),
    agentExists: () => true,
  };
}

function store() {
  const home = tempDir('outbox-');
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  return { home, workspace: '/work/space' };
}

/** A run a manager of its own manages, its first step (plan) started and at work. */
function managedRunAtWork(home: string, workspace: string): string {
  const manager = new RunHost({ home, workspace, backend: 'sim' });
  cleanups.push(() => manager.close());
  const started = manager.startManaged(
    PR,
    { task: 'x' },
    { manager: 'claude (mcp client)' },
    { backend: () => recording() },
    (driver) => {
      driver.send({ type: 'start' });
      driver.send({ type: 'start-step', step: 'plan' });
      driver.send({ type: 'step-started', step: 'plan', attempt: 1, agent: 'agent-1' });
    },
  );
  if (!started.ok) throw new Error(started.refusal.message);
  return started.value.state.id;
}

describe('a decision applied where nobody can perform its effects', () => {
  it("carries them on the run, in the change's own write, and its manager's server takes them once", () => {
    const { home, workspace } = store();
    const id = managedRunAtWork(home, workspace);
    const serve = new RunHost({ home, workspace, backend: 'sim', backendFor: () => recording() });
    cleanups.push(() => serve.close());

    const writes: unknown[] = [];
    serve.subscribe(({ state }) => writes.push(state.outbox));
    const nudged = serve.operate(id, { type: 'nudge', step: 'plan', message: 'keep it short' });
    // one write, with the change and its outbox together
    expect(writes).toEqual([[{ type: 'nudge-agent', step: 'plan', attempt: 1, message: 'keep it short' }]]);
    if (!nudged.ok) throw new Error(nudged.refusal.message);
    expect(nudged.value.outbox).toEqual([
      { type: 'nudge-agent', step: 'plan', attempt: 1, message: 'keep it short' },
    ]);
    const canceled = serve.operate(id, { type: 'cancel', reason: 'from the panel' });
    if (!canceled.ok) throw new Error(canceled.refusal.message);
    const outbox = canceled.value.outbox!;
    expect(outbox.map((e) => e.type)).toEqual(['nudge-agent', 'stop-agent', 'wake-manager']);
    expect(outbox[1]).toMatchObject({ type: 'stop-agent', step: 'plan', attempt: 1 });
    expect(outbox[2]).toMatchObject({ type: 'wake-manager', wakeups: [{ kind: 'run-ended' }] });
    // On disk, as the manager's server (another process) reads it.
    const reader = new RunHost({ home, workspace, backend: 'sim' });
    cleanups.push(() => reader.close());
    const taken = reader.takeOutbox(id);
    expect(taken.ok && taken.value).toEqual(outbox);
    const again = reader.takeOutbox(id);
    expect(again.ok && again.value).toEqual([]);
    const stored = reader.get(id);
    expect(stored.ok && stored.value.outbox).toBeUndefined();
  });

  it('is performed by the host that takes the run up, before anything else, and the outbox is emptied', () => {
    const { home, workspace } = store();
    // `runs pause` with no serve up: a host of no backend of its own changes the run in place. The run is
    // one serve hosts (its manager is the one serve records, HOST_MANAGER), left at work with no serve up.
    const cli = new RunHost({ home, workspace, backend: 'sim' });
    cleanups.push(() => cli.close());
    const how = { backend: () => recording() };
    const started = cli.startManaged(PR, { task: 'x' }, { manager: HOST_MANAGER }, how, (driver) => {
      driver.send({ type: 'start' });
      driver.send({ type: 'start-step', step: 'plan' });
      driver.send({ type: 'step-started', step: 'plan', attempt: 1, agent: 'agent-1' });
    });
    if (!started.ok) throw new Error(started.refusal.message);
    const id = started.value.state.id;
    const nudged = cli.operate(id, { type: 'nudge', step: 'plan', message: 'any news?' });
    expect(nudged.ok && nudged.value.outbox).toEqual([
      { type: 'nudge-agent', step: 'plan', attempt: 1, message: 'any news?' },
    ]);
    expect(cli.active).not.toContain(id);

    const backend = recording();
    const serve = new RunHost({ home, workspace, backend: 'sim', backendFor: () => backend });
    cleanups.push(() => serve.close());
    const paused = serve.operate(id, { type: 'pause' });
    if (!paused.ok) throw new Error(paused.refusal.message);
    expect(backend.performed[0]).toEqual({
      type: 'nudge-agent',
      step: 'plan',
      attempt: 1,
      message: 'any news?',
    });
    expect(paused.value.outbox).toBeUndefined();
    const stored = new RunHost({ home, workspace, backend: 'sim' });
    cleanups.push(() => stored.close());
    const onDisk = stored.get(id);
    expect(onDisk.ok && onDisk.value.outbox).toBeUndefined();
  });
});

describe('what is carried', () => {
  it("keeps gates in the run's state and never a check's environment", () => {
    expect(carry({ type: 'close-gate', step: 'ship', attempt: 1, reason: 'canceled' })).toBeUndefined();
    const check = carry({
      type: 'start-check',
      step: 'tests',
      attempt: 2,
      commands: ['npm test'],
      env: { TOKEN: 's3cret' },
      cwd: null,
      timeoutMs: 1000,
    });
    expect(check).toEqual({
      type: 'start-check',
      step: 'tests',
      attempt: 2,
      commands: ['npm test'],
      env: {},
      withheld: ['TOKEN'],
      cwd: null,
      timeoutMs: 1000,
    });
    expect(JSON.stringify(check)).not.toContain('s3cret');
  });

  it('loses a carried check whose environment was withheld, saying so, and starts one that had none', () => {
    const backend = recording();
    const emitted: unknown[] = [];
    const context = {
      emit: (event: unknown) => void emitted.push(event),
      submit: () => undefined,
      refusalOf: () => undefined,
      state: () => {
        throw new Error('not asked');
      },
    };
    const base = {
      type: 'start-check' as const,
      step: 'tests',
      commands: ['true'],
      env: {},
      cwd: null,
      timeoutMs: 1,
    };
    performCarried({ ...base, attempt: 1, withheld: ['TOKEN'] }, backend, context);
    expect(emitted).toEqual([
      {
        type: 'agent-lost',
        step: 'tests',
        attempt: 1,
        reason: 'its check was started where its environment (TOKEN) could not be kept: retry it',
      },
    ]);
    expect(backend.performed).toEqual([]);
    performCarried({ ...base, attempt: 2, withheld: [] }, backend, context);
    expect(backend.performed).toEqual([{ ...base, attempt: 2 }]);
  });
});

describe('a run another live process drives', () => {
  it('is asked through the mailbox (cancel, pause, resume), and refuses what only that process asks', async () => {
    const { home, workspace } = store();
    const cli = new RunHost({ home, workspace, backend: 'sim' });
    cleanups.push(() => cli.close());
    const started = cli.startManaged(
      PR,
      { task: 'x' },
      { manager: HOST_MANAGER },
      { backend: () => recording() },
      (driver) => driver.send({ type: 'start' }),
    );
    if (!started.ok) throw new Error(started.refusal.message);
    const id = started.value.state.id;
    // Another serve (or `kairoku-playbook run` at a terminal), in another process: a live pid in the owner file.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    cleanups.push(() => other.kill());
    await new Promise((resolve) => other.once('spawn', resolve));
    writeFileSync(join(home, 'runs', `${id}.owner`), `${JSON.stringify({ pid: other.pid })}\n`);

    let asked: number | undefined;
    const paused = cli.operate(id, { type: 'pause' }, (owner) => (asked = owner));
    expect(paused.ok && paused.value.status).toBe('running');
    expect(asked).toBe(other.pid);
    expect(readdirSync(join(home, 'runs')).filter((f) => f.includes('.request-'))).toHaveLength(1);
    expect(cli.operate(id, { type: 'decide', step: 'ship', choice: 'approve' })).toMatchObject({
      ok: false,
      refusal: { code: 'driven-elsewhere', kind: 'conflict' },
    });
  });
});
