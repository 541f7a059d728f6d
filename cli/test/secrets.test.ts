/**
 * Secret inputs (issue 11): given without a command line (`--input-file`, `--input-env`, a prompt
 * without echo), and never stored — not by `run`, and not after `runs restart` either, where the
 * secret used to be stored in clear from the restarted attempts on. Each test greps the whole home.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runRun } from '../src/commands/run.js';
import { runRuns } from '../src/commands/runs.js';
import type { Terminal } from '../src/commands/terminal.js';
import type { CommandIo } from '../src/io.js';
import { CLI, FakePaseoDaemon, gitRepo, removeDir, reports, tempDir } from '../../test/kit/index.js';

const SECRET = 'tok-Sup3rS3cret-12345';
const OLD_SECRET = 'tok-0ldS3cret-67890';
const KEY_LINES = ['MIIEvQIBADANBgkqhkiG9w0B', 'AQEFAASCBKcwggSjAgEAAoIB'];

const PLAYBOOK = `version: 1
id: secretive
title: Secretive
inputs:
  task: { type: string }
  token: { type: string, secret: true }
  key: { type: string, secret: true, required: false }
steps:
  work:
    role: implementer
    prompt: Do \${{ inputs.task }}
    outputs: { note: string }
  lint:
    needs: [work]
    run: node -e "console.log('token ' + process.env.TOKEN + ' key ' + process.env.KEY); console.log('# pass 1'); console.log('# fail 0')"
    env: { TOKEN: '\${{ inputs.token }}', KEY: '\${{ inputs.key }}' }
  review:
    needs: [lint]
    role: reviewer
    prompt: Review \${{ steps.work.outputs.note }}
    outputs: { verdict: string }
  ship:
    needs: [review]
    gate:
      title: Ship \${{ steps.work.outputs.note }}?
      summary: \${{ steps.review.outputs.verdict }}
      choices:
        approve: next
        revise: { comment: required, then: { loop: work, max: 2, feedback: 'again: \${{ gate.comment }}' } }
after:
  tell:
    on: completed
    role: planner
    prompt: Tell about \${{ steps.work.outputs.note }}
outputs:
  note: \${{ steps.work.outputs.note }}
`;

/** Every report, comment and after-task says the secret (and the key's lines). */
const leak = `token ${SECRET} key ${KEY_LINES[1]}`;
const FAILS_AT_REVIEW = `steps:
  work: { outcome: done, summary: '${leak}', outputs: { note: '${leak}' } }
  review: { outcome: failed, summary: '${leak}' }
`;
const SHIPS = `steps:
  work: { outcome: done, summary: '${leak}', outputs: { note: '${leak}' } }
  review: { outcome: done, summary: '${leak}', outputs: { verdict: '${leak}' } }
gates:
  ship: [{ choice: revise, comment: '${leak}' }, { choice: approve, comment: '${leak}' }]
after:
  tell: { outcome: done, summary: '${leak}' }
`;

let root: string;
let home: string;
let previousHome: string | undefined;

beforeEach(() => {
  previousHome = process.env.KAIROKU_PLAYBOOK_HOME;
  root = tempDir('kp-secrets-');
  home = join(root, 'home');
  process.env.KAIROKU_PLAYBOOK_HOME = home;
  mkdirSync(join(root, 'playbooks'));
  writeFileSync(join(root, 'playbooks', 'secretive.yml'), PLAYBOOK);
  writeFileSync(join(root, 'fails.yml'), FAILS_AT_REVIEW);
  writeFileSync(join(root, 'ships.yml'), SHIPS);
  writeFileSync(
    join(root, 'inputs.yml'),
    `task: the thing\nkey: |\n  -----BEGIN KEY-----\n  ${KEY_LINES.join('\n  ')}\n  -----END KEY-----\n`,
  );
});
afterEach(() => {
  if (previousHome === undefined) delete process.env.KAIROKU_PLAYBOOK_HOME;
  else process.env.KAIROKU_PLAYBOOK_HOME = previousHome;
  rmSync(root, { recursive: true, force: true });
});

function io() {
  const out = { stdout: '', stderr: '' };
  const commandIo: CommandIo = {
    cwd: root,
    stdout: (t) => (out.stdout += t),
    stderr: (t) => (out.stderr += t),
    color: false,
    colorStderr: false,
  };
  return { out, commandIo };
}

async function call(
  command: typeof runRun | typeof runRuns,
  argv: string[],
  options: { env?: NodeJS.ProcessEnv; terminal?: Terminal } = {},
) {
  const { out, commandIo } = io();
  let code: number;
  try {
    code = await command(argv, commandIo, options.terminal, options.env ?? {});
  } catch (error) {
    out.stderr += `${(error as Error).message}\n`;
    code = 2;
  }
  return { code, ...out };
}

/** A terminal that answers secret prompts (and approves gates), recording the questions. */
function person(answer: string | undefined) {
  const asked: string[] = [];
  const terminal: Terminal = {
    write: () => undefined,
    ask: () => 'approve',
    askSecret: async (question) => {
      asked.push(question);
      return answer;
    },
  };
  return { terminal, asked };
}

/** Every file under the home, with what it holds. */
function homeFiles(dir = home): { path: string; text: string }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? homeFiles(path) : [{ path, text: readFileSync(path, 'latin1') }];
  });
}

function expectNoSecretInHome(...secrets: string[]): void {
  const files = homeFiles();
  expect(files.length).toBeGreaterThan(1);
  for (const file of files)
    for (const secret of secrets) {
      const at = file.text.indexOf(secret);
      expect(at, `${file.path} holds a secret: ${file.text.slice(Math.max(0, at - 300), at + 50)}`).toBe(-1);
    }
}

function onlyRun(): Record<string, unknown> {
  const [file] = readdirSync(join(home, 'runs')).filter((f) => f.endsWith('.json'));
  return JSON.parse(readFileSync(join(home, 'runs', file!), 'utf8')) as Record<string, unknown>;
}

const RUN = ['playbooks/secretive.yml', '--input-file', 'inputs.yml', '--input-env', 'token=SECRET_TOKEN'];
const ENV = { SECRET_TOKEN: SECRET };

describe('sim runs', () => {
  it('keep every secret out of the home through a run and a restart', async () => {
    const first = await call(runRun, [...RUN, '--scenario', 'fails.yml'], { env: ENV });
    expect(first.code).toBe(1);
    const id = onlyRun().id as string;
    const restarted = await call(
      runRuns,
      [
        'restart',
        id,
        '--from',
        'review',
        '--input-env',
        'token=SECRET_TOKEN',
        '--input-file',
        'inputs.yml',
        '--scenario',
        'ships.yml',
      ],
      { env: ENV },
    );
    expect(restarted.stderr).toBe('');
    expect(restarted.code).toBe(0);
    const state = onlyRun() as { status: string; steps: { name: string; attempts: unknown[] }[] };
    expect(state.status).toBe('completed');
    // Attempts after the restart are masked as the first ones were.
    expect(state.steps.find((s) => s.name === 'work')!.attempts).toHaveLength(2);
    expect(JSON.stringify(state)).toContain('token •••••• key ••••••');
    expectNoSecretInHome(SECRET, ...KEY_LINES);
  });

  it('refuse a restart that does not give the secrets again, saying how, when nobody can be asked', async () => {
    await call(runRun, [...RUN, '--scenario', 'fails.yml'], { env: ENV });
    const id = onlyRun().id as string;
    const refused = await call(runRuns, ['restart', id, '--from', 'review', '--scenario', 'ships.yml']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `run ${id} needs its secret inputs "token", "key" again (secrets are never stored): give them with --input-env NAME=VARIABLE or --input-file FILE`,
    );
    expect(onlyRun().status).toBe('failed');
    // A restart gives secrets only; the run's other inputs are kept.
    const other = await call(runRuns, ['restart', id, '--from', 'review', '--input', 'task=x']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('"task" is not a secret input');
  });

  it('ask a restart’s secrets at the terminal, without echo', async () => {
    await call(runRun, [...RUN, '--scenario', 'fails.yml'], { env: ENV });
    const id = onlyRun().id as string;
    const { terminal, asked } = person(SECRET);
    const restarted = await call(
      runRuns,
      ['restart', id, '--from', 'review', '--input-file', 'inputs.yml', '--scenario', 'ships.yml'],
      { terminal },
    );
    expect(restarted.code).toBe(0);
    expect(asked).toEqual(['secret input token: ']);
    expectNoSecretInHome(SECRET, ...KEY_LINES);
  });

  it('take another value on restart with a warning, and keep masking the old one', async () => {
    writeFileSync(join(root, 'old-fails.yml'), FAILS_AT_REVIEW.replaceAll(SECRET, OLD_SECRET));
    await call(runRun, [...RUN, '--scenario', 'old-fails.yml'], { env: { SECRET_TOKEN: OLD_SECRET } });
    const id = onlyRun().id as string;
    const restarted = await call(
      runRuns,
      [
        'restart',
        id,
        '--from',
        'review',
        '--input-env',
        'token=SECRET_TOKEN',
        '--input-file',
        'inputs.yml',
        '--scenario',
        'ships.yml',
      ],
      { env: ENV },
    );
    expect(restarted.code).toBe(0);
    expect(restarted.stderr).toContain(
      `warning: secret input "token" is not the value run ${id} started with`,
    );
    // An agent still quoting the old token after the restart: masked by its fingerprint.
    writeFileSync(join(root, 'old.yml'), SHIPS.replaceAll(SECRET, OLD_SECRET));
    await call(
      runRuns,
      [
        'restart',
        id,
        '--from',
        'work',
        '--input-env',
        'token=SECRET_TOKEN',
        '--input-file',
        'inputs.yml',
        '--scenario',
        'old.yml',
      ],
      {
        env: ENV,
      },
    );
    expectNoSecretInHome(SECRET, OLD_SECRET, ...KEY_LINES);
  });

  it('ask a required secret not given at the terminal; without one, say how to give it', async () => {
    const { terminal, asked } = person(SECRET);
    const asking = await call(
      runRun,
      ['playbooks/secretive.yml', '--input', 'task=x', '--scenario', 'ships.yml'],
      {
        terminal,
      },
    );
    expect(asked).toEqual(['secret input token: ']);
    expect(asking.code).toBe(0);
    expectNoSecretInHome(SECRET);
    const nobody = await call(runRun, [
      'playbooks/secretive.yml',
      '--input',
      'task=x',
      '--scenario',
      'ships.yml',
    ]);
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toBe(
      'kairoku-playbook: input "token" is required\nkairoku-playbook: give secret input "token" with --input-env token=VARIABLE or --input-file FILE, or run on a terminal to be asked for it\n',
    );
    // --json asks nothing.
    const json = await call(runRun, ['playbooks/secretive.yml', '--input', 'task=x', '--json'], { terminal });
    expect(json.code).toBe(2);
    expect(asked).toHaveLength(1);
  });

  it('read --input-env and --input-file, and say what is wrong with them without quoting a value', async () => {
    const unset = await call(runRun, ['playbooks/secretive.yml', '--input-env', 'token=NOT_SET']);
    expect(unset.stderr).toContain('--input-env token=NOT_SET: the environment variable NOT_SET is not set');
    const malformed = await call(runRun, ['playbooks/secretive.yml', '--input-env', 'token']);
    expect(malformed.stderr).toContain('--input-env takes NAME=VARIABLE');
    writeFileSync(join(root, 'list.yml'), `- ${SECRET}\n`);
    const list = await call(runRun, ['playbooks/secretive.yml', '--input-file', 'list.yml']);
    expect(list.stderr).toContain('--input-file list.yml must hold a mapping of input names to values');
    writeFileSync(join(root, 'bad.yml'), `token: "${SECRET}\n  x: [`);
    const bad = await call(runRun, ['playbooks/secretive.yml', '--input-file', 'bad.yml']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^--input-file bad.yml: /);
    for (const result of [unset, malformed, list, bad]) expect(result.stderr).not.toContain(SECRET);
    // A secret on the command line is taken, with a warning that says the other ways.
    const flagged = await call(runRun, [
      'playbooks/secretive.yml',
      '--input',
      'task=x',
      '--input',
      `token=${SECRET}`,
      '--scenario',
      'ships.yml',
    ]);
    expect(flagged.code).toBe(0);
    expect(flagged.stderr).toBe(
      'kairoku-playbook: warning: secret input "token" was given on the command line, which other users of this machine can read (ps); give it with --input-env token=VARIABLE or --input-file FILE\n',
    );
    // --input wins over --input-env, which wins over --input-file.
    writeFileSync(join(root, 'task.yml'), 'task: from the file\n');
    const order = await call(
      runRun,
      [
        'playbooks/secretive.yml',
        '--input-file',
        'task.yml',
        '--input-env',
        'token=SECRET_TOKEN',
        '--input',
        'token=from-the-flag',
        '--scenario',
        'ships.yml',
        '--json',
      ],
      { env: ENV },
    );
    expect(order.code).toBe(0);
  });
});

describe('paseo runs', { timeout: 60_000 }, () => {
  it('keep every secret out of the home: agents’ reports, a check’s output, a restart', async () => {
    const repoRoot = tempDir('kp-paseo-');
    const repo = gitRepo({ dir: join(repoRoot, 'repo') });
    const liveHome = tempDir('kp-secrets-live-');
    mkdirSync(join(repo, 'playbooks'));
    // The check passes only with the real token in its env (its hash, so the playbook holds no secret).
    const hash = createHash('sha256').update(SECRET).digest('hex');
    writeFileSync(
      join(repo, 'playbooks', 'secretive.yml'),
      PLAYBOOK.replace(
        "console.log('# pass 1')",
        `require('assert').equal(require('crypto').createHash('sha256').update(process.env.TOKEN).digest('hex'), '${hash}'); console.log('# pass 1')`,
      ),
    );
    const fake = await FakePaseoDaemon.start({
      home: repoRoot,
      scripts: {
        work: [reports('done', { note: leak }, leak)],
        review: [reports('failed', { verdict: leak }, leak), reports('done', { verdict: leak }, leak)],
        'after.tell': [reports('done', {}, leak)],
      },
    });
    const cli = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          [CLI, ...args],
          {
            cwd: repo,
            env: {
              ...process.env,
              KAIROKU_PLAYBOOK_HOME: liveHome,
              NO_COLOR: '1',
              PASEO_HOST: fake.host,
              SECRET_TOKEN: SECRET,
            },
            timeout: 50_000,
          },
          (error, stdout, stderr) =>
            resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        ),
      );
    try {
      const first = await cli([
        'run',
        'playbooks/secretive.yml',
        '--backend',
        'paseo',
        '--input',
        'task=t',
        '--input-env',
        'token=SECRET_TOKEN',
        '--gate',
        'ship=approve',
      ]);
      expect(first.code).toBe(1);
      const [file] = readdirSync(join(liveHome, 'runs')).filter((f) => f.endsWith('.json'));
      const id = file!.replace(/\.json$/, '');
      const again = await cli([
        'runs',
        'restart',
        id,
        '--from',
        'lint',
        '--input-env',
        'token=SECRET_TOKEN',
        '--gate',
        'ship=approve',
      ]);
      expect(again.stderr).toBe('');
      expect(again.code).toBe(0);
      const state = readFileSync(join(liveHome, 'runs', file!), 'utf8');
      expect(state).toContain('token ••••••');
      home = liveHome;
      expectNoSecretInHome(SECRET);
    } finally {
      await fake.close();
      removeDir(repoRoot);
      rmSync(liveHome, { recursive: true, force: true });
    }
  });
});
