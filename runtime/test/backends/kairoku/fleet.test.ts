import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { Dispatch, KairokuBackend } from '../../../src/backends/kairoku/index.js';
import { stepRun } from '@kairoku-playbook/machine';
import {
  alive,
  ensureRunnerBuilt,
  gitRepo,
  history,
  removeTempDirs,
  runnerLog,
  spawnRunner,
  startApp,
  startRun,
  tempDir,
  waitFor,
  writeScript,
} from '../../../../test/kit/index.js';
import type { RunnerProcess } from '../../../../test/kit/index.js';
import { compile } from '../../helpers.js';

const FLAKY_CHECK = new URL('../../fixtures/kairoku/flaky-check.mjs', import.meta.url).pathname;
const cleanup: (() => Promise<void> | void)[] = [];

afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

describe('a fleet of runner processes', () => {
  it('finishes a run with parallel steps, a check and a loop while one runner is killed mid-dispatch', async () => {
    ensureRunnerBuilt();
    const repo = gitRepo();
    const scratch = tempDir('kairoku-fleet-');
    cleanup.push(() => removeTempDirs());
    const counter = join(scratch, 'check-runs');
    const launches = join(scratch, 'agent-launches');
    const ir = compile(`version: 1
id: fleet
title: Parallel work, a check and a loop on a fleet
steps:
  plan:
    role: planner
    prompt: Plan the change
    outputs: { plan: string }
  left:
    needs: [plan]
    role: implementer
    prompt: "Left half of: \${{ steps.plan.outputs.plan }}"
  right:
    needs: [plan]
    role: implementer
    prompt: Right half
    retries: 1
  qa:
    needs: [left, right]
    run: ["node ${FLAKY_CHECK} ${counter}"]
    outcomes:
      pass: next
      fail: { loop: left, max: 2, feedback: "Tests failed: \${{ report.summary }}" }
  review:
    needs: [qa]
    role: reviewer
    prompt: Review both halves
`);
    const script = writeScript(scratch, {
      plan: [{ outcome: 'done', outputs: { plan: 'split in two' }, launches }],
      left: [{ launches }],
      // The first attempt of `right` never ends by itself: its runner is killed while it runs.
      right: [{ hang: true, launches, tokenFile: join(launches, '..', 'right.1.token') }, { launches }],
      review: [{ launches }],
    });

    const app: { backend: KairokuBackend; url: string } = await startApp(repo);
    cleanup.push(() => app.backend.close());
    const runners: RunnerProcess[] = [];
    cleanup.push(async () => {
      for (const r of runners)
        if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
      await Promise.all(runners.map((r) => r.exit));
    });
    for (const _ of [1, 2, 3]) runners.push(await spawnRunner({ app: app.url, repo, script }));

    const driver = startRun(app.backend, ir, 'run-fleet');

    // Kill (SIGKILL) whichever runner holds the first attempt of `right`, once its agent runs.
    const explain = () =>
      JSON.stringify(
        {
          dispatches: app.backend
            .dispatches('run-fleet')
            .map(({ events, ...d }) => ({ ...d, events: events.map((e) => e.text) })),
          history: history(driver.state).map((h) => `${h.kind}: ${h.text}`),
          logs: runners.map((r) => [runnerLog(r.workDir), r.stderr]),
        },
        null,
        1,
      );
    const held = await waitFor(
      'a runner to run right (attempt 1)',
      () =>
        app.backend
          .dispatches('run-fleet')
          .find(
            (d) =>
              d.step === 'right' &&
              d.attempt === 1 &&
              d.state === 'held' &&
              existsSync(join(launches, 'right.1')),
          ),
      60_000,
      explain,
    );
    const victim = runners.find((r) => r.id === held.runner)!;
    // The agent creates the file before it writes its pid there: an empty read is pid 0, which
    // `kill(0, 0)` (the test's own process group) would report alive forever.
    const orphanPid = await waitFor('the agent’s pid', () => {
      const pid = Number(readFileSync(join(launches, 'right.1'), 'utf8').trim());
      return pid > 0 ? pid : undefined;
    });
    const breadcrumb = JSON.parse(
      readFileSync(join(victim.workDir, 'dispatches', `${held.id}.json`), 'utf8'),
    ) as Dispatch;
    // The dispatch file holds no token (issue 11): the agent was given it in its environment.
    const token = await waitFor('the agent’s token', () => {
      const path = join(launches, '..', 'right.1.token');
      return existsSync(path) ? readFileSync(path, 'utf8') || undefined : undefined;
    });
    expect(breadcrumb.agent!.report.token).toBe('••••••');
    victim.child.kill('SIGKILL');
    await victim.exit;

    await waitFor(
      'the run to end',
      () => driver.state.status !== 'running' && driver.state.status,
      90_000,
      explain,
    );
    expect(driver.state.status).toBe('completed');

    // As the playbook says: right lost once and retried; qa failed once and looped back to left.
    const outcomes = (name: string) => stepRun(driver.state, name)!.attempts.map((a) => a.outcome ?? a.ended);
    expect(outcomes('plan')).toEqual(['done']);
    expect(outcomes('right')).toEqual(['lost', 'done']);
    expect(outcomes('left')).toEqual(['done', 'done']);
    expect(outcomes('qa')).toEqual(['fail', 'pass']);
    expect(outcomes('review')).toEqual(['done']);
    expect(driver.state.loops).toEqual({ 'qa.fail': 1 });
    expect(stepRun(driver.state, 'qa')!.attempts[0]!.outputs).toEqual({
      passed: 2,
      failed: 1,
      skipped: 0,
      todo: 0,
      exit_code: 1,
    });
    expect(stepRun(driver.state, 'left')!.attempts[1]!.feedback).toContain('Tests failed');
    expect(
      history(driver.state).some(
        (h) => h.kind === 'agent-lost' && h.text.includes(`runner ${victim.id} missed`),
      ),
    ).toBe(true);

    // No step attempt ran twice: one launch per step and attempt over all the runners' logs, and
    // the killed runner's attempt was failed, not relaunched.
    const launchLines = runners.flatMap((r) =>
      runnerLog(r.workDir)
        .filter((l) => l.kind === 'launch')
        .map((l) => ({ key: `${l.step}.${l.attempt}`, runner: r.id })),
    );
    const keys = launchLines.map((l) => l.key).sort();
    expect(keys).toEqual(['left.1', 'left.2', 'plan.1', 'qa.1', 'qa.2', 'review.1', 'right.1', 'right.2']);
    expect(launchLines.find((l) => l.key === 'right.1')!.runner).toBe(victim.id);
    expect(new Set(launchLines.map((l) => l.runner)).size).toBeGreaterThan(1);
    for (const file of readdirSync(launches))
      expect(readFileSync(join(launches, file), 'utf8').trim().split('\n'), file).toHaveLength(1);
    expect(readFileSync(counter, 'utf8')).toBe('2');

    // Every token was revoked, the killed runner's too.
    expect(app.backend.tokens()).toEqual({ minted: 6, live: 0 });
    expect(app.backend.reportEndpoint!.liveTokens()).toBe(0);
    const client = new Client({ name: 'late', version: '1' });
    await client
      .connect(
        new StreamableHTTPClientTransport(new URL(breadcrumb.agent!.report.url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      )
      .then(
        () => expect.unreachable('a revoked token connected'),
        (error: Error) => expect(error.message).toMatch(/revoked/),
      );
    await client.close().catch(() => undefined);
    // The killed runner's agent noticed its runner was gone and ended.
    await waitFor('the orphaned agent to end', () => !alive(orphanPid), 30_000);

    // The killed runner, restarted on its folder: it removes what its dead process left and reports
    // the dispatch failed; the app, which already failed it, refuses that, and nothing is relaunched.
    const restarted = await spawnRunner({
      app: app.url,
      repo,
      script,
      home: dirname(victim.workDir),
      id: victim.id,
    });
    runners.push(restarted);
    await waitFor('the restarted runner to recover', () =>
      runnerLog(restarted.workDir).some((l) => l.kind === 'registered'),
    );
    expect(runnerLog(restarted.workDir).filter((l) => l.kind === 'recovered')).toHaveLength(1);
    await waitFor('the survivors to release their worktrees', () =>
      runners.every((r) => readdirSync(join(r.workDir, 'worktrees')).length === 0),
    );
    expect(
      execFileSync('git', ['-C', repo, 'worktree', 'list', '--porcelain'], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l.startsWith('worktree ')),
    ).toHaveLength(1);
    expect(stepRun(driver.state, 'right')!.attempts).toHaveLength(2);
  }, 240_000);
});
