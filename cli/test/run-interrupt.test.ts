/**
 * `run` as a real child process: Ctrl-C (a real SIGINT) cancels a sim run, a gate with no terminal to
 * ask at is never decided by the tool (the run waits, exit 3, and `runs decide` drives it on), and on a
 * pseudo-terminal (util-linux `script`) the gate is asked and Ctrl-C at the prompt cancels.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, realpathSync } from 'node:fs';
import { vecToArray } from '@kairoku-playbook/runtime';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, hasTool, plain, REPO, tempDir, workspaceWith } from '../../test/kit/index.js';

const PR = readFileSync(join(REPO, 'playbooks/pr.yml'), 'utf8');

function setup() {
  const cwd = workspaceWith({ 'playbooks/pr.yml': PR });
  const home = tempDir('kp-interrupt-home-');
  const env = { ...process.env, KAIROKU_PLAYBOOK_HOME: home, NO_COLOR: '1' };
  const runFile = () => {
    const names = readdirSync(join(home, 'runs')).filter((n) => /^pr-[0-9a-f]{6}\.json$/.test(n));
    expect(names).toHaveLength(1);
    return JSON.parse(readFileSync(join(home, 'runs', names[0]!), 'utf8')) as {
      id: string;
      status: string;
      reason: string | null;
      steps: { name: string; status: string }[];
    };
  };
  return { cwd, home, env, runFile };
}

/** The command in a child without a terminal (stdin a pipe); resolves with its exit code and output. */
function child(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const proc = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  proc.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  return {
    proc,
    exited,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    async waitFor(text: string) {
      const deadline = Date.now() + 30_000;
      while (!stdout.includes(text)) {
        if (Date.now() > deadline) throw new Error(`never printed ${text}:\n${stdout}\n${stderr}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
}

describe('Ctrl-C in run', () => {
  it('cancels a sim run: the run file ends canceled, its agents stopped, exit 130', async () => {
    const { cwd, env, runFile } = setup();
    const run = child(['run', 'playbooks/pr.yml', '--input', 'task=x', '--sim-delay', '60000'], cwd, env);
    await run.waitFor('plan started');
    run.proc.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.stderr).toContain('kairoku-playbook: canceling the run (Ctrl-C again to leave at once)');
    const file = runFile();
    expect(file.status).toBe('canceled');
    expect(file.reason).toBe('canceled at the terminal (Ctrl-C)');
    expect(file.steps.find((s) => s.name === 'plan')!.status).toBe('canceled');
    expect(run.stdout).toContain(`run ${file.id} canceled: canceled at the terminal (Ctrl-C)`);
  }, 60_000);

  it('a second Ctrl-C leaves at once, and the run file is whole and canceled', async () => {
    const { cwd, env, runFile } = setup();
    const run = child(['run', 'playbooks/pr.yml', '--input', 'task=x', '--sim-delay', '60000'], cwd, env);
    await run.waitFor('plan started');
    run.proc.kill('SIGINT');
    run.proc.kill('SIGINT');
    expect(await run.exited).toBe(130);
    // Parsed whole (every save is write, fsync, rename), and canceled.
    expect(runFile().status).toBe('canceled');
  }, 60_000);
});

describe('a gate without a terminal', () => {
  it('is never decided by the tool: the run waits (exit 3), then runs decide drives it on', async () => {
    const { cwd, env, runFile } = setup();
    const run = child(['run', 'playbooks/pr.yml', '--input', 'task=x'], cwd, env);
    expect(await run.exited).toBe(3);
    const waiting = runFile();
    expect(waiting.status).toBe('running');
    expect(waiting.steps.find((s) => s.name === 'ship')!.status).toBe('waiting');
    expect(run.stdout).not.toContain('ship decided');
    expect(run.stderr).toContain(`kairoku-playbook runs decide ${waiting.id} ship CHOICE`);

    const decide = child(
      ['runs', 'decide', waiting.id, 'ship', 'revise', '--comment', 'rename it'],
      cwd,
      env,
    );
    // revise loops back to implement, and the gate opens again: it waits once more.
    expect(await decide.exited).toBe(3);
    expect(decide.stdout).toContain('! ship decided: revise (rename it)');
    const approve = child(['runs', 'decide', waiting.id, 'ship', 'approve'], cwd, env);
    expect(await approve.exited).toBe(0);
    expect(runFile().status).toBe('completed');
  }, 60_000);

  it('runs decide refuses a run another process drives, and changes nothing', async () => {
    const { cwd, env, runFile } = setup();
    const run = child(['run', 'playbooks/pr.yml', '--input', 'task=x', '--sim-delay', '60000'], cwd, env);
    try {
      await run.waitFor('plan started');
      const before = runFile();
      const decide = spawnSync(process.execPath, [CLI, 'runs', 'decide', before.id, 'ship', 'approve'], {
        cwd,
        env,
        encoding: 'utf8',
      });
      expect(decide.status).toBe(1);
      expect(decide.stderr).toBe(
        `kairoku-playbook: run ${before.id} is driven by process ${run.proc.pid}, which asks its gates at its own terminal: decide "ship" there (or cancel the run with kairoku-playbook runs cancel ${before.id})\n`,
      );
      expect(runFile()).toEqual(before);
    } finally {
      run.proc.kill('SIGINT');
      await run.exited;
    }
  }, 60_000);

  it('a serve started later takes the waiting run up, the gate open again, and decides it', async () => {
    const { cwd, home, env, runFile } = setup();
    const run = child(['run', 'playbooks/pr.yml', '--input', 'task=x'], cwd, env);
    expect(await run.exited).toBe(3);
    const { id } = runFile();
    const { RunHost, simBackendFor } = await import('@kairoku-playbook/runtime/serve');
    const host = new RunHost({
      home,
      workspace: realpathSync(cwd),
      backend: 'sim',
      backendFor: simBackendFor(undefined),
    });
    try {
      expect(host.recover().adopted).toEqual([id]);
      const adopted = host.get(id);
      if (!adopted.ok) throw new Error(adopted.refusal.message);
      expect(adopted.value.status).toBe('running');
      expect(vecToArray(adopted.value.steps).find((s: { name: string }) => s.name === 'ship')!.status).toBe(
        'waiting',
      );
      const decided = host.operate(id, { type: 'decide', step: 'ship', choice: 'approve' });
      if (!decided.ok) throw new Error(decided.refusal.message);
      expect(decided.value.status).toBe('completed');
    } finally {
      host.close();
    }
    expect(runFile().status).toBe('completed');
  }, 60_000);

  it('--gate decides it on sim', async () => {
    const { cwd, env, runFile } = setup();
    const run = child(['run', 'playbooks/pr.yml', '--input', 'task=x', '--gate', 'ship=approve'], cwd, env);
    expect(await run.exited).toBe(0);
    expect(run.stdout).toContain('! ship decided: approve');
    expect(runFile().status).toBe('completed');
  }, 60_000);
});

describe.skipIf(!hasTool('script'))('run on a terminal (a pseudo-terminal)', () => {
  /** `run` under util-linux `script`, typed at; resolves with its exit code (`-e`) and the screen. */
  function onTerminal(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
    const command = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const proc = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd,
      env: { ...env, TERM: 'xterm', COLUMNS: '80', LINES: '30' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    proc.stdout.on('data', (c: Buffer) => (screen += c.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
    return {
      exited,
      type: (keys: string) => proc.stdin.write(keys),
      get screen() {
        return plain(screen);
      },
      async waitFor(text: string) {
        const deadline = Date.now() + 30_000;
        while (!plain(screen).includes(text)) {
          if (Date.now() > deadline) throw new Error(`never showed ${text}:\n${plain(screen)}`);
          await new Promise((r) => setTimeout(r, 25));
        }
      },
    };
  }

  it('asks the gate, takes its number, and the run completes', async () => {
    const { cwd, env, runFile } = setup();
    const term = onTerminal(['run', 'playbooks/pr.yml', '--input', 'task=x'], cwd, env);
    await term.waitFor('choice> ');
    expect(term.screen).toContain('    1. approve');
    term.type('1\r');
    expect(await term.exited).toBe(0);
    expect(runFile().status).toBe('completed');
  }, 60_000);

  it('Ctrl-C at the gate prompt cancels the run (exit 130)', async () => {
    const { cwd, env, runFile } = setup();
    const term = onTerminal(['run', 'playbooks/pr.yml', '--input', 'task=x'], cwd, env);
    await term.waitFor('choice> ');
    term.type('\x03');
    expect(await term.exited).toBe(130);
    const file = runFile();
    expect(file.status).toBe('canceled');
    expect(file.steps.find((s) => s.name === 'ship')!.status).toBe('canceled');
  }, 60_000);
});
