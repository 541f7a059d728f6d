import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  readlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

/**
 * The state of a git worktree, for the read-only check (SPEC §3.3): what `git status` lists (tracked
 * changes and untracked files, ignored ones excluded), with a hash of each listed file's content, the
 * commit at HEAD and a hash of `git diff HEAD`. Two snapshots differ when anything the worktree shows
 * git changed, including a file that was already dirty and changed again. Git runs without a shell,
 * with `LANG=C`, and without taking optional locks (a snapshot never writes the index).
 */

/** Why a worktree cannot be checked: not a git worktree, git missing, the folder missing. */
export interface WorktreeError {
  error: string;
}

export function isWorktreeError(value: unknown): value is WorktreeError {
  return typeof value === 'object' && value !== null && 'error' in value;
}

interface Fingerprint {
  /** the commit at HEAD; null before the first commit */
  head: string | null;
  /** sha1 of `git diff HEAD` (binary included) */
  diff: string;
  /** each path `git status` lists: its status letters and a hash of its content */
  files: Record<string, string>;
}

/** A fingerprint of the worktree at `dir` (an opaque string), or why it cannot be taken. */
export function snapshotWorktree(dir: string): string | WorktreeError {
  const fingerprint = fingerprintOf(dir);
  return isWorktreeError(fingerprint) ? fingerprint : JSON.stringify(fingerprint);
}

/**
 * What changed in the worktree at `dir` since the snapshot `before`: undefined when nothing did, else
 * the changed paths (relative to the worktree's top, sorted), or why the worktree cannot be checked.
 */
export function changesSince(dir: string, before: string): string[] | undefined | WorktreeError {
  const now = fingerprintOf(dir);
  if (isWorktreeError(now)) return now;
  const then = JSON.parse(before) as Fingerprint;
  if (JSON.stringify(now) === before) return undefined;
  const paths = new Set<string>();
  for (const path of new Set([...Object.keys(then.files), ...Object.keys(now.files)]))
    if (then.files[path] !== now.files[path]) paths.add(path);
  if (then.head !== now.head) {
    // A commit (or a reset) moves HEAD; the files it changed may now be clean.
    const range = then.head && now.head ? [then.head, now.head] : [now.head ?? then.head ?? 'HEAD'];
    const moved = git(dir, ['diff', '--name-only', '-z', ...range]);
    if (!isWorktreeError(moved)) for (const path of moved.split('\0')) if (path) paths.add(path);
    paths.add(`HEAD (${short(then.head)} → ${short(now.head)})`);
  }
  if (paths.size === 0) paths.add('(the diff against HEAD)');
  return [...paths].sort();
}

/** Whether `dir` is inside a git worktree (a folder outside any repository cannot be checked at all). */
export function isGitWorktree(dir: string): boolean {
  if (!existsSync(dir)) return false;
  const inside = git(dir, ['rev-parse', '--is-inside-work-tree']);
  return !isWorktreeError(inside) && inside.trim() === 'true';
}

function short(head: string | null): string {
  return head ? head.slice(0, 12) : 'no commit';
}

function fingerprintOf(dir: string): Fingerprint | WorktreeError {
  if (!existsSync(dir)) return { error: `${dir} does not exist` };
  const inside = git(dir, ['rev-parse', '--is-inside-work-tree']);
  if (isWorktreeError(inside)) return inside;
  if (inside.trim() !== 'true') return { error: `${dir} is not a git worktree` };
  const top = git(dir, ['rev-parse', '--show-toplevel']);
  if (isWorktreeError(top)) return top;
  const headOut = git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD'], true);
  if (isWorktreeError(headOut)) return headOut;
  const head = headOut.trim() || null;
  const status = git(dir, ['status', '--porcelain=v1', '-z', '--untracked-files=all']);
  if (isWorktreeError(status)) return status;
  let diff = '';
  if (head) {
    const text = git(dir, ['diff', '--binary', '--no-color', '--no-ext-diff', 'HEAD']);
    if (isWorktreeError(text)) return text;
    diff = sha1(text);
  }
  const files: Record<string, string> = {};
  const entries = status.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.length < 4) continue;
    const code = entry.slice(0, 2);
    const path = entry.slice(3);
    // A rename or a copy is followed by the path it came from.
    if (code[0] === 'R' || code[0] === 'C') {
      const from = entries[++i];
      if (from) files[from] = `${code} moved to ${path}`;
    }
    files[path] = `${code} ${contentHash(join(top.trim(), path))}`;
  }
  return { head, diff, files };
}

/** A hash of what is at a path now: a file's bytes, a symlink's target, or that nothing is there. */
function contentHash(path: string): string {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return `link:${sha1(readlinkSync(path))}`;
    if (stat.isFile()) return `file:${(stat.mode & 0o111).toString(8)}:${sha1OfFile(path)}`;
    return `other:${stat.mode.toString(8)}`;
  } catch {
    return 'missing';
  }
}

/**
 * A file's hash, read a chunk at a time: an agent's worktree can hold a build artefact of gigabytes,
 * which must not be read into memory whole. Opened without blocking, in case it became a FIFO since
 * it was looked at.
 */
const chunk = Buffer.allocUnsafe(256 * 1024);

function sha1OfFile(path: string): string {
  const hash = createHash('sha1');
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    if (!fstatSync(fd).isFile()) return 'other';
    for (let count = readSync(fd, chunk); count > 0; count = readSync(fd, chunk))
      hash.update(chunk.subarray(0, count));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

function sha1(data: string | Buffer): string {
  return createHash('sha1').update(data).digest('hex');
}

/**
 * Runs git in `dir` and returns its standard output, or why it failed. `quietFailure`: exit code 1
 * with no output is an empty answer (`rev-parse --verify --quiet` of an unborn HEAD).
 */
function git(dir: string, args: string[], quietFailure = false): string | WorktreeError {
  const env: NodeJS.ProcessEnv = { ...process.env, LANG: 'C', LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0' };
  // A surrounding git (a hook, say) must not point this one at another repository.
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_PREFIX']) delete env[name];
  const result = spawnSync('git', args, {
    cwd: dir,
    env,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    windowsHide: true,
  });
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { error: 'git is not installed (or not on the PATH)' };
    return { error: `git ${args[0]} failed in ${dir}: ${result.error.message}` };
  }
  if (result.status === 0) return result.stdout;
  if (quietFailure && result.status === 1 && !result.stdout.trim()) return '';
  const stderr = result.stderr.trim();
  if (/not a git repository/i.test(stderr)) return { error: `${dir} is not a git worktree` };
  return {
    error: `git ${args.join(' ')} failed in ${dir} (exit ${result.status ?? result.signal}): ${stderr.split('\n')[0] ?? ''}`,
  };
}
