import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, workspaceWith } from '../../test/kit/index.js';

const BROKEN = 'version: 1\ntitle: Watch me\nsteps:\n  plan:\n    role: planer\n    prompt: Plan it.\n';
const CLEAN = BROKEN.replace('planer', 'planner');

/** Resolves once `read()` satisfies `until` (a guard of 60 s detects a hang, it measures nothing). */
async function waitFor(read: () => string, until: (text: string) => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!until(read())) {
    if (Date.now() > deadline) throw new Error(`never saw ${what}; got:\n${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('kairoku-playbook check --watch', () => {
  it('checks again when a playbook changes or appears, and exits 0 on Ctrl-C', async () => {
    const folder = workspaceWith({ 'playbooks/first.yml': BROKEN });
    const child = spawn(process.execPath, [CLI, 'check', '--watch', '--no-color'], {
      cwd: folder,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Each check ends with the "watching" line, printed once the folders it found are watched: a change
    // is only promised to be seen after it (a file written before may land in a folder not yet watched).
    const watching = (checks: number) =>
      waitFor(
        () => stderr,
        (s) => s.split('watching the current folder for changes').length - 1 >= checks,
        `the watch after check ${checks}`,
      );
    try {
      // (standard error and standard output are two pipes: wait for each)
      await watching(1);
      await waitFor(
        () => stdout,
        (s) => s.includes('1 error in 1 file\n'),
        'the first check',
      );
      expect(stdout).toContain('error PB201 unknown role "planer"');
      expect(stdout).toContain('1 error in 1 file\n');

      // the editor saves the fix: the new result is printed
      writeFileSync(join(folder, 'playbooks/first.yml'), CLEAN);
      await waitFor(
        () => stdout,
        (s) => s.includes('no problems in 1 file'),
        'the check after the fix',
      );
      await watching(2);
      expect(stdout).toContain('--- first.yml changed: checking again ---\n');

      // a new playbook in a new folder of playbooks is found (and that folder watched from then on)
      mkdirSync(join(folder, '.kairoku/playbooks'), { recursive: true });
      writeFileSync(join(folder, 'second.playbook.yml'), BROKEN);
      await waitFor(
        () => stdout,
        (s) => s.includes('1 error in 2 files'),
        'the new playbook checked',
      );
      await watching(3);
      writeFileSync(join(folder, '.kairoku/playbooks/third.yml'), CLEAN);
      await waitFor(
        () => stdout,
        (s) => s.includes('1 error in 3 files'),
        'the playbook in the new folder',
      );
      await watching(4);

      // a file that is not YAML changes nothing
      const before = stdout;
      writeFileSync(join(folder, 'notes.txt'), 'hello\n');
      writeFileSync(join(folder, 'second.playbook.yml'), CLEAN);
      await waitFor(
        () => stdout,
        (s) => s.includes('no problems in 3 files'),
        'the last fix',
      );
      expect(stdout.slice(before.length)).not.toContain('notes.txt');

      child.kill('SIGINT');
      expect(await exit).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);

  it('sees a playbook created in a new folder without any other save', async () => {
    const folder = workspaceWith({ 'playbooks/first.yml': CLEAN });
    const child = spawn(process.execPath, [CLI, 'check', '--watch', '--no-color'], {
      cwd: folder,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const watching = (checks: number) =>
      waitFor(
        () => stderr,
        (s) => s.split('watching the current folder for changes').length - 1 >= checks,
        `the watch after check ${checks}`,
      );
    try {
      await watching(1);
      await waitFor(
        () => stdout,
        (s) => s.includes('no problems in 1 file\n'),
        'the first check',
      );

      // a new folder two levels deep, its playbook written at once (as `git checkout` or a generator does)
      mkdirSync(join(folder, 'teams/web'), { recursive: true });
      writeFileSync(join(folder, 'teams/web/deploy.playbook.yml'), BROKEN);
      await waitFor(
        () => stdout,
        (s) => s.includes('1 error in 2 files'),
        'the playbook in the new folder',
      );
      expect(stdout).toContain('teams/web/deploy.playbook.yml:5:11: error PB201');
      await watching(2);

      // a new folder of playbooks (SPEC §2), made after the watch began
      mkdirSync(join(folder, '.paseo/playbooks'), { recursive: true });
      writeFileSync(join(folder, '.paseo/playbooks/review.yml'), CLEAN);
      await waitFor(
        () => stdout,
        (s) => s.includes('1 error in 3 files'),
        'the playbook in .paseo/playbooks',
      );

      // the new folder is watched from then on: an edit of its playbook is seen
      await watching(3);
      writeFileSync(join(folder, 'teams/web/deploy.playbook.yml'), CLEAN);
      await waitFor(
        () => stdout,
        (s) => s.includes('no problems in 3 files'),
        'the fix in the new folder',
      );

      child.kill('SIGINT');
      expect(await exit).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);
});
