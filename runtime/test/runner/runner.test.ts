import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatch, KairokuBackend } from '../../src/backends/kairoku/index.js';
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
  stopRunners,
  tempDir,
  waitFor,
  writeScript,
} from '../../../test/kit/index.js';
import type { RunnerProcess } from '../../../test/kit/index.js';
import { playbook } from '../helpers.js';

let repo: string;
let scratch: string;
let app: { backend: KairokuBackend; url: string; faults: string[] } | undefined;
const runners: RunnerProcess[] = [];

beforeAll(() => {
  ensureRunnerBuilt();
  repo = gitRepo();
  scratch = tempDir('kairoku-scratch-');
}, 240_000);

afterEach(async () => {
  await stopRunners(runners);
  await app?.backend.close();
  app = undefined;
});

afterAll(() => removeTempDirs());

async function runner(options: Omit<Parameters<typeof spawnRunner>[0], 'repo'>): Promise<RunnerProcess> {
  const started = await spawnRunner({ repo, ...options });
  runners.push(started);
  return started;
}

function worktrees(): string[] {
  return execFileSync('git', ['-C', repo, 'worktree', 'list', '--porcelain'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.startsWith('worktree '));
}

describe('the reference runner', { timeout: 150_000 }, () => {
  it('stops in full on a 401: no retries, exit code 3 (RF-012)', async () => {
    app = await startApp(repo);
    const started = await runner({ app: app.url, token: 'a-wrong-token-that-is-long-enough' });
    expect(await started.exit).toBe(3);
    expect(started.stderr.join('\n')).toContain('401');
    const log = runnerLog(started.workDir);
    expect(log.filter((l) => l.kind === 'unauthorized')).toHaveLength(1);
    expect(log.some((l) => l.kind === 'heartbeat-failed')).toBe(false);
  });

  it('serves GET /capacity on loopback and refuses a wildcard or LAN bind (RF-005, RF-006)', async () => {
    app = await startApp(repo);
    const started = await runner({ app: app.url, capacity: 3 });
    const capacity = (await (await fetch(started.capacity)).json()) as Record<string, unknown>;
    expect(capacity).toMatchObject({ running: 0, max: 3, runner: started.id });
    expect(new URL(started.capacity).hostname).toBe('127.0.0.1');
    await expect(spawnRunner({ app: app.url, repo, extra: ['--listen', '0.0.0.0:0'] })).rejects.toThrow(
      /wildcard/,
    );
    await expect(spawnRunner({ app: app.url, repo, extra: ['--listen', '192.168.1.5:0'] })).rejects.toThrow(
      /loopback only/,
    );
    // Spellings only a resolver reads are judged by what they resolve to (issue 11).
    for (const listen of ['0:0', '0x0:0', '0.0:0'])
      await expect(spawnRunner({ app: app.url, repo, extra: ['--listen', listen] })).rejects.toThrow(
        /exited with 1: .*refusing the wildcard address/,
      );
  });

  it('runs an agent in a fresh worktree under the dispatch’s tool policy, logs in full, and tears down', async () => {
    app = await startApp(repo);
    const launches = join(scratch, 'launches-policy');
    const script = writeScript(tempDir('kairoku-script-'), {
      work: [
        {
          outcome: 'done',
          outputs: { note: 'written' },
          launches,
          tools: [
            { tool: 'write', path: 'notes.txt' },
            { tool: 'write', path: '../../outside.txt' },
            { tool: 'run', command: 'rm -rf /' },
          ],
        },
      ],
    });
    const ir = playbook(
      `  work:
    role: writer
    prompt: Write the notes
    outputs: { note: string }
`,
      'roles:\n  writer:\n    base: implementer\n    tools: { run: ["npm test"] }\n',
    );
    const driver = startRun(app.backend, ir, 'run-policy');
    const started = await runner({ app: app.url, script });
    await waitFor(
      'the run to complete',
      () => driver.state.status === 'completed',
      60_000,
      () =>
        JSON.stringify(
          [app!.backend.dispatches(), history(driver.state), runnerLog(started.workDir), started.stderr],
          null,
          1,
        ),
    );
    await waitFor('the dispatch to be released', () =>
      runnerLog(started.workDir).some((l) => l.kind === 'released'),
    );
    expect(stepRun(driver.state, 'work')!.attempts[0]).toMatchObject({
      outcome: 'done',
      outputs: { note: 'written' },
    });
    const denials = history(driver.state).filter((h) => h.text.includes('tool call denied'));
    expect(denials.map((d) => d.text).join('\n')).toMatch(/outside\.txt.*outside the worktree/);
    expect(denials.map((d) => d.text).join('\n')).toMatch(/rm -rf \/.*matches none of its commands/);
    const [view] = app.backend.dispatches('run-policy');
    expect(view!.end).toBe('completed');
    const kinds = view!.events.map((e) => e.kind);
    expect(kinds).toContain('tool-call');
    expect(kinds).toContain('denial');
    expect(view!.events.some((e) => e.text.includes('not curated'))).toBe(false);
    // The full log on disk holds what the curated events leave out (RF-003).
    const full = readFileSync(join(started.workDir, 'logs', `${view!.id}.jsonl`), 'utf8');
    expect(full).toContain('not curated');
    expect(full).not.toContain(readToken(started));
    // Teardown: the worktree is gone, the breadcrumb too, the token revoked.
    expect(readdirSync(join(started.workDir, 'worktrees'))).toEqual([]);
    expect(readdirSync(join(started.workDir, 'dispatches'))).toEqual([]);
    expect(worktrees()).toHaveLength(1);
    expect(app.backend.tokens()).toEqual({ minted: 1, live: 0 });
    expect(readdirSync(launches)).toEqual(['work.1']);
  });

  it('starts a dispatch from the run’s branch once an earlier step moved it, so work reaches the next step', async () => {
    app = await startApp(repo);
    const script = writeScript(tempDir('kairoku-script-'), {
      build: [{ outcome: 'done', commit: 'made.txt' }],
    });
    const ir = playbook(
      `  build:
    role: implementer
    prompt: Make the file and push it to the run's branch
  verify:
    needs: [build]
    run: [test -f made.txt]
`,
    );
    const branch = 'playbooks/t-carry1';
    const driver = startRun(app.backend, ir, 'run-carry', {}, branch);
    const started = await runner({ app: app.url, script });
    await waitFor(
      'the run to end',
      () => driver.state.status !== 'running',
      60_000,
      () => JSON.stringify([history(driver.state), runnerLog(started.workDir), started.stderr], null, 1),
    );
    expect(driver.state.status).toBe('completed');
    expect(stepRun(driver.state, 'verify')!.attempts[0]).toMatchObject({ outcome: 'pass' });
    // The run's branch holds the agent's commit; the checkout's own branch did not move.
    expect(execFileSync('git', ['-C', repo, 'log', '-1', '--format=%s', branch], { encoding: 'utf8' })).toBe(
      'build: made.txt\n',
    );
    expect(existsSync(join(repo, 'made.txt'))).toBe(false);
  });

  it('refuses a role outside its fixed table, one dispatch at a time (RF-009)', async () => {
    const updates: Record<string, unknown>[] = [];
    let handed = false;
    const fake = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        const body = JSON.parse(text) as Record<string, unknown>;
        const route = req.url!.slice('/v1/'.length);
        let answer: unknown;
        if (route === 'heartbeat') answer = { intervalMs: 100, missLimit: 3, cancel: [], drain: false };
        else if (route === 'claim') {
          answer = { dispatches: handed ? [] : [badDispatch()] };
          handed = true;
        } else if (route === 'update') {
          updates.push(body);
          answer = { accepted: true, duplicate: false, cancel: false };
        } else answer = { acknowledged: true };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
      const started = await runner({ app: url });
      const terminal = await waitFor('the terminal update', () =>
        updates.find((u) => (u.terminal as { status?: string } | undefined)?.status),
      );
      expect(terminal.terminal).toMatchObject({ status: 'refused' });
      expect((terminal.terminal as { reason: string }).reason).toMatch(
        /role "admin" is not in this runner's fixed table/,
      );
      const log = runnerLog(started.workDir);
      expect(log.some((l) => l.kind === 'launch')).toBe(false);
      expect(log.some((l) => l.kind === 'refused')).toBe(true);
    } finally {
      fake.closeAllConnections();
      await new Promise((resolve) => fake.close(resolve));
    }

    function badDispatch(): Dispatch {
      return {
        id: 'd-bad-role',
        run: 'run-x',
        playbook: 'x',
        step: 'work',
        attempt: 1,
        kind: 'agent',
        title: 'work',
        repository: execFileSync('realpath', [repo], { encoding: 'utf8' }).trim(),
        baseBranch: 'main',
        branch: '',
        machine: null,
        wallClockMs: 60_000,
        agent: {
          role: 'admin',
          playbookRole: 'admin',
          instructions: null,
          provider: null,
          model: null,
          mode: null,
          policy: { read: true, edit: true, write: true, network: true, run: true, mcp: true },
          readOnly: false,
          firstMessage: 'do anything',
          outcomes: ['done'],
          report: { url: 'http://127.0.0.1:1/mcp', token: 'x'.repeat(32), tool: 'report_step_result' },
        },
      };
    }
  });

  it('kills the process group at the wall clock (RF-018); the step times out', async () => {
    app = await startApp(repo);
    const launches = join(scratch, 'launches-clock');
    const script = writeScript(tempDir('kairoku-script-'), { slow: [{ hang: true, launches }] });
    const ir = playbook(`  slow:
    role: implementer
    prompt: Take forever
    timeout: 1s
`);
    const driver = startRun(app.backend, ir, 'run-clock');
    const started = await runner({ app: app.url, script });
    await waitFor('the run to fail', () => driver.state.status === 'failed');
    expect(stepRun(driver.state, 'slow')!.attempts[0]).toMatchObject({ ended: 'timeout' });
    expect(app.backend.dispatches('run-clock')[0]!.end).toBe('timed-out');
    const pid = Number(readFileSync(join(launches, 'slow.1'), 'utf8').trim());
    await waitFor('the agent to be gone', () => !alive(pid));
    await waitFor(
      'the worktree to be removed',
      () => readdirSync(join(started.workDir, 'worktrees')).length === 0,
    );
  });

  it('tears everything down on SIGTERM and reports the dispatch interrupted (RF-010)', async () => {
    app = await startApp(repo);
    const launches = join(scratch, 'launches-term');
    const script = writeScript(tempDir('kairoku-script-'), { work: [{ hang: true, launches }] });
    const ir = playbook(`  work:
    role: implementer
    prompt: Work
`);
    const driver = startRun(app.backend, ir, 'run-term');
    const started = await runner({ app: app.url, script });
    await waitFor('the agent to start', () => existsSync(join(launches, 'work.1')));
    const pid = Number(readFileSync(join(launches, 'work.1'), 'utf8').trim());
    started.child.kill('SIGTERM');
    expect(await started.exit).toBe(0);
    await waitFor('the agent to be gone', () => !alive(pid), 5000);
    expect(readdirSync(join(started.workDir, 'worktrees'))).toEqual([]);
    expect(app.backend.dispatches('run-term')[0]).toMatchObject({ end: 'interrupted' });
    expect(driver.state.status).toBe('failed');
    expect(history(driver.state).some((h) => h.kind === 'agent-lost' && h.text.includes('shut down'))).toBe(
      true,
    );
    const kinds = runnerLog(started.workDir).map((l) => l.kind);
    expect(kinds).toContain('drain-ack');
    expect(app.backend.runnerViews()).toEqual([]);
    expect(app.backend.tokens().live).toBe(0);
  });
});

function readToken(runner: RunnerProcess): string {
  const text = readFileSync(join(runner.workDir, '..', 'token.env'), 'utf8');
  return text.split('=')[1]!.trim();
}
