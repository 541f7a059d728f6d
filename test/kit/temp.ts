import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

// Each test file imports the kit afresh (vitest isolates test files), so this hook is the file's: its
// folders go after its last test. After-hooks run last-registered first, so the file's own (which may
// stop a process still writing to a folder) run before this one. A process's 'exit' event is no hook
// for this: vitest ends its worker processes without it.
afterAll(removeTempDirs);

/**
 * A new temporary folder (its real path: `serve` and the store name a workspace by it), removed after
 * the test file's last test, or earlier by `removeTempDirs`. `parent` puts it inside another folder
 * (default: the system's temporary folder).
 */
export function tempDir(prefix = 'kp-test-', parent = tmpdir()): string {
  const dir = realpathSync(mkdtempSync(join(parent, prefix)));
  made.push(dir);
  return dir;
}

/** Removes every folder `tempDir` made so far in this test process (for an `afterAll`). */
export function removeTempDirs(): void {
  for (const folder of made.splice(0)) removeDir(folder);
}

/** Removes a folder and all it holds; a missing one is fine. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Writes `files` (path → text or bytes) below `root`, making the folders they need. */
export function writeFiles(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** A temporary folder holding `files` (path → text), e.g. `{ 'playbooks/pr.yml': PR }`. */
export function workspaceWith(files: Record<string, string | Uint8Array> = {}, prefix = 'kp-ws-'): string {
  const root = tempDir(prefix);
  writeFiles(root, files);
  return root;
}

export interface GitRepoOptions {
  /** where (made if missing; default: a new temporary folder) */
  dir?: string;
  /** the first commit's files (default: a README.md) */
  files?: Record<string, string>;
}

/**
 * A git repository on branch `main` with one commit of `files`, its author (Test, test@example.com) set
 * in the repository's own config, so later commits there need no global identity.
 */
export function gitRepo(options: GitRepoOptions = {}): string {
  const repo = options.dir ?? tempDir('kp-repo-');
  mkdirSync(repo, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'test@example.com');
  git('config', 'user.name', 'Test');
  writeFiles(repo, options.files ?? { 'README.md': '# test\n' });
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  return repo;
}
