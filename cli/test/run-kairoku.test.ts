/**
 * `kairoku-playbook run --backend kairoku` and `kairoku-playbook runner` as whole processes (the
 * built CLI): the run serves the runner routes on 127.0.0.1, two reference runners claim its steps,
 * their agents (the runtime tests' fake provider) report with their dispatches' tokens.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, gitRepo, tempDir } from '../../test/kit/index.js';

const repoRoot = new URL('../../', import.meta.url).pathname;
const fakeAgent = join(repoRoot, 'runtime/test/fixtures/kairoku/fake-agent.mjs');

const PLAYBOOK = `version: 1
id: fleet
title: Fleet run
inputs:
  task: { type: string }
steps:
  plan:
    role: planner
    prompt: Plan \${{ inputs.task }}
    outputs: { plan: string }
  left:
    needs: [plan]
    role: implementer
    prompt: Left half of \${{ steps.plan.outputs.plan }}
  right:
    needs: [plan]
    role: implementer
    prompt: Right half of \${{ steps.plan.outputs.plan }}
  tests:
    needs: [left, right]
    run: node -e "console.log('# pass 3'); console.log('# fail 0')"
  ship:
    needs: [tests]
    gate:
      title: Ship?
      choices: { approve: next, reject: fail }
`;

let root: string;
let repo: string;
let home: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  root = tempDir('kp-cli-kairoku-');
  repo = gitRepo({ dir: join(root, 'repo'), files: { 'playbooks/fleet.yml': PLAYBOOK } });
  home = join(root, 'home');
});

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

function start(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: repo,
    env: { ...process.env, KAIROKU_PLAYBOOK_HOME: home, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const stderr: string[] = [];
  const lines = createInterface({ input: child.stderr! });
  lines.on('line', (line) => stderr.push(line));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stderr, exit, stdout: () => stdout, lines };
}

/** A reference runner process of the built CLI whose agents are the fake provider, scripted by `script`. */
function startRunner(id: string, app: string, tokenFile: string, script: string) {
  return start([
    'runner',
    '--app',
    app,
    '--token-file',
    tokenFile,
    '--repo',
    repo,
    '--id',
    id,
    '--work-dir',
    join(root, id),
    '--heartbeat-ms',
    '200',
    '--claim-ms',
    '50',
    '--agent-command',
    `${JSON.stringify(process.execPath)} ${JSON.stringify(fakeAgent)} --script ${JSON.stringify(script)}`,
  ]);
}

describe('run --backend kairoku with runner processes', () => {
  it('serves runners that claim and finish the run; the app token comes from the home’s token.env', async () => {
    const run = start([
      'run',
      'playbooks/fleet.yml',
      '--backend',
      'kairoku',
      '--input',
      'task=split',
      '--gate',
      'ship=approve',
      '--json',
    ]);
    // The run says where runners dial in and how to start one.
    const serving = await new Promise<string>((resolve, reject) => {
      run.lines.on('line', (line) => {
        if (line.includes('serving Kairoku runners at')) resolve(line);
      });
      // An exit before the line fails the wait; after it, rejecting a settled promise does nothing.
      void run.exit.then((code) =>
        reject(new Error(`the run exited with ${code}: ${run.stderr.join('\n')}`)),
      );
    });
    const app = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(serving)![1]!;
    const tokenFile = /--token-file (\S+)/.exec(serving)![1]!;
    expect(tokenFile).toBe(join(home, 'kairoku', 'token.env'));
    expect(readFileSync(tokenFile, 'utf8')).toMatch(/^KAIROKU_TOKEN=\S{16,}\n$/);

    const script = join(root, 'script.json');
    writeFileSync(script, JSON.stringify({ plan: [{ outcome: 'done', outputs: { plan: 'halves' } }] }));
    const runners = ['a', 'b'].map((id) => startRunner(`runner-${id}`, app, tokenFile, script));

    const code = await run.exit;
    expect(run.stderr.filter((l) => !l.includes('serving Kairoku runners'))).toEqual([]);
    expect(code).toBe(0);
    const end = JSON.parse(run.stdout()) as { status: string; steps: Record<string, { status: string }> };
    expect(end.status).toBe('completed');
    expect(Object.values(end.steps).map((s) => s.status)).toEqual(Array(5).fill('completed'));

    // A runner stops on SIGTERM, tearing down what it holds, and exits 0.
    for (const runner of runners) runner.child.kill('SIGTERM');
    expect(await Promise.all(runners.map((r) => r.exit))).toEqual([0, 0]);
  }, 60_000);

  it('runs playbooks/pr.yml to its end on two runners: agents, the real qa check, the review, the gate', async () => {
    writeFileSync(
      join(repo, 'playbooks', 'pr.yml'),
      readFileSync(join(repoRoot, 'playbooks', 'pr.yml'), 'utf8'),
    );
    writeFileSync(
      join(repo, 'package.json'),
      JSON.stringify({
        name: 'shop',
        private: true,
        scripts: {
          lint: 'node -e "0"',
          test: "node -e \"console.log('# pass 4'); console.log('# fail 0')\"",
        },
      }),
    );
    spawnSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'add', '.'], { cwd: repo });
    spawnSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'pr'], {
      cwd: repo,
    });
    const run = start(
      [
        'run',
        'playbooks/pr.yml',
        '--backend',
        'kairoku',
        '--input',
        'task=t',
        '--input',
        'strict=true',
        '--gate',
        'ship=approve',
        '--json',
      ],
      { KAIROKU_APP_TOKEN: 'an-app-token-for-the-pr-run' },
    );
    const serving = await new Promise<string>((resolve, reject) => {
      run.lines.on('line', (line) => line.includes('serving Kairoku runners at') && resolve(line));
      // An exit before the line fails the wait; after it, rejecting a settled promise does nothing.
      void run.exit.then((code) =>
        reject(new Error(`the run exited with ${code}: ${run.stderr.join('\n')}`)),
      );
    });
    const app = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(serving)![1]!;
    const tokenFile = join(root, 'app-token.env');
    writeFileSync(tokenFile, 'KAIROKU_TOKEN=an-app-token-for-the-pr-run\n');
    const script = join(root, 'pr-script.json');
    writeFileSync(
      script,
      JSON.stringify({
        plan: [{ outcome: 'done', outputs: { plan: 'add the flag', files: ['cli.ts'] } }],
        implement: [{ outcome: 'done', outputs: { branch: 'feat/json' } }],
        review: [{ outcome: 'approved', outputs: { verdict: 'approve' } }],
      }),
    );
    const runners = ['a', 'b'].map((id) => startRunner(`pr-runner-${id}`, app, tokenFile, script));
    expect(await run.exit).toBe(0);
    const end = JSON.parse(run.stdout()) as {
      status: string;
      steps: Record<string, { status: string; attempts: { outcome: string | null }[] }>;
      after: Record<string, { status: string }>;
    };
    expect(end.status).toBe('completed');
    expect(end.steps.qa!.attempts.map((a) => a.outcome)).toEqual(['pass']);
    expect(end.steps.review!.attempts.map((a) => a.outcome)).toEqual(['approved']);
    expect(end.after.summarize!.status).toBe('completed');
    for (const runner of runners) runner.child.kill('SIGTERM');
    expect(await Promise.all(runners.map((r) => r.exit))).toEqual([0, 0]);
  }, 90_000);

  it('a runner with the wrong credential stops for good (401), saying so', async () => {
    const run = start(
      ['run', 'playbooks/fleet.yml', '--backend', 'kairoku', '--input', 'task=t', '--listen', '127.0.0.1:0'],
      {
        KAIROKU_APP_TOKEN: 'the-right-token-of-the-app',
      },
    );
    const serving = await new Promise<string>((resolve) =>
      run.lines.on('line', (line) => line.includes('serving Kairoku runners at') && resolve(line)),
    );
    const app = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(serving)![1]!;
    const wrong = join(root, 'wrong.env');
    writeFileSync(wrong, 'KAIROKU_TOKEN=not-the-token-at-all\n');
    const runner = start([
      'runner',
      '--app',
      app,
      '--token-file',
      wrong,
      '--repo',
      repo,
      '--work-dir',
      join(root, 'w'),
    ]);
    const code = await runner.exit;
    expect(code).not.toBe(0);
    expect(runner.stderr.join('\n')).toMatch(/401/);
    run.child.kill('SIGINT');
    await run.exit;
  }, 30_000);

  it('refuses a --listen that is not HOST:PORT', async () => {
    const run = start([
      'run',
      'playbooks/fleet.yml',
      '--backend',
      'kairoku',
      '--input',
      'task=t',
      '--listen',
      'nowhere',
    ]);
    expect(await run.exit).toBe(2);
    expect(run.stderr.join('\n')).toContain('--listen takes HOST:PORT');
  });
});
