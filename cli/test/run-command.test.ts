import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRun } from '../src/commands/run.js';
import type { Terminal } from '../src/commands/terminal.js';
import { main } from '../src/main.js';
import type { CommandIo } from '../src/io.js';
import { tempDir } from '../../test/kit/index.js';

const repo = new URL('../../', import.meta.url).pathname;
let home: string;
let previousHome: string | undefined;

beforeAll(() => {
  previousHome = process.env.KAIROKU_PLAYBOOK_HOME;
  home = tempDir('kp-run-home-');
  process.env.KAIROKU_PLAYBOOK_HOME = home;
});
afterAll(() => {
  if (previousHome === undefined) delete process.env.KAIROKU_PLAYBOOK_HOME;
  else process.env.KAIROKU_PLAYBOOK_HOME = previousHome;
});

function io(cwd: string) {
  const out = { stdout: '', stderr: '' };
  const commandIo: CommandIo = {
    cwd,
    stdout: (t) => (out.stdout += t),
    stderr: (t) => (out.stderr += t),
    color: false,
    colorStderr: false,
  };
  return { out, commandIo };
}

function run(argv: string[], cwd = repo) {
  const { out, commandIo } = io(cwd);
  const code = main(argv, commandIo);
  return { code, ...out };
}

function workspace(files: Record<string, string>): string {
  const root = tempDir('kp-run-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const SCENARIO = `inputs: { task: add a --json flag }
steps:
  qa:
    - { outcome: fail, summary: 2 tests failing }
    - { outcome: pass }
  review:
    - { outcome: changes_requested, summary: rename the flag }
    - { outcome: approved, outputs: { verdict: approve } }
  implement:
    - { outcome: done, outputs: { branch: feat/json } }
gates:
  ship:
    - { choice: approve }
`;

describe('kairoku-playbook run', () => {
  it('--json prints the final run state of SPEC §8 and saves the run', () => {
    const root = workspace({ 'scenario.yml': SCENARIO });
    const result = run(
      ['run', join(repo, 'playbooks/pr.yml'), '--backend', 'sim', '--scenario', 'scenario.yml', '--json'],
      root,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const state = JSON.parse(result.stdout);
    expect(state).toMatchObject({
      playbook: 'pr',
      status: 'completed',
      steps: { qa: { status: 'completed', attempts: [{ outcome: 'fail' }, { outcome: 'pass' }] } },
      loops: { 'qa.fail': 1 },
      outputs: { branch: 'feat/json' },
    });
    expect(state.id).toMatch(/^pr-[0-9a-f]{6}$/);
    expect(readdirSync(join(home, 'runs'))).toContain(`${state.id}.json`);
  });

  it('takes --input over the scenario’s inputs, typed as the input wants', () => {
    const root = workspace({ 'scenario.yml': SCENARIO });
    const result = run(
      [
        'run',
        join(repo, 'playbooks/pr.yml'),
        '--scenario',
        'scenario.yml',
        '--input',
        'strict=true',
        '--json',
      ],
      root,
    );
    const state = JSON.parse(result.stdout);
    expect(state.steps.review.attempts).toEqual([{ outcome: 'changes_requested' }, { outcome: 'approved' }]);
    expect(state.loops).toEqual({ 'qa.fail': 1, 'review.changes_requested': 1 });
  });

  it('names the input and why when one does not fit (exit 2)', () => {
    expect(run(['run', 'playbooks/pr.yml', '--json'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'kairoku-playbook: input "task" is required\n',
    });
    const bad = run([
      'run',
      'playbooks/pr.yml',
      '--input',
      'task=x',
      '--input',
      'reviewers=9',
      '--input',
      'target=dev',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'kairoku-playbook: input "reviewers" must be <= 3\nkairoku-playbook: input "target" must be one of main, develop\n',
    );
    expect(run(['run', 'playbooks/pr.yml', '--input', 'tsk=x']).stderr).toContain(
      'unknown input "tsk"; did you mean "task"?',
    );
    expect(run(['run', 'playbooks/pr.yml', '--input', 'task']).stderr).toBe(
      'kairoku-playbook: --input takes NAME=VALUE, not "task"\n',
    );
  });

  it('prints diagnostics and exits 1 for a playbook with errors; usage errors exit 2', () => {
    const root = workspace({
      'x.playbook.yml':
        'version: 1\ntitle: X\nsteps:\n  a:\n    needs: [nowhere]\n    role: implementer\n    prompt: P\n',
    });
    const broken = run(['run', 'x.playbook.yml', '--json'], root);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('x.playbook.yml:5:13: error PB200 unknown step "nowhere" in needs');
    // Inputs are checked before any daemon is asked for anything.
    expect(run(['run', 'playbooks/pr.yml', '--backend', 'paseo']).stderr).toBe(
      'kairoku-playbook: input "task" is required\n',
    );
    expect(run(['run', 'playbooks/pr.yml', '--scenario', 'nope.yml']).code).toBe(2);
    const badScenario = workspace({ 's.yml': 'steps: { qq: { outcome: pass } }' });
    const scenario = run(['run', join(repo, 'playbooks/pr.yml'), '--scenario', 's.yml'], badScenario);
    expect(scenario).toMatchObject({
      code: 2,
      stderr: 'kairoku-playbook: scenario s.yml: steps.qq: unknown step "qq"; did you mean "qa"?\n',
    });
  });

  // Without a terminal, an unscripted gate is decided by nobody: the run waits at it (exit 3), whole
  // on disk, until `runs decide` decides it and drives the run on.
  it.skipIf(process.stdin.isTTY && process.stdout.isTTY)(
    'prints progress lines as steps change; without a terminal a gate waits for runs decide',
    () => {
      const root = workspace({ 'playbooks/pr.yml': readFileSync(join(repo, 'playbooks/pr.yml'), 'utf8') });
      const result = run(['run', 'playbooks/pr.yml', '--input', 'task=x'], root);
      expect(result.code).toBe(3);
      const lines = result.stdout.split('\n');
      expect(lines[0]).toMatch(/^▶ run pr-[0-9a-f]{6} of pr started$/);
      expect(lines).toContain('▸ plan started (attempt 1)');
      expect(lines).toContain('✓ plan completed with done');
      expect(lines).toContain('– review skipped: its when condition is false');
      expect(lines).toContain('? ship is waiting for a decision: Ship sim/implement-c71e23?');
      expect(result.stdout).not.toContain('ship decided');
      const id = /run (pr-[0-9a-f]{6})/.exec(result.stdout)![1]!;
      expect(result.stderr).toBe(
        `kairoku-playbook: run ${id} waits at gate "ship" (Ship sim/implement-c71e23?): no terminal to ask at and no --gate ship=CHOICE, so nothing decided it.\n` +
          `  decide it with: kairoku-playbook runs decide ${id} ship CHOICE [--comment TEXT]   (choices: approve, reject, revise)\n` +
          '  or in the panel of kairoku-playbook serve; the run goes on from there.\n',
      );
      const stored = JSON.parse(readFileSync(join(home, 'runs', `${id}.json`), 'utf8'));
      expect(stored.status).toBe('running');
      expect(stored.steps.find((s: { name: string }) => s.name === 'ship').status).toBe('waiting');

      // Another run is refused, naming the run in the way and the exact commands.
      const refused = run(['run', 'playbooks/pr.yml', '--input', 'task=y'], root);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `run "${id}" of playbook "pr" is already active in this workspace (running, waiting at gate "ship"); one run may be active per workspace: finish it (decide its gate "ship" with kairoku-playbook runs decide ${id} ship CHOICE, or cancel it with kairoku-playbook runs cancel ${id}) before starting another`,
      );

      expect(run(['runs', 'decide', id, 'ship', 'maybe'], root)).toMatchObject({
        code: 1,
        stderr: `kairoku-playbook: run ${id}: gate "ship" has no choice "maybe"; its choices are approve, reject, revise\n`,
      });
      const decided = run(['runs', 'decide', id, 'ship', 'approve'], root);
      expect(decided.code).toBe(0);
      expect(decided.stdout).toContain('! ship decided: approve');
      expect(decided.stdout).toMatch(
        /run pr-[0-9a-f]{6} completed · sim \(simulated agents, no model\)\noutputs:\n {2}branch: sim\/implement-c71e23\n$/,
      );
    },
  );

  it('keeps secret inputs out of everything it saves', () => {
    const secret = 'sk-live-cli-secret-7731';
    const result = run([
      'run',
      'playbooks/pr.yml',
      '--input',
      'task=x',
      '--input',
      `api_key=${secret}`,
      '--gate',
      'ship=approve',
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(secret);
    for (const name of readdirSync(join(home, 'runs')))
      expect(readFileSync(join(home, 'runs', name), 'utf8')).not.toContain(secret);
  });

  it('asks gates at the terminal: the choices by number, name or label, then a comment where one is required', async () => {
    const answers = ['ship it', 'aprove', '3', '', 'mention the flag in the README', 'APPROVE'];
    const written: string[] = [];
    const terminal: Terminal = {
      write: (t) => void written.push(t),
      ask: (q) => {
        written.push(q);
        return answers.shift();
      },
    };
    const { out, commandIo } = io(repo);
    const code = await runRun(['playbooks/pr.yml', '--input', 'task=x'], commandIo, terminal);
    expect(code).toBe(0);
    expect(out.stdout).toBe('');
    const text = written.join('');
    // The gate is headed once, by the progress line of its opening, with its summary and choices under it.
    expect(text).toContain(
      '? ship is waiting for a decision: Ship sim/implement-c71e23?\n' +
        '  Review verdict: not reviewed\n  choices (a number or a name):\n' +
        '    1. approve\n    2. reject\n    3. revise [comment required]\n',
    );
    // (the gate opened twice: revise loops back to implement)
    expect(text.split('Ship sim/implement-c71e23?').length - 1).toBe(2);
    expect(text).toContain(
      '  "ship it" is not a choice; type its number (1 to 3) or one of approve, reject, revise\n',
    );
    // a mistyped name gets a did-you-mean, as every other name in the CLI does
    expect(text).toContain(
      '  "aprove" is not a choice (did you mean "approve"?); type its number (1 to 3) or one of approve, reject, revise\n',
    );
    expect(text).toContain('comment> ');
    expect(text).toContain('  choice "revise" needs a comment\n');
    expect(text).toContain('! ship decided: revise (mention the flag in the README)');
    expect(text).toContain('↺ ship revise: loop back to implement (ship.revise 1 of 2)');
    expect(text).toMatch(/run pr-[0-9a-f]{6} completed · sim \(simulated agents, no model\)\n/);
  });

  it('cancels a run that cannot go on, and says why (exit 1)', () => {
    const root = workspace({ 's.yml': 'inputs: { task: x }\ngates: { ship: { choice: revise } }' });
    const result = run(['run', join(repo, 'playbooks/pr.yml'), '--scenario', 's.yml', '--json'], root);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'kairoku-playbook: gate-decided ship was refused: choice "revise" of gate "ship" needs a comment\n',
    );
    const printed = JSON.parse(result.stdout);
    expect(printed).toMatchObject({
      status: 'canceled',
      steps: { ship: { status: 'canceled' } },
    });
    // Written by the run's host before it let go of the run: the file says so, and nothing claims it.
    const saved = JSON.parse(readFileSync(join(home, 'runs', `${printed.id}.json`), 'utf8'));
    expect(saved.status).toBe('canceled');
    expect(saved.reason).toContain('the sim run could not go on: gate-decided ship was refused');
    expect(readdirSync(join(home, 'runs')).filter((f) => f.startsWith(`${printed.id}.`))).toEqual([
      `${printed.id}.json`,
    ]);
  });

  it('has --help', () => {
    const result = run(['run', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Usage: kairoku-playbook run FILE [--input NAME=VALUE...] [--backend sim|paseo|kairoku] [--json]',
    );
  });
});

describe('kairoku-playbook test', () => {
  it('runs the playbook tests beside the samples', () => {
    const result = run(['test', 'playbooks']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(
      '✓ qa fails once, review asks for changes once, ship is revised once, then everything lands (playbooks/pr.test.yml)\n',
    );
    expect(result.stdout).toMatch(/\n\d+ passed, 0 failed\n$/);
    expect(result.code).toBe(0);
  });

  it('reports a failing test with its differences, and exits 1', () => {
    const pr = readFileSync(join(repo, 'playbooks/pr.yml'), 'utf8');
    const root = workspace({
      'playbooks/pr.yml': pr,
      'playbooks/pr.test.yml':
        'inputs: { task: x }\nexpect:\n  status: failed\n  steps: { qa: { attempts: 2 } }\n',
      'playbooks/ok.playbook.yml':
        'version: 1\ntitle: Ok\nsteps:\n  only: { role: implementer, prompt: P }\n',
      'playbooks/ok.playbook.test.yml':
        'expect: { status: completed, steps: { only: { attempts: [done] } } }\n',
      'playbooks/orphan.test.yml': 'expect: {}\n',
    });
    const result = run(['test'], root);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      [
        '✓ playbooks/ok.playbook.test.yml',
        '✗ playbooks/orphan.test.yml',
        '    no playbook beside it: expected playbooks/orphan.yml',
        '✗ playbooks/pr.test.yml',
        '    status: expected failed, got completed',
        '    steps.qa.attempts: expected 2, got 1 [pass]',
        '',
        '1 passed, 2 failed',
        '',
      ].join('\n'),
    );
  });

  it('fails a test whose playbook has errors, naming them', () => {
    const root = workspace({
      'playbooks/x.yml':
        'version: 1\ntitle: X\nsteps:\n  a:\n    needs: [nowhere]\n    role: implementer\n    prompt: P\n',
      'playbooks/x.test.yml': 'expect: {}\n',
    });
    const result = run(['test', 'playbooks/x.test.yml'], root);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      '    playbooks/x.yml has errors:\n      playbooks/x.yml:5:13: error PB200 unknown step "nowhere" in needs',
    );
  });

  it('exits 1 when there is no test, 2 for a path that is not one', () => {
    const root = workspace({ 'a.txt': '' });
    expect(run(['test'], root)).toMatchObject({
      code: 1,
      stdout: 'no playbook tests found (*.test.yml beside the playbooks)\n',
    });
    expect(run(['test', 'a.txt'], root)).toMatchObject({ code: 2 });
    expect(run(['test', 'missing'], root)).toMatchObject({
      code: 2,
      stderr: 'kairoku-playbook: no such file or folder: missing\n',
    });
    expect(run(['test', '--help']).stdout).toContain('Usage: kairoku-playbook test [PATH...]');
  });
});

describe('room for a run', () => {
  it('refuses a run while another is active in the workspace, or when limits.concurrency is reached', async () => {
    const { RunStore, createRun } = await import('@kairoku-playbook/runtime');
    const { compilePlaybook } = await import('@kairoku-playbook/compiler');
    const { realpathSync } = await import('node:fs');
    const text = readFileSync(join(repo, 'playbooks/pr.yml'), 'utf8');
    const ir = compilePlaybook('playbooks/pr.yml', text).ir!;
    const here = workspace({ 'playbooks/pr.yml': text });
    const elsewhere = workspace({ 'playbooks/pr.yml': text });
    // A run a manager (MCP) is driving in `here`: not a sim run, so recovery leaves it active.
    const active = createRun(ir, { id: 'pr-managed', inputs: { task: 't' }, now: 0, backend: 'mcp' });
    new RunStore(home).save({ ...active, status: 'running', workspace: realpathSync(here) });

    const refused = run(['run', 'playbooks/pr.yml', '--input', 'task=x', '--json'], here);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('run "pr-managed" of playbook "pr" is already active in this workspace');
    // pr.yml allows one active run at once (limits.concurrency: 1), wherever it runs.
    const capped = run(['run', 'playbooks/pr.yml', '--input', 'task=x', '--json'], elsewhere);
    expect(capped.code).toBe(2);
    expect(capped.stderr).toContain('allows 1 active run at once (limits.concurrency)');
  });

  it("run and the MCP server's start_playbook create runs through the run host: each is refused for the other's run with the host's refusal", async () => {
    const { PlaybookProtocol } = await import('@kairoku-playbook/runtime/mcp');
    const here = workspace({ 'playbooks/pr.yml': readFileSync(join(repo, 'playbooks/pr.yml'), 'utf8') });
    // A home of its own: the test above leaves a run of pr.yml active, and pr.yml allows one at once.
    const own = tempDir('kp-run-home-');
    process.env.KAIROKU_PLAYBOOK_HOME = own;
    try {
      const protocol = new PlaybookProtocol({ workspace: here, home: own, caller: () => 'tester' });
      const created: string[] = [];
      protocol.host.subscribe(({ state }) => created.push(state.id));

      // A run the MCP server started: `run` is refused for it, in the CLI's words.
      const managed = protocol.startPlaybook({ playbook: 'pr', inputs: { task: 't' } }).run as string;
      expect(created).toEqual([managed]);
      const refused = run(['run', 'playbooks/pr.yml', '--input', 'task=x', '--json'], here);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe(
        `kairoku-playbook: run "${managed}" of playbook "pr" is already active in this workspace (running); one run may be active per workspace: finish it (or cancel it with kairoku-playbook runs cancel ${managed}) before starting another\n`,
      );
      protocol.cancelRun({ run: managed });

      // A run `run` started (it waits at its gate): start_playbook is refused for it with the host's code.
      const waiting = run(['run', 'playbooks/pr.yml', '--input', 'task=x', '--json'], here);
      expect(waiting.code).toBe(3);
      const id = JSON.parse(waiting.stdout).id as string;
      expect(() => protocol.startPlaybook({ playbook: 'pr', inputs: { task: 'u' } })).toThrow(
        expect.objectContaining({
          code: 'workspace-busy',
          message: `run "${id}" of playbook "pr" is already active in this workspace (running); one run may be active per workspace: finish it (or cancel it with cancel_run with run "${id}") before starting another`,
        }),
      );
      protocol.cancelRun({ run: id });
    } finally {
      process.env.KAIROKU_PLAYBOOK_HOME = home;
    }
  });
});
