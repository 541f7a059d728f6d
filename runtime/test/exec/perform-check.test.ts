import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Backend, BackendContext, BackendEffect } from '../../src/driver/backend.js';
import { createRun, MASK, prepareInputs, stepRun } from '@kairoku-playbook/machine';
import type { RunEvent, RunState } from '@kairoku-playbook/machine';
import { CheckRunner } from '../../src/exec/check-runner.js';
import { checkDirectory, performCheck } from '../../src/exec/perform-check.js';
import type { StartCheck } from '../../src/exec/perform-check.js';
import { LiveRun } from '../../src/host/live-run.js';
import { playbook } from '../helpers.js';
import { alive, tempDir, waitFor } from '../../../test/kit/index.js';

const worktree = tempDir('exec-check-');
mkdirSync(join(worktree, 'pkg'));
symlinkSync(tmpdir(), join(worktree, 'out'));
afterAll(() => rmSync(worktree, { recursive: true, force: true }));

/** A BackendContext that collects what is emitted. */
function fakeContext(id = 'run-1'): { context: BackendContext; events: RunEvent[] } {
  const events: RunEvent[] = [];
  const emit = (event: RunEvent) => void events.push(event);
  const submit = (event: RunEvent) => void events.push(event);
  const refusalOf = () => undefined;
  return { events, context: { emit, submit, refusalOf, state: () => ({ id }) as RunState } };
}

function effect(commands: string[], more: Partial<StartCheck> = {}): StartCheck {
  return {
    type: 'start-check',
    step: 'qa',
    attempt: 1,
    commands,
    env: {},
    cwd: null,
    timeoutMs: 60_000,
    ...more,
  };
}

const started = { type: 'step-started', step: 'qa', attempt: 1, agent: 'check:run-1:qa:1' };

describe('performCheck', { timeout: 20_000 }, () => {
  it('emits step-started with the check’s handle, then the report of its commands', async () => {
    const { context, events } = fakeContext();
    const check = performCheck(
      effect(['echo "key=$KEY"', 'printf "ok 1\\nnot ok 2 # TODO later\\n"'], { env: { KEY: 'secret-1' } }),
      context,
      { cwd: worktree },
    );
    expect(check.agent).toBe('check:run-1:qa:1');
    expect(events).toEqual([started]);
    await check.done;
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({
      type: 'report',
      step: 'qa',
      attempt: 1,
      outcome: 'pass',
      outputs: { passed: 1, failed: 0, skipped: 0, todo: 1, exit_code: 0 },
    });
    const summary = (events[1] as { summary: string }).summary;
    expect(summary).toContain(`key=${MASK}`);
    expect(summary).not.toContain('secret-1');
  });

  it('reports fail with the exit code of the command that failed', async () => {
    const { context, events } = fakeContext();
    await performCheck(effect(['exit 4']), context, { cwd: worktree }).done;
    expect(events[1]).toMatchObject({ type: 'report', outcome: 'fail', outputs: { exit_code: 4 } });
  });

  it('runs in the effect’s cwd, relative to the worktree', async () => {
    const { context, events } = fakeContext();
    await performCheck(effect(['pwd'], { cwd: 'pkg' }), context, { cwd: worktree }).done;
    expect((events[1] as { summary: string }).summary).toMatch(/\n\n.*\/pkg$/);
  });

  it.each(['..', 'pkg/../..', '/etc', 'out'])(
    'refuses a cwd that leads out of the worktree: %s',
    async (cwd) => {
      const { context, events } = fakeContext();
      const marker = join(tmpdir(), `exec-refused-${process.pid}`);
      await performCheck(effect([`touch ${marker}`], { cwd }), context, { cwd: worktree }).done;
      expect(events).toEqual([
        started,
        {
          type: 'report',
          step: 'qa',
          attempt: 1,
          outcome: 'fail',
          summary: `fail: the check's cwd ${JSON.stringify(cwd)} leads out of the worktree`,
          outputs: { passed: 0, failed: 0, skipped: 0, todo: 0, exit_code: -1 },
        },
      ]);
      expect(existsSync(marker)).toBe(false);
    },
  );

  it('emits timeout, not a report, when the step’s timeout ends it', async () => {
    const { context, events } = fakeContext();
    await performCheck(effect(['sleep 300'], { timeoutMs: 300 }), context, {
      cwd: worktree,
      killGraceMs: 300,
    }).done;
    expect(events).toEqual([started, { type: 'timeout', step: 'qa', attempt: 1 }]);
  });

  it('emits nothing more once stopped, and its processes are gone', async () => {
    const { context, events } = fakeContext();
    const file = join(worktree, 'stopped.pid');
    const check = performCheck(effect([`echo $$ > ${file}; sleep 300`, 'echo never']), context, {
      cwd: worktree,
      killGraceMs: 300,
    });
    await waitFor(
      'the pid file',
      () => existsSync(file) && readFileSync(file, 'utf8').endsWith('\n'),
      15_000,
    );
    const pid = Number(readFileSync(file, 'utf8'));
    check.stop('canceled by request');
    await check.done;
    expect(events).toEqual([started]);
    expect(alive(pid)).toBe(false);
  });
});

describe('CheckRunner', { timeout: 20_000 }, () => {
  it('stops a check for stop-agent, all of them on shutdown, and knows which are going', async () => {
    const runner = new CheckRunner({ worktree, killGraceMs: 300 });
    const a = fakeContext('run-a');
    const b = fakeContext('run-b');
    const first = runner.start(effect(['sleep 300']), a.context);
    const second = runner.start(effect(['sleep 300'], { step: 'lint' }), b.context);
    const third = runner.start(effect(['sleep 300']), b.context);
    expect(runner.has('check:run-a:qa:1')).toBe(true);
    expect(runner.size).toBe(3);
    // a runner serving several runs names the run
    expect(runner.stop('qa', 1, 'timed out', 'run-a')).toBe(true);
    await first.done;
    expect(runner.has('check:run-a:qa:1')).toBe(false);
    expect(runner.has('check:run-b:qa:1')).toBe(true);
    expect(runner.stop('qa', 2, 'no such attempt')).toBe(false);
    await runner.stopAll('shutdown');
    await Promise.all([second.done, third.done]);
    expect(runner.size).toBe(0);
    expect([...a.events, ...b.events].map((e) => e.type)).toEqual([
      'step-started',
      'step-started',
      'step-started',
    ]);
  });
});

describe('checkDirectory', () => {
  it('is the worktree, or a directory inside it (one that does not exist yet is the run’s to report)', () => {
    expect(checkDirectory(worktree, null)).toBe(worktree);
    expect(checkDirectory(worktree, 'pkg/')).toBe(join(worktree, 'pkg'));
    expect(checkDirectory(worktree, 'pkg/../pkg')).toBe(join(worktree, 'pkg'));
    expect(checkDirectory(worktree, 'missing')).toBe(join(worktree, 'missing'));
    expect(checkDirectory(worktree, '..hidden')).toBe(join(worktree, '..hidden'));
    expect(checkDirectory(worktree, '../x')).toEqual({ refused: expect.stringContaining('leads out') });
  });
});

/** Checks for real, agents and gates not at all: what a paseo or kairoku backend does with checks. */
class ChecksBackend implements Backend {
  readonly name = 'checks';
  readonly runner = new CheckRunner({ worktree, killGraceMs: 300 });
  perform(effect: BackendEffect, context: BackendContext): void {
    if (effect.type === 'start-check') this.runner.start(effect, context);
    if (effect.type === 'stop-agent') this.runner.stop(effect.step, effect.attempt, effect.reason);
  }
  agentExists(agent: string | undefined): boolean {
    return this.runner.has(agent);
  }
}

describe('checks in a live run', { timeout: 20_000 }, () => {
  it('run to the end with the core taking their reports, secrets masked in the run', async () => {
    const ir = playbook(
      `  lint:
    run: [echo linted]
  tests:
    needs: lint
    run: ['test "\${#TOKEN}" = 9', 'echo "using $TOKEN"; printf "ok 1\\nok 2 # SKIP slow\\n"']
    env: { TOKEN: '\${{ inputs.token }}' }
`,
      'inputs:\n  token: { type: string, secret: true }\n',
    );
    const prepared = prepareInputs(ir, { token: 'tok-12345' });
    if (!prepared.ok) throw new Error(prepared.errors.join('; '));
    const backend = new ChecksBackend();
    const live = new LiveRun({
      backend,
      state: createRun(ir, { id: 'live-checks', inputs: prepared.inputs, now: Date.now() }),
      secrets: { token: 'tok-12345' },
    });
    expect(live.begin()).toBeUndefined();
    const state = await live.done;
    expect(live.refusals).toEqual([]);
    expect(state.status).toBe('completed');
    const tests = stepRun(state, 'tests')!;
    expect(tests.outputs).toEqual({ passed: 1, failed: 0, skipped: 1, todo: 0, exit_code: 0 });
    expect(tests.attempts[0]!.agent).toBe('check:live-checks:tests:1');
    expect(tests.summary).toContain(`using ${MASK}`);
    expect(JSON.stringify(state)).not.toContain('tok-12345');
  });

  it('a check that runs past its timeout ends its attempt (the core then stops it, a no-op)', async () => {
    const ir = playbook(`  slow:\n    run: [sleep 300]\n    timeout: 1s\n`);
    const backend = new ChecksBackend();
    const live = new LiveRun({
      backend,
      state: createRun(ir, { id: 'live-slow', inputs: {}, now: Date.now() }),
      tickMs: 60_000,
    });
    expect(live.begin()).toBeUndefined();
    const state = await live.done;
    expect(state.status).toBe('failed');
    expect(stepRun(state, 'slow')!.attempts[0]!.ended).toBe('timeout');
    await waitFor('the check to end', () => backend.runner.size === 0, 15_000);
    // nothing came after: a late report or timeout would be refused, and noted in the run
    expect(live.refusals).toEqual([]);
  });
});
