/**
 * Agents' text reaches the terminal without its control sequences on every path (issue 11): `run`'s
 * progress lines and end, the live view, gate prompts, `runs show` and `runs list`, `test`, and error
 * messages; the run file and `--json` keep the text as the agent sent it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRun } from '../src/commands/run.js';
import type { Terminal } from '../src/commands/terminal.js';
import { main } from '../src/main.js';
import type { CommandIo } from '../src/io.js';
import type { LiveTerminal } from '../src/live-view.js';
import { CLI, FakePaseoDaemon, gitRepo, removeDir, tempDir, triesReports } from '../../test/kit/index.js';

/** A summary that would retitle the terminal, clear it, and reverse what follows. */
const HOSTILE = 'ok\x1b]0;pwned\x07\x1b[2J\x9b2J\u202eevil\rX';
const HOSTILE_YAML = '"ok\\e]0;pwned\\a\\e[2J\\x9b2J\\u202eevil\\rX"';
/** HOSTILE as a terminal is shown it: the OSC (up to its BEL) and both CSIs gone. */
const SHOWN = 'okevilX';
/** What must not reach a terminal: the pieces of HOSTILE a terminal acts on. */
const ACTED_ON = new RegExp(String.raw`\x07|\x1b\]|\x1b\[2J|\x9b|\u202e|\r`);

const PLAYBOOK = `version: 1
id: hostile
title: Hostile
steps:
  work:
    role: implementer
    prompt: Work
    outputs: { note: string }
  ship:
    needs: [work]
    gate:
      title: Ship \${{ steps.work.outputs.note }}?
      summary: \${{ steps.work.summary }}
      choices: { approve: next, reject: fail }
outputs:
  note: \${{ steps.work.outputs.note }}
`;
const SCENARIO = `steps:
  work: { outcome: done, summary: ${HOSTILE_YAML}, outputs: { note: ${HOSTILE_YAML} } }
`;
const DECIDED = `${SCENARIO}gates:
  ship: [{ choice: approve }]
`;

let root: string;
let home: string;
let previousHome: string | undefined;

beforeAll(() => {
  previousHome = process.env.KAIROKU_PLAYBOOK_HOME;
  root = tempDir('kp-terminal-');
  home = join(root, 'home');
  process.env.KAIROKU_PLAYBOOK_HOME = home;
  mkdirSync(join(root, 'playbooks'));
  writeFileSync(join(root, 'playbooks', 'hostile.yml'), PLAYBOOK);
  writeFileSync(join(root, 'scenario.yml'), SCENARIO);
  writeFileSync(join(root, 'decided.yml'), DECIDED);
  // A test whose expectation fails: its differences quote the hostile output.
  writeFileSync(
    join(root, 'playbooks', 'hostile.test.yml'),
    `name: ${HOSTILE_YAML}\n${DECIDED}expect:\n  outputs: { note: plain }\n`,
  );
});
afterAll(() => {
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

function cli(argv: string[]) {
  const { out, commandIo } = io();
  const code = main(argv, commandIo) as number;
  return { code, ...out };
}

/** A person at a terminal who approves every gate; `live` draws the live view. */
function person(live: boolean): { terminal: Terminal; written: () => string } {
  let written = '';
  const terminal: Terminal = {
    write: (text) => void (written += text),
    ask: (question) => {
      written += question;
      return 'approve';
    },
  };
  const shown = live
    ? ({ ...terminal, screen: { columns: () => 100, rows: () => 40 } } as LiveTerminal)
    : terminal;
  return { terminal: shown, written: () => written };
}

function runFiles(): string[] {
  const folder = join(home, 'runs');
  return existsSync(folder) ? readdirSync(folder).filter((f) => f.endsWith('.json')) : [];
}

describe('terminal paths', () => {
  let runId: string;

  it('run: progress lines, the gate prompt and the end carry no control sequences', async () => {
    const before = new Set(runFiles());
    const { out, commandIo } = io();
    const { terminal, written } = person(false);
    const code = await runRun(['playbooks/hostile.yml', '--scenario', 'scenario.yml'], commandIo, terminal);
    expect(code).toBe(0);
    const text = written() + out.stdout + out.stderr;
    expect(text).toContain(`? ship is waiting for a decision: Ship ${SHOWN}?\n  ${SHOWN}\n`);
    expect(text).toContain(`outputs:\n  note: ${SHOWN}\n`);
    expect(text).not.toMatch(ACTED_ON);
    expect(text).not.toContain('\x1b');
    // The run file keeps what the agent sent.
    const [file] = runFiles().filter((f) => !before.has(f));
    runId = file!.replace(/\.json$/, '');
    const saved = JSON.parse(readFileSync(join(home, 'runs', file!), 'utf8')) as {
      outputs: Record<string, string>;
      steps: { attempts: { summary?: string }[] }[];
    };
    expect(saved.outputs.note).toBe(HOSTILE);
    expect(saved.steps[0]!.attempts[0]!.summary).toBe(HOSTILE);
  });

  it('run on a live terminal: the frames hold only the view’s own sequences', async () => {
    const { commandIo } = io();
    const { terminal, written } = person(true);
    expect(await runRun(['playbooks/hostile.yml', '--scenario', 'scenario.yml'], commandIo, terminal)).toBe(
      0,
    );
    const text = written();
    expect(text).toContain(`Ship ${SHOWN}?`);
    expect(text).not.toMatch(ACTED_ON);
    // What is left of ESC is the view's: cursor up, clear line, clear below.
    expect(text.replace(new RegExp(String.raw`\x1b\[(?:\d+F|2K|J)`, 'g'), '')).not.toContain('\x1b');
  });

  it('run --json keeps the text as the agent sent it', () => {
    const result = cli(['run', 'playbooks/hostile.yml', '--scenario', 'decided.yml', '--json']);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { outputs: { note: string } }).outputs.note).toBe(HOSTILE);
  });

  it('runs show and runs list carry no control sequences; runs show --json keeps them', () => {
    const shown = cli(['runs', 'show', runId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`note: ${SHOWN}`);
    expect(shown.stdout).not.toMatch(ACTED_ON);
    expect(shown.stdout).not.toContain('\x1b');
    const listed = cli(['runs', 'list']);
    expect(listed.stdout).toContain(runId);
    expect(listed.stdout).not.toContain('\x1b');
    const json = cli(['runs', 'show', runId, '--json']);
    expect((JSON.parse(json.stdout) as { outputs: { note: string } }).outputs.note).toBe(HOSTILE);
  });

  it('test: names and differences carry no control sequences', () => {
    const result = cli(['test', 'playbooks']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`✗ ${SHOWN}`);
    expect(result.stdout).not.toMatch(ACTED_ON);
    expect(result.stdout).not.toContain('\x1b');
  });

  it('input errors that quote a value carry no control sequences', () => {
    writeFileSync(
      join(root, 'playbooks', 'typed.yml'),
      PLAYBOOK.replace('id: hostile', 'id: typed').replace(
        'steps:',
        "inputs:\n  level: { type: 'enum(low, high)' }\nsteps:",
      ),
    );
    const result = cli(['run', 'playbooks/typed.yml', '--input', `level=${HOSTILE}`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('input "level"');
    expect(result.stderr).not.toMatch(ACTED_ON);
  });
});

describe('run --backend paseo', { timeout: 60_000 }, () => {
  it('shows the agents’ refused and accepted reports without their control sequences', async () => {
    const repoRoot = tempDir('kp-paseo-');
    const repo = gitRepo({ dir: join(repoRoot, 'repo') });
    const daemonHome = tempDir('kp-terminal-live-');
    const fake = await FakePaseoDaemon.start({
      home: repoRoot,
      scripts: {
        work: [
          triesReports(
            { outcome: HOSTILE },
            { outcome: 'done', summary: HOSTILE, outputs: { note: HOSTILE } },
          ),
        ],
      },
    });
    try {
      mkdirSync(join(repo, 'playbooks'));
      writeFileSync(join(repo, 'playbooks', 'hostile.yml'), PLAYBOOK);
      const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          [CLI, 'run', 'playbooks/hostile.yml', '--backend', 'paseo', '--gate', 'ship=approve'],
          {
            cwd: repo,
            env: { ...process.env, KAIROKU_PLAYBOOK_HOME: daemonHome, NO_COLOR: '1', PASEO_HOST: fake.host },
            timeout: 50_000,
          },
          (error, stdout, stderr) =>
            resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        ),
      );
      expect(result.code).toBe(0);
      // The refused report's outcome is quoted in a progress line; the output at the end.
      expect(result.stdout).toMatch(/refused.*okevilX/);
      expect(result.stdout).toContain(`note: ${SHOWN}`);
      expect(result.stdout + result.stderr).not.toMatch(ACTED_ON);
      expect(result.stdout + result.stderr).not.toContain('\x1b');
    } finally {
      await fake.close();
      removeDir(repoRoot);
      rmSync(daemonHome, { recursive: true, force: true });
    }
  });
});
