/**
 * `kairoku-playbook run --backend paseo` as a whole process (the built CLI) against the fake Paseo
 * daemon of the runtime's tests, served in this process on 127.0.0.1.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CLI,
  FakePaseoDaemon,
  gitRepo,
  removeDir,
  reports,
  runsUntilCanceled,
  silent,
  tempDir,
} from '../../test/kit/index.js';
import { gateFlags } from '../src/commands/run-drive.js';
import { compilePlaybook } from '@kairoku-playbook/compiler';

const repoRoot = new URL('../../', import.meta.url).pathname;

const PLAYBOOK = `version: 1
id: live
title: Live run
workspace: new-worktree
inputs:
  task: { type: string }
  token: { type: string, secret: true }
steps:
  work:
    role: implementer
    prompt: Do \${{ inputs.task }}
    outputs: { note: string }
  tests:
    needs: [work]
    run: node -e "console.log('ok 1 - a'); console.log('ok 2 - b'); console.log('# pass 2'); console.log('# fail 0')"
    env: { TOKEN: '\${{ inputs.token }}' }
  ship:
    needs: [tests]
    gate:
      title: Ship \${{ steps.work.outputs.note }}?
      choices: { approve: next, reject: fail }
outputs:
  note: \${{ steps.work.outputs.note }}
`;

/** `run` of live.yml on the daemon with throwaway inputs; the tests add their flags. */
const LIVE_RUN = [
  'run',
  'playbooks/live.yml',
  '--backend',
  'paseo',
  '--input',
  'task=t',
  '--input-env',
  'token=KP_TEST_TOKEN',
];

let root: string;
let repo: string;
let home: string;
const cleanup: (() => Promise<void> | void)[] = [];

beforeEach(() => {
  root = tempDir('kp-paseo-');
  repo = gitRepo({ dir: join(root, 'repo') });
  home = tempDir('kp-live-home-');
  mkdirSync(join(repo, 'playbooks'));
  writeFileSync(join(repo, 'playbooks', 'live.yml'), PLAYBOOK);
});

afterEach(async () => {
  for (const done of cleanup.splice(0).reverse()) await done();
  removeDir(root);
  rmSync(home, { recursive: true, force: true });
});

async function daemon(options: Parameters<typeof FakePaseoDaemon.start>[0] = {}): Promise<FakePaseoDaemon> {
  const fake = await FakePaseoDaemon.start({ home: root, ...options });
  cleanup.push(() => fake.close());
  return fake;
}

function cli(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        cwd: repo,
        // Secret inputs come from the environment, as they should (not a command line).
        env: {
          ...process.env,
          KAIROKU_PLAYBOOK_HOME: home,
          NO_COLOR: '1',
          KP_TEST_TOKEN: 'xxxx',
          KP_SECRET_TOKEN: 's3cret-value',
          ...env,
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

// Whole CLI processes against the daemon: seconds each, more on a busy machine.
describe('run --backend paseo', { timeout: 60_000 }, () => {
  it('drives the daemon through a whole run: an agent, a check in the run’s worktree, a gate from --gate', async () => {
    const fake = await daemon({ scripts: { work: [reports('done', { note: 'v2' }, 'did it')] } });
    const result = await cli(
      [
        'run',
        'playbooks/live.yml',
        '--backend',
        'paseo',
        '--input',
        'task=the thing',
        '--input-env',
        'token=KP_SECRET_TOKEN',
        '--gate',
        'ship=approve',
        '--parent-agent',
        'agent-manager-1',
        '--json',
      ],
      { PASEO_HOST: fake.host },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const end = JSON.parse(result.stdout) as {
      status: string;
      steps: Record<string, { status: string }>;
      outputs: Record<string, unknown>;
    };
    expect(end.status).toBe('completed');
    expect(end.outputs).toEqual({ note: 'v2' });
    // One Paseo agent for the one agent step, labelled with the run, in the run's own worktree.
    const agents = [...fake.agents.values()];
    expect(agents.map((a) => a.labels['kairoku.step'])).toEqual(['work']);
    expect(agents[0]!.initialPrompt).toContain('Do the thing');
    expect(agents[0]!.labels).toMatchObject({
      'kairoku.attempt': '1',
      'paseo.parent-agent-id': 'agent-manager-1',
    });
    expect(fake.worktrees).toHaveLength(1);
    // The check's counts were parsed off its output, and the secret reached no file of the run.
    const runs = join(home, 'runs');
    const [file] = readdirSync(runs);
    const saved = readFileSync(join(runs, file!), 'utf8');
    expect(saved).not.toContain('s3cret-value');
    const state = JSON.parse(saved) as { steps: { name: string; outputs: Record<string, number> | null }[] };
    expect(state.steps.find((s) => s.name === 'tests')!.outputs).toMatchObject({ passed: 2, failed: 0 });
  });

  it('runs playbooks/pr.yml through a whole run: its qa check fails once (the loop), then passes', async () => {
    // The checkout has npm scripts for pr.yml's qa step: lint passes, the tests fail until the
    // implementer's second attempt has written fixed.txt into the run's worktree.
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
          lint: 'node -e "console.log(\'lint ok\')"',
          test: "node -e \"const ok = require('fs').existsSync('fixed.txt'); console.log('# pass ' + (ok ? 3 : 2)); console.log('# fail ' + (ok ? 0 : 1)); process.exit(ok ? 0 : 1)\"",
        },
      }),
    );
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
    git('add', '.');
    git('commit', '-q', '-m', 'npm scripts and the playbook');
    const fake = await daemon({
      scripts: {
        plan: [reports('done', { plan: 'add the flag', files: ['cli.ts'] })],
        implement: [
          reports('done', { branch: 'feat/json' }),
          {
            turns: [
              {
                write: { path: 'fixed.txt', content: 'fixed\n' },
                reports: [{ outcome: 'done', outputs: { branch: 'feat/json' } }],
              },
            ],
          },
        ],
        review: [reports('approved', { verdict: 'approve' })],
        'after.summarize': [reports('done')],
      },
    });
    const result = await cli(
      [
        'run',
        'playbooks/pr.yml',
        '--backend',
        'paseo',
        '--input',
        'task=Add a --json flag',
        '--input',
        'strict=true',
        '--input-env',
        'api_key=KP_API_KEY',
        '--gate',
        'ship=approve',
        '--json',
      ],
      { PASEO_HOST: fake.host, KP_API_KEY: 'sk-live-0123456789' },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const end = JSON.parse(result.stdout) as {
      status: string;
      loops: Record<string, number>;
      steps: Record<string, { status: string; attempts: { outcome: string | null }[] }>;
      after: Record<string, { status: string }>;
    };
    expect(end.status).toBe('completed');
    expect(end.steps.qa!.attempts.map((a) => a.outcome)).toEqual(['fail', 'pass']);
    expect(end.steps.implement!.attempts).toHaveLength(2);
    expect(end.loops).toMatchObject({ 'qa.fail': 1 });
    expect(end.after.summarize!.status).toBe('completed');
    // Step agents: plan, implement twice, review, and the after-task; one worktree for the run.
    expect([...fake.agents.values()].map((a) => a.labels['kairoku.step'])).toEqual([
      'plan',
      'implement',
      'implement',
      'review',
      'after.summarize',
    ]);
    expect(fake.worktrees).toHaveLength(1);
    const saved = readFileSync(
      join(
        home,
        'runs',
        readdirSync(join(home, 'runs')).find((n) => n.endsWith('.json'))!,
      ),
      'utf8',
    );
    expect(saved).not.toContain('sk-live-0123456789');
  });

  it('ends a run whose agent stays silent through its reminder as the lost-agent rule says', async () => {
    const fake = await daemon({ scripts: { work: [silent()] } });
    const result = await cli([...LIVE_RUN, '--json'], { PASEO_HOST: fake.host });
    expect(result.code).toBe(1);
    const end = JSON.parse(result.stdout) as { status: string; reason: string };
    expect(end.status).toBe('failed');
    expect(end.reason).toContain('lost');
    expect([...fake.agents.values()][0]!.followUps).toHaveLength(1);
  });

  it('runs pause, resume and cancel from another process ask the process driving the run', async () => {
    const fake = await daemon({ scripts: { work: [runsUntilCanceled()] } });
    const running = cli([...LIVE_RUN, '--json'], { PASEO_HOST: fake.host });
    const runs = join(home, 'runs');
    await vi.waitFor(
      () => {
        expect(existsSync(runs) && readdirSync(runs).some((n) => n.endsWith('.owner'))).toBe(true);
        expect(fake.agents.size).toBe(1);
      },
      { timeout: 20_000, interval: 50 },
    );
    const id = readdirSync(runs)
      .find((n) => n.endsWith('.owner'))!
      .replace(/\.owner$/, '');
    const status = () =>
      (JSON.parse(readFileSync(join(runs, `${id}.json`), 'utf8')) as { status: string }).status;
    // Pause and resume are asked of the process driving the run, which applies them within a second.
    expect((await cli(['runs', 'pause', id])).stdout).toContain('to pause it');
    await vi.waitFor(() => expect(status()).toBe('paused'), { timeout: 10_000, interval: 50 });
    expect((await cli(['runs', 'resume', id])).stdout).toContain('to resume it');
    await vi.waitFor(() => expect(status()).toBe('running'), { timeout: 10_000, interval: 50 });
    const asked = await cli(['runs', 'cancel', id, '--reason', 'not today']);
    expect(asked.code).toBe(0);
    expect(asked.stdout).toMatch(
      new RegExp(`run ${id}: asked process \\d+, which is driving it, to cancel it`),
    );
    const result = await running;
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'canceled', reason: 'not today' });
    expect(fake.received('cancel_agent_request')).toHaveLength(1);
    // The claim is let go when the run ends: a later cancel finds nobody to ask.
    expect(readdirSync(runs).filter((n) => !n.endsWith('.json'))).toEqual([]);
    // Nobody drives it any more: a pause is the stored run's to refuse.
    const late = await cli(['runs', 'pause', id]);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain('the run is not running (it is canceled)');
  });

  it('runs restart reopens an ended paseo run from a step, on the daemon again', async () => {
    const fake = await daemon({ scripts: { work: [reports('done', { note: 'v3' })] } });
    const env = { PASEO_HOST: fake.host };
    const first = await cli([...LIVE_RUN, '--json', '--gate', 'ship=reject'], env);
    expect(first.code).toBe(1);
    const ended = JSON.parse(first.stdout) as { id: string; status: string };
    expect(ended.status).toBe('failed');
    // Another run cannot start in this workspace while one is active; an ended one leaves room.
    // Its secret input is given again (never stored), from the environment.
    const again = await cli(
      [
        'runs',
        'restart',
        ended.id,
        '--from',
        'ship',
        '--input-env',
        'token=KP_TEST_TOKEN',
        '--gate',
        'ship=approve',
        '--json',
      ],
      env,
    );
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      id: ended.id,
      status: 'completed',
      outputs: { note: 'v3' },
    });
    // The agent step before the gate kept its outcome: one Paseo agent in all.
    expect(fake.agents.size).toBe(1);
  });

  it('says clearly when the daemon is down or refuses the password, and saves no run', async () => {
    const down = await cli(LIVE_RUN, { PASEO_HOST: '127.0.0.1:9' });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/cannot reach .*127\.0\.0\.1:9/);

    const fake = await daemon({ password: 'right' });
    const refused = await cli(LIVE_RUN, { PASEO_HOST: fake.host, PASEO_PASSWORD: 'wrong' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/4401|password/i);
    expect(readdirSync(home).includes('runs') ? readdirSync(join(home, 'runs')) : []).toEqual([]);
  });

  it('takes the password from --paseo-password-file (never argv), and the provider and model from flags', async () => {
    const fake = await daemon({
      password: 'right-horse',
      scripts: { work: [reports('done', { note: 'v' })] },
    });
    const file = join(root, 'paseo-password');
    writeFileSync(file, 'right-horse\n', { mode: 0o600 });
    const result = await cli(
      [
        ...LIVE_RUN,
        '--paseo-password-file',
        file,
        '--paseo-provider',
        'opencode',
        '--paseo-model',
        'big-model',
        '--gate',
        'ship=approve',
        '--json',
      ],
      { PASEO_HOST: fake.host, PASEO_PASSWORD: 'wrong' },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect([...fake.agents.values()].map((a) => [a.provider, a.model])).toEqual([['opencode', 'big-model']]);

    // The 4401 error names what exists: the variable and the file option.
    const refused = await cli(LIVE_RUN, { PASEO_HOST: fake.host, PASEO_PASSWORD: 'wrong' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('set PASEO_PASSWORD');
    expect(refused.stderr).toContain('--paseo-password-file FILE');
    // A password on argv is no option; an empty file and a bad provider are usage errors.
    const onArgv = await cli([...LIVE_RUN, '--paseo-password', 'right-horse']);
    expect(onArgv.code).toBe(2);
    expect(onArgv.stderr).toContain('unknown option --paseo-password');
    writeFileSync(file, '\n');
    const empty = await cli([...LIVE_RUN, '--paseo-password-file', file], { PASEO_HOST: fake.host });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('is empty: put the password on its first line');
    const bad = await cli([...LIVE_RUN, '--paseo-provider', 'claude=', '--paseo-host', fake.host]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--paseo-provider takes NAME or FROM=TO');
  });

  it('refuses sim-only flags and --gate choices the playbook does not have', async () => {
    const wrong = await cli(['run', 'playbooks/live.yml', '--backend', 'paseo', '--scenario', 'x.yml']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--scenario is for the sim backend only');
    const ir = compilePlaybook('live.yml', PLAYBOOK).ir!;
    expect(() => gateFlags(['ship=maybe'], ir)).toThrow(
      /not a choice of the gate \(its choices: approve, reject\)/,
    );
    expect(() => gateFlags(['work=approve'], ir)).toThrow(/no gate "work"/);
    expect(gateFlags(['ship=reject:too risky'], ir).get('ship')).toEqual({
      choice: 'reject',
      comment: 'too risky',
    });
  });
});
