/**
 * The test kit (test/kit/) is the one place tests get what they share: a test that needs a temporary
 * folder takes it from the kit's `tempDir` (removed when the test process ends, its real path), never
 * from `mkdtemp` of its own. This file holds that rule over every test and test helper outside the kit,
 * and checks the kit's folder and repository helpers do what the README says.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, gitRepo, removeTempDirs, tempDir, workspaceWith } from './kit/index.js';

/** Folders no test lives in (installed, built or generated), skipped by the walk. */
const SKIP = new Set(['node_modules', 'dist', '.git', 'test-results', 'out']);

/** The TypeScript files of the repository, as paths relative to it. */
function typescriptFiles(folder = REPO): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...typescriptFiles(path));
    else if (/\.(ts|tsx|mts|cts)$/.test(entry.name) && !/\.d\.[mc]?ts$/.test(entry.name))
      found.push(relative(REPO, path).split('\\').join('/'));
  }
  return found;
}

/** A test or a test helper: a `*.test.ts` anywhere, or any file below a `test/` folder. */
function isTestCode(file: string): boolean {
  return /\.test\.[mc]?tsx?$/.test(file) || file.split('/').slice(0, -1).includes('test');
}

/** A call of `mkdtemp`/`mkdtempSync`, or an import of either (`fs.mkdtempSync(` too). */
const MKDTEMP = /\bmkdtemp(Sync)?\s*\(|^\s*import\b.*\bmkdtemp(Sync)?\b|^\s*mkdtemp(Sync)?,$/;

/** `file:line` of each use of mkdtemp in test code outside the kit (and this file, which names it). */
function ownTempFolders(): string[] {
  const offenders: string[] = [];
  for (const file of typescriptFiles().filter(isTestCode)) {
    if (file.startsWith('test/kit/') || file === 'test/kit.test.ts') continue;
    readFileSync(join(REPO, file), 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (MKDTEMP.test(line)) offenders.push(`${file}:${index + 1}`);
      });
  }
  return offenders;
}

describe('the test kit is the one place tests make temporary folders', () => {
  it('finds the test code it checks, and mkdtemp where it is (a sanity check of the walk and the pattern)', () => {
    for (const line of [
      "const dir = mkdtempSync(join(tmpdir(), 'x-'));",
      "import { mkdtemp } from 'node:fs/promises';",
      '  mkdtempSync,',
      'await fs.mkdtemp (prefix);',
    ])
      expect(MKDTEMP.test(line), line).toBe(true);
    expect(MKDTEMP.test('// a folder from tempDir, not mkdtempSync')).toBe(false);
    const tests = typescriptFiles().filter(isTestCode);
    expect(tests).toContain('test/kit.test.ts');
    expect(tests).toContain('test/kit/temp.ts');
    expect(tests).toContain('cli/test/serve.test.ts');
    expect(tests).toContain('docs/docs.test.ts');
    expect(tests.some((file) => file.includes('node_modules'))).toBe(false);
  });

  it('no test or test helper outside test/kit calls mkdtemp (use tempDir from test/kit)', () => {
    expect(ownTempFolders()).toEqual([]);
  });
});

describe("the kit's folders", () => {
  it('tempDir makes a new folder by its real path, in the temporary folder or in a parent given', () => {
    const dir = tempDir('kp-kit-');
    expect(existsSync(dir)).toBe(true);
    expect(dir).toBe(realpathSync(dir));
    expect(dir.startsWith(realpathSync(tmpdir()))).toBe(true);
    const inner = tempDir('inner-', dir);
    expect(inner.startsWith(`${dir}/inner-`)).toBe(true);
    expect(tempDir('kp-kit-')).not.toBe(dir);
  });

  it('workspaceWith writes its files, making their folders; removeTempDirs removes what tempDir made', () => {
    const root = workspaceWith({ 'playbooks/a.yml': 'a\n', 'b.txt': 'b\n' });
    expect(readFileSync(join(root, 'playbooks/a.yml'), 'utf8')).toBe('a\n');
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('b\n');
    removeTempDirs();
    expect(existsSync(root)).toBe(false);
  });

  it('gitRepo is a repository on main with one commit and its own author', () => {
    const repo = gitRepo({ files: { 'src/a.txt': 'a\n' } });
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();
    expect(git('branch', '--show-current')).toBe('main');
    expect(git('rev-list', '--count', 'HEAD')).toBe('1');
    expect(git('ls-files')).toBe('src/a.txt');
    expect(git('config', 'user.email')).toBe('test@example.com');
  });
});
