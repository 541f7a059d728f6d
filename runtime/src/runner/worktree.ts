import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-C', cwd, ...args], { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

/**
 * A fresh worktree of `repo` at `path`, detached at `base` (RF-010: one per dispatch). Several runner
 * processes may add worktrees to one repository at once; git's own lock can then refuse one, so a
 * failed add is tried again a few times.
 */
export async function addWorktree(repo: string, path: string, base: string): Promise<void> {
  let last: unknown;
  for (let tryNo = 0; tryNo < 4; tryNo++) {
    try {
      await git(repo, ['worktree', 'add', '--detach', '--quiet', path, base]);
      return;
    } catch (error) {
      last = error;
      rmSync(path, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 50 * (tryNo + 1)));
    }
  }
  throw new Error(`git worktree add ${base} failed: ${firstLine(last)}`);
}

/**
 * Where a dispatch's worktree starts: the tip of the run's branch once an earlier step pushed work to
 * it (so a check tests what the implementer committed), else the base branch.
 */
export async function startingPoint(
  repo: string,
  runBranch: string | undefined,
  base: string,
): Promise<string> {
  if (!runBranch) return base;
  try {
    await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${runBranch}`]);
    return runBranch;
  } catch {
    return base;
  }
}

/** Removes a worktree, whatever is in it; a folder git no longer knows is deleted and pruned. */
export async function removeWorktree(repo: string, path: string): Promise<void> {
  try {
    await git(repo, ['worktree', 'remove', '--force', '--force', path]);
  } catch {
    rmSync(path, { recursive: true, force: true });
    await git(repo, ['worktree', 'prune']).catch(() => '');
  }
}

/** The paths a read-only role's agent changed in its worktree (`git status`), up to `max`. */
export async function changedPaths(path: string, max: number): Promise<string[]> {
  const out = await git(path, ['status', '--porcelain=v1', '-z', '--untracked-files=all']);
  return out
    .split('\0')
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3))
    .slice(0, max);
}

function firstLine(error: unknown): string {
  const text = (error as { stderr?: string }).stderr || (error as Error).message || String(error);
  return text.trim().split('\n')[0] ?? '';
}
