/**
 * A bug is not "errors found" (issue 11): an exception no command expected exits 70, not 1, with a
 * short message that says it is a bug and what to report; the stack only with KAIROKU_PLAYBOOK_DEBUG=1;
 * and standard output gets nothing, so `--format json` never prints anything that is not JSON. The
 * bugs are planted with a preloaded script (`node --require`): the built CLI itself is unchanged.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runCli, tempDir } from '../../test/kit/index.js';

const REPO = new URL('../../', import.meta.url).pathname;
const folder = tempDir('kp-crash-');

/** A script that plants a bug before the CLI starts. */
function plant(name: string, source: string): string {
  const path = join(folder, `${name}.cjs`);
  writeFileSync(path, source);
  return path;
}

/** Formatting the diagnostics throws, as a bug in a formatter would (after every check ran). */
const FORMAT_BUG = plant(
  'format-bug',
  `const stringify = JSON.stringify;
JSON.stringify = function (value, ...rest) {
  if (Array.isArray(value)) throw new TypeError("Cannot read properties of undefined (reading 'line')");
  return stringify.call(this, value, ...rest);
};`,
);
/**
 * A bug that surfaces later, outside any command's call (once the CLI has started: its handlers are
 * there), and a promise rejected with nobody to catch it.
 */
const later = (name: string, fault: string) =>
  plant(
    name,
    `const wait = setInterval(() => {
  if (process.listenerCount('uncaughtException') === 0) return;
  clearInterval(wait);
  ${fault};
}, 1);`,
  );
const LATER_BUG = later('later-bug', "throw new RangeError('planted later')");
const REJECTION = later('rejection', "Promise.reject(new Error('planted rejection'))");
/** A full disk met where no command handles it (a save between a live run's events). */
const FULL_DISK = later(
  'full-disk',
  "throw Object.assign(new Error('ENOSPC: no space left on device, mkdir'), { code: 'ENOSPC', path: '/data/runs' })",
);

function cli(preload: string, args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ['--require', preload, CLI, ...args], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const ADVICE =
  'This is a bug in kairoku-playbook 0.1.0, not a problem with your input. Please report it with the command\n' +
  'you ran and the files it read; run it again with KAIROKU_PLAYBOOK_DEBUG=1 to add the stack trace.\n';

describe('an internal error', { timeout: 120_000 }, () => {
  it('exits 70 with a short message and nothing on stdout, even with --format json', () => {
    const result = cli(FORMAT_BUG, ['check', 'playbooks', '--format', 'json']);
    expect(result.code).toBe(70);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "kairoku-playbook: internal error: TypeError: Cannot read properties of undefined (reading 'line')\n" +
        ADVICE,
    );
  });

  it('prints the stack with KAIROKU_PLAYBOOK_DEBUG=1', () => {
    const result = cli(FORMAT_BUG, ['check', 'playbooks', '--format', 'json'], {
      KAIROKU_PLAYBOOK_DEBUG: '1',
    });
    expect(result.code).toBe(70);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'you ran and the files it read, and this stack trace:\nTypeError: Cannot read',
    );
    expect(result.stderr).toMatch(/\n\s+at /);
  });

  it('is caught outside a command too: an uncaught exception, an unhandled rejection', () => {
    // compile -o prints nothing, so the process lives on after the command until the bug surfaces.
    const compile = ['compile', 'playbooks/pr.yml', '-o', join(folder, 'pr.ir.json')];
    const uncaught = cli(LATER_BUG, compile);
    expect(uncaught.code).toBe(70);
    expect(uncaught.stderr).toBe(`kairoku-playbook: internal error: RangeError: planted later\n${ADVICE}`);
    const rejection = cli(REJECTION, compile);
    expect(rejection.code).toBe(70);
    expect(rejection.stderr).toBe(`kairoku-playbook: internal error: Error: planted rejection\n${ADVICE}`);
  });

  it('but a full disk, wherever it is met, is the disk-full sentence and exit 2, not a bug', () => {
    const result = cli(FULL_DISK, ['compile', 'playbooks/pr.yml', '-o', join(folder, 'pr.ir.json')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'kairoku-playbook: the disk is full: could not write /data/runs (no space left on the device that holds /data); free some space and try again\n',
    );
  });

  it('while findings and usage errors keep their codes: 1 and 2', () => {
    const broken = join(folder, 'broken.playbook.yml');
    writeFileSync(broken, 'version: 1\ntitle: x\nsteps:\n  a:\n    needs: [nope]\n    run: echo\n');
    expect(runCli(['check', broken]).status).toBe(1);
    expect(runCli(['check', '--format', 'xml']).status).toBe(2);
  });
});
