/**
 * One writer per run (issues 22 and 27): a run that `kairoku-playbook run` drives in another process
 * is never taken over by the workspace's serve. An operation through serve's API is asked of that
 * process through the store's mailbox and answered once that process has applied it; the `run`
 * process then ends the run as the operation says (before, serve took the claim, answered "canceled",
 * and the `run` process drove on from memory and overwrote the file with a completed run).
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RunHost } from '@kairoku-playbook/runtime';
import { simBackendFor, startServe } from '@kairoku-playbook/runtime/serve';
import { callServe, CLI, tempDir } from '../../test/kit/index.js';

const repoRoot = new URL('../../', import.meta.url).pathname;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function runProcess(workspace: string, home: string) {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'run',
      'playbooks/pr.yml',
      '--backend',
      'sim',
      '--sim-delay',
      '1500',
      '--input',
      'task=x',
      '--gate',
      'ship=approve',
      '--json',
    ],
    {
      cwd: workspace,
      env: { ...process.env, KAIROKU_PLAYBOOK_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<{ code: number | null; stdout: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout })),
  );
  cleanups.push(() => void child.kill());
  return exited;
}

describe('serve and a run another process drives', () => {
  it('asks that process, answers once it has applied the cancel, and never takes the run', async () => {
    const workspace = tempDir('one-writer-ws-');
    const home = tempDir('one-writer-home-');
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    mkdirSync(join(workspace, 'playbooks'));
    copyFileSync(join(repoRoot, 'playbooks/pr.yml'), join(workspace, 'playbooks/pr.yml'));

    const exited = runProcess(workspace, home);
    const runs = join(home, 'runs');
    let id = '';
    await vi.waitFor(
      () => {
        const owner = existsSync(runs) ? readdirSync(runs).find((n) => n.endsWith('.owner')) : undefined;
        expect(owner).toBeDefined();
        id = owner!.replace(/\.owner$/, '');
      },
      { timeout: 20_000, interval: 50 },
    );

    const host = new RunHost({ home, workspace, backend: 'sim', backendFor: simBackendFor(undefined) });
    host.recover();
    const serve = await startServe({ host, listen: { host: '127.0.0.1', port: 0 }, watchPlaybooks: false });
    cleanups.push(async () => {
      await serve.close();
      host.close();
    });
    const { status, body } = await callServe<{ run: { status: string } }>(
      serve,
      `/api/v1/runs/${id}/cancel`,
      { reason: 'from the panel' },
    );
    expect(status).toBe(200);
    expect(body.run.status).toBe('canceled');
    // serve never drove it: the `run` process ends it as canceled, not completed.
    expect(host.active).not.toContain(id);
    const result = await exited;
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'canceled', reason: 'from the panel' });
    const stored = host.get(id);
    expect(stored.ok && stored.value.status).toBe('canceled');
  }, 60_000);
});
