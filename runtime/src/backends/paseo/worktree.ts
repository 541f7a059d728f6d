import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Log, Payload, PaseoClient } from './client.js';
import { PaseoError, isObject } from './client.js';

/** The branch of a `new-worktree` run (seed 000): `playbooks/<playbook>-<short id>`. */
export function runBranch(playbook: string, runId: string): string {
  return `playbooks/${playbook}-${runId.slice(-6)}`;
}

export interface RunWorktree {
  /** the worktree's folder, where every agent and check of the run works */
  path: string;
  branch: string;
  /** false: an existing worktree of the run was found (the runtime restarted) */
  created: boolean;
}

/**
 * The run's Paseo worktree for `workspace: new-worktree`, made once, before the first step, with
 * `create_paseo_worktree_request` (so it shows in Paseo as the run's workspace, and every agent and
 * check of the run shares it). A worktree of the run that already exists (found by its branch with
 * `paseo_worktree_list_request`) is used again: a restarted runtime does not make a second one.
 *
 * The run's branch is made first, with git, from the workspace's current branch, and Paseo is asked
 * for a worktree that checks it out (`action: "checkout"`). A `branch-off` worktree would not do:
 * the daemon marks it for "first agent branch auto-name", and the first agent made in it renames
 * whatever branch is checked out after that agent's first message (seen on getpaseo/paseo f3de5689),
 * which undid the run's branch and made a second run of the same task fail on a taken name. A
 * `checkout` worktree is not renamed. `keepRunBranch` checks it again once agents start.
 * This assumes, as the read-only check and the check steps do, that the runtime and the daemon share
 * the machine.
 */
export async function prepareWorktree(
  client: PaseoClient,
  options: { cwd: string; branch: string; log: Log; timeoutMs?: number },
): Promise<RunWorktree> {
  const { cwd, branch, log } = options;
  const timeout = options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {};
  try {
    const listed = await client.request('paseo_worktree_list_request', { cwd }, timeout);
    const worktrees = Array.isArray(listed.worktrees) ? listed.worktrees.filter(isObject) : [];
    const existing = worktrees.find((w) => w.branchName === branch && typeof w.worktreePath === 'string');
    if (existing) return { path: existing.worktreePath as string, branch, created: false };
  } catch (error) {
    log('debug', `paseo: could not list the Paseo worktrees (${(error as Error).message}); making one`);
  }
  const slug = branch.slice(branch.lastIndexOf('/') + 1);
  makeBranch(cwd, branch);
  const answer = await client.request(
    'create_paseo_worktree_request',
    { cwd, worktreeSlug: slug, action: 'checkout', refName: branch },
    timeout,
  );
  const refused = errorText(answer.error);
  if (refused) throw new PaseoError(`Paseo could not create the run's worktree in ${cwd}: ${refused}`);
  const path = worktreePathOf(answer);
  if (!path)
    throw new PaseoError(
      `Paseo created the run's worktree but did not say where (create_paseo_worktree_response without a path)`,
    );
  if (!existsSync(path)) {
    log(
      'warn',
      `paseo: the run's worktree ${path} is not on this machine; its branch is left as Paseo named it`,
    );
    return { path, branch, created: true };
  }
  keepRunBranch(path, branch, log);
  return { path, branch, created: true };
}

/**
 * The run's branch, from the workspace's current commit; one that exists already is kept (a run
 * whose worktree was not made the first time, or a branch a person made for it).
 */
function makeBranch(cwd: string, branch: string): void {
  if (!git(cwd, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]).error) return;
  const made = git(cwd, ['branch', '--no-track', branch, 'HEAD']);
  if (made.error) throw new PaseoError(`cannot make the run's branch ${branch} in ${cwd}: ${made.error}`);
}

/**
 * Puts the run's branch back when what is checked out in the worktree is another branch (a daemon
 * that renamed it after an agent's first message, or ignored `action: "checkout"`). Returns what it
 * found, or undefined when the branch was as it should be or the worktree is not on this machine.
 */
export function keepRunBranch(path: string, branch: string, log: Log): string | undefined {
  if (!existsSync(path)) return undefined;
  const named = currentBranch(path);
  if (named === branch || named === undefined) return undefined;
  const renamed = git(path, ['branch', '-m', branch]);
  if (renamed.error)
    throw new PaseoError(`cannot name the run's branch ${branch} in ${path}: ${renamed.error}`);
  log('warn', `paseo: the run's worktree ${path} was on branch ${named}; it is on ${branch} again`);
  return named;
}

/** Where the worktree is, from the answer's known shapes (a workspace descriptor, or a worktree). */
function worktreePathOf(answer: Payload): string | undefined {
  const candidates: unknown[] = [];
  if (isObject(answer.workspace))
    candidates.push(answer.workspace.workspaceDirectory, answer.workspace.directory, answer.workspace.cwd);
  if (isObject(answer.worktree)) candidates.push(answer.worktree.worktreePath, answer.worktree.path);
  candidates.push(answer.worktreePath, answer.path);
  return candidates.find((c): c is string => typeof c === 'string' && c.length > 0);
}

function errorText(error: unknown): string | undefined {
  if (typeof error === 'string') return error || undefined;
  if (isObject(error)) return typeof error.message === 'string' ? error.message : JSON.stringify(error);
  return undefined;
}

/** The branch checked out in `dir`, or undefined (detached, not a repository, no git). */
export function currentBranch(dir: string): string | undefined {
  const result = git(dir, ['rev-parse', '--abbrev-ref', 'HEAD']);
  return result.error || result.out === 'HEAD' ? undefined : result.out;
}

function git(dir: string, args: string[]): { out: string; error?: string } {
  const result = spawnSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    env: { ...process.env, LANG: 'C', GIT_OPTIONAL_LOCKS: '0' },
  });
  if (result.error) return { out: '', error: result.error.message };
  if (result.status !== 0)
    return { out: '', error: (result.stderr || `git exited with ${result.status}`).trim() };
  return { out: result.stdout.trim() };
}
