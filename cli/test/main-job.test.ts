/**
 * The README's main job (`npm run main-job`, scripts/main-job.mjs): on a terminal its `ship` gate is
 * asked, and answering it completes the run; without a terminal the script decides it with
 * `--gate ship=approve`. The build step is left out (`--no-build`): the suite runs on a built tree.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasTool, plain, REPO, tempDir } from '../../test/kit/index.js';

const SCRIPT = join(REPO, 'scripts/main-job.mjs');

function home(): { home: string; env: NodeJS.ProcessEnv } {
  const folder = tempDir('kp-main-job-');
  return { home: folder, env: { ...process.env, KAIROKU_PLAYBOOK_HOME: folder, NO_COLOR: '1' } };
}

/** The one run the job saved in `home`. */
function savedRun(folder: string): { status: string; backend?: string } {
  const files = readdirSync(join(folder, 'runs')).filter((n) => /^pr-[0-9a-f]+\.json$/.test(n));
  expect(files).toHaveLength(1);
  return JSON.parse(readFileSync(join(folder, 'runs', files[0]!), 'utf8')) as { status: string };
}

describe('npm run main-job (scripts/main-job.mjs)', () => {
  it('package.json runs the script (no shell test for a terminal in the script line)', () => {
    const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts['main-job']).toBe('node scripts/main-job.mjs');
  });

  it('without a terminal, decides the gate itself and the run completes', () => {
    const { home: folder, env } = home();
    const result = spawnSync(process.execPath, [SCRIPT, '--no-build'], {
      cwd: REPO,
      env,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/no problems in \d+ files/);
    expect(result.stdout).toContain('--gate ship=approve decides the ship gate');
    expect(result.stdout).toContain('! ship decided: approve');
    expect(result.stdout).toMatch(/run pr-[0-9a-f]{6} completed/);
    expect(savedRun(folder).status).toBe('completed');
  }, 60_000);

  it.skipIf(!hasTool('script'))(
    'on a terminal, asks the gate; answering it completes the run',
    async () => {
      const { home: folder, env } = home();
      const command = `'${process.execPath}' '${SCRIPT}' --no-build`;
      const proc = spawn('script', ['-qfec', command, '/dev/null'], {
        cwd: REPO,
        env: { ...env, TERM: 'xterm', COLUMNS: '80', LINES: '30' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let screen = '';
      proc.stdout.on('data', (c: Buffer) => (screen += c.toString('utf8')));
      const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
      const deadline = Date.now() + 30_000;
      while (!plain(screen).includes('choice> ')) {
        if (Date.now() > deadline) throw new Error(`the gate was never asked:\n${plain(screen)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      // Asked, not decided: nothing has been written for the gate but the question.
      expect(plain(screen)).toContain('    1. approve');
      expect(plain(screen)).not.toContain('--gate ship=approve');
      expect(savedRun(folder).status).toBe('running');
      proc.stdin.write('1\r');
      expect(await exited).toBe(0);
      expect(plain(screen)).toMatch(/run pr-[0-9a-f]{6} completed/);
      expect(savedRun(folder).status).toBe('completed');
    },
    60_000,
  );
});
