/**
 * A full disk never corrupts a run file behind a success message (issue 11): a real, small tmpfs is
 * the store's home (`$KAIROKU_PLAYBOOK_HOME`), filled up, and the built CLI runs on it. A write the disk
 * cuts short, or one that finds no space at all, is an error that says the disk is full and where; the
 * command exits 2; every run file on the disk is whole JSON (the old state of the run that failed, the
 * runs before it) and `runs list` lists them; no temp file is left behind.
 *
 * Mounting needs root (CI has it); where mounting is refused the tests are skipped, saying why.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, runCli, tempDir } from '../kit/index.js';

/** A 1 MiB tmpfs of our own, or why there cannot be one here. */
function mountSmallDisk(): { home: string } | { reason: string } {
  if (process.platform !== 'linux') return { reason: `tmpfs needs Linux, not ${process.platform}` };
  const home = tempDir('kp-full-disk-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', home], { stdio: 'pipe' });
    return { home };
  } catch (error) {
    rmSync(home, { recursive: true, force: true });
    const stderr = String((error as { stderr?: Buffer }).stderr ?? '').trim();
    return {
      reason: `mounting a tmpfs was refused (${stderr || (error as Error).message}); run as root to test a full disk`,
    };
  }
}

const disk = mountSmallDisk();
if ('reason' in disk) console.warn(`test/hostile/full-disk.test.ts skipped: ${disk.reason}`);
const home = 'home' in disk ? disk.home : '';

afterAll(() => {
  if (!home) return;
  spawnSync('umount', [home]);
  rmSync(home, { recursive: true, force: true });
});

function cli(...args: string[]) {
  const result = runCli(args, { home, env: { NO_COLOR: '1' } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const run = () =>
  cli(
    'run',
    'playbooks/pr.yml',
    '--backend',
    'sim',
    '--input',
    'task=Add a flag',
    '--gate',
    'ship=approve',
    '--json',
  );

/** Fills the disk so that `free` bytes are left (tmpfs counts whole pages). */
function fillLeaving(free: number): void {
  const filler = join(home, 'filler');
  rmSync(filler, { force: true });
  const stats = statfsSync(home);
  const available = stats.bavail * stats.bsize;
  if (available > free) writeFileSync(filler, Buffer.alloc(available - free));
  const left = statfsSync(home);
  expect(left.bavail * left.bsize).toBeLessThanOrEqual(free);
}

/** Every run file parses as a run; no temp file is left; `runs list` lists each run. */
function expectStoreWhole(): Record<string, { status: string }> {
  const folder = join(home, 'runs');
  const names = readdirSync(folder);
  expect(names.filter((n) => n.endsWith('.tmp'))).toEqual([]);
  const runs: Record<string, { status: string }> = {};
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const state = JSON.parse(readFileSync(join(folder, name), 'utf8')) as { id: string; status: string };
    runs[state.id] = state;
  }
  const listed = cli('runs', 'list', '--all');
  expect(listed.code).toBe(0);
  for (const id of Object.keys(runs)) expect(listed.stdout).toContain(id);
  expect(listed.stderr).toBe('');
  return runs;
}

function expectDiskFullRefusal(result: ReturnType<typeof cli>): void {
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(
    new RegExp(
      `^kairoku-playbook: the disk is full: could not write ${home}/\\S+ \\(no space left on the device that holds ${home}\\S*\\); free some space and try again\\n$`,
    ),
  );
  expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
}

describe.skipIf(!home)('a full disk (a real tmpfs as the home)', { timeout: 120_000 }, () => {
  it('builds the CLI first', () => expect(existsSync(CLI)).toBe(true));

  let first = '';
  let cut = '';

  it('a run that has room completes and saves its run file', () => {
    const result = run();
    expect(result.code).toBe(0);
    first = (JSON.parse(result.stdout) as { id: string }).id;
    expect(expectStoreWhole()[first]?.status).toBe('completed');
  });

  it('a save the disk cuts short mid-run: exit 2 saying so, the run file keeps its last whole state', () => {
    // Room for the run's first save (about 30 KB), not for the next one next to it.
    fillLeaving(64 * 1024);
    const result = run();
    expectDiskFullRefusal(result);
    expect(result.stdout).toBe('');
    const runs = expectStoreWhole();
    expect(runs[first]?.status).toBe('completed');
    const others = Object.keys(runs).filter((id) => id !== first);
    expect(others).toHaveLength(1);
    cut = others[0]!;
    expect(runs[cut]?.status).toBe('running'); // as last saved whole
  });

  it('with no space at all: the same sentence, no stack trace, nothing half-written', () => {
    rmSync(join(home, 'filler'), { force: true });
    // The run cut short stays active in this workspace until canceled (one run per workspace).
    expect(cli('runs', 'cancel', cut).code).toBe(0);
    fillLeaving(0);
    expectDiskFullRefusal(run());
    expectDiskFullRefusal(cli('runs', 'archive', first));
    const runs = expectStoreWhole();
    expect(runs[cut]?.status).toBe('canceled');
    expect(Object.keys(runs).sort()).toEqual([first, cut].sort());
  });

  it('compile -o on a full disk: exit 2 saying so, and no file or temp file left', () => {
    fillLeaving(0);
    const output = join(home, 'pr.ir.json');
    const result = cli('compile', 'playbooks/pr.yml', '-o', output);
    expectDiskFullRefusal(result);
    // (the runs of the tests before made the home's keys and run index; compile -o adds nothing beside them)
    const before = new Set(['runs', 'run-index.jsonl', 'filler', 'secret-mask.key', 'mcp.key']);
    expect(readdirSync(home).filter((n) => !before.has(n))).toEqual([]);
  });
});
