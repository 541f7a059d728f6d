/**
 * One serve per workspace, enforced (issue 27 item 2): two serves started at the same moment on one
 * workspace — before, both came up in 6 of 10 tries — give exactly one serve, ten times in a row; the
 * other says which process serves it. A lock left by a process that is gone, or by another process
 * with the same pid, does not count.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockServe, serveInfoPath } from '@kairoku-playbook/runtime/serve';
import { CLI, removeTempDirs, tempDir } from '../../test/kit/index.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  removeTempDirs();
});

/** A serve process: resolves `up` when it prints its URL, or `refused` with its stderr when it exits first. */
function serve(
  workspace: string,
  home: string,
): Promise<{ child: ChildProcess; up: boolean; stderr: string }> {
  const child = spawn(process.execPath, [CLI, 'serve', workspace, '--listen', '127.0.0.1:0'], {
    env: { ...process.env, KAIROKU_PLAYBOOK_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/http:\/\/127\.0\.0\.1:\d+\/\?login=/.test(out)) resolve({ child, up: true, stderr: err });
    });
    child.on('exit', () => resolve({ child, up: false, stderr: err }));
  });
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

describe('two serves started together on one workspace', () => {
  it('give exactly one serve, ten times in a row', async () => {
    const home = tempDir('serve-lock-home-');
    for (let pair = 0; pair < 10; pair++) {
      const workspace = tempDir('serve-lock-ws-');
      mkdirSync(join(workspace, 'playbooks'));
      const [a, b] = await Promise.all([serve(workspace, home), serve(workspace, home)]);
      expect([a.up, b.up].filter(Boolean)).toHaveLength(1);
      const refused = a.up ? b : a;
      const winner = a.up ? a : b;
      expect(refused.stderr).toMatch(new RegExp(`a serve \\(process ${winner.child.pid}\\) already serves`));
      await stopped(winner.child);
    }
  }, 120_000);
});

describe('the lock', () => {
  it('is taken over from a process that is gone, or from another process with the same pid', () => {
    const home = tempDir('serve-lock-home-');
    const workspace = '/some/workspace';
    const path = serveInfoPath(home, workspace).replace(/\.json$/, '.lock');
    mkdirSync(join(home, 'serve'), { recursive: true });
    // A pid no process has.
    writeFileSync(path, `${JSON.stringify({ pid: 2 ** 22 + 12345, started: '1' })}\n`);
    const first = lockServe(home, workspace);
    expect(first.ok).toBe(true);
    if (first.ok) first.release();
    // This process's pid, but a start time that is not this process's: a recycled pid.
    writeFileSync(path, `${JSON.stringify({ pid: process.pid, started: '1' })}\n`);
    const second = lockServe(home, workspace);
    expect(second.ok).toBe(true);
    // Held by a live process (this one, now): a second lock is refused, naming it.
    const third = lockServe(home, workspace);
    expect(third).toMatchObject({ ok: false, holder: { pid: process.pid } });
    if (second.ok) second.release();
    expect(lockServe(home, workspace).ok).toBe(true);
  });
});
