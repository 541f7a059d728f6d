import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CoverageFile } from '@kairoku-playbook/machine';
import { main } from '../src/main.js';
import type { CommandIo } from '../src/io.js';
import { REPO, hasTool, tempDir } from '../../test/kit/index.js';

/** The samples and their tests, copied: `test --coverage` writes beside them and into coverage/. */
function samples(): string {
  const root = tempDir('kp-coverage-');
  cpSync(join(REPO, 'playbooks'), join(root, 'playbooks'), { recursive: true });
  return root;
}

function run(argv: string[], cwd: string) {
  const out = { stdout: '', stderr: '' };
  const io: CommandIo = {
    cwd,
    stdout: (t) => (out.stdout += t),
    stderr: (t) => (out.stderr += t),
    color: false,
    colorStderr: false,
  };
  const code = main(argv, io);
  return { code, ...out };
}

describe('kairoku-playbook test --coverage', () => {
  it("prints each sample's branches with the ones no test takes, and writes lcov and NAME.coverage.json", () => {
    const root = samples();
    const result = run(['test', '--coverage', 'playbooks'], root);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('6 passed, 0 failed');
    expect(result.stdout).toMatch(
      /\nplaybooks\/pr\.yml: 2 tests, steps 6 of 6 reached, branches \d+ of \d+ taken/,
    );
    expect(result.stdout).toMatch(/ {2}qa +loop qa\.fail taken +1\n/);
    expect(result.stdout).toMatch(/ {2}qa +loop qa\.fail exhausted +0 {2}not taken\n/);
    // pr.yml's two tests merged: pr.reject.test.yml (a named test of it) rejects the change
    expect(result.stdout).toMatch(/ {2}ship +choice reject +1\n/);
    expect(result.stdout).toMatch(/ {2}review +outcome blocked +0 {2}not taken\n/);
    expect(result.stdout).toMatch(
      /\ncoverage: branches \d+ of \d+ taken \([\d.]+%\) in 5 playbooks; lcov: coverage\/playbooks\.lcov\n$/,
    );
    const lcov = readFileSync(join(root, 'coverage/playbooks.lcov'), 'utf8');
    expect(lcov.match(/^SF:/gm)).toHaveLength(5);
    expect(lcov).toContain('SF:playbooks/pr.yml\n');
    // pr.yml's qa: `fail:` at line 68 is a loop, taken once and never exhausted.
    expect(lcov).toMatch(/^BRDA:68,\d+,1,1$/m);
    expect(lcov).toMatch(/^BRDA:68,\d+,1,0$/m);
    const file = JSON.parse(readFileSync(join(root, 'playbooks/pr.coverage.json'), 'utf8')) as CoverageFile;
    expect(file.coverage).toBe(1);
    expect(file.playbook).toBe('playbooks/pr.yml');
    expect(file.branches.find((b) => b.key === 'outcome ship reject')).toMatchObject({ hits: 1, line: 92 });
    expect(file.branches.find((b) => b.key === 'outcome review blocked')).toMatchObject({ hits: 0 });
  });

  it('--format json prints the results and the coverage as one document', () => {
    const root = samples();
    const result = run(['test', '--coverage', '--format', 'json', 'playbooks/pr.test.yml'], root);
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as {
      tests: { file: string; passed: boolean }[];
      coverage: { lcov: string; playbooks: CoverageFile[] };
    };
    expect(document.tests).toEqual([
      expect.objectContaining({ file: 'playbooks/pr.test.yml', passed: true }),
    ]);
    expect(document.coverage.lcov).toBe('coverage/playbooks.lcov');
    expect(document.coverage.playbooks.map((p) => p.playbook)).toEqual(['playbooks/pr.yml']);
    expect(run(['test', '--format', 'json', 'playbooks/pr.test.yml'], root).stdout).not.toContain(
      '"coverage"',
    );
  });

  it('--min-coverage fails below its percentage of branches, and implies --coverage', () => {
    const root = samples();
    const below = run(['test', '--min-coverage', '95', 'playbooks'], root);
    expect(below.code).toBe(1);
    expect(below.stderr).toMatch(
      /^coverage of branches [\d.]+% \(\d+ of \d+\) is below --min-coverage 95\n$/,
    );
    expect(run(['test', '--min-coverage', '10', 'playbooks'], root).code).toBe(0);
    const bad = run(['test', '--min-coverage', 'most', 'playbooks'], root);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--min-coverage takes a percentage from 0 to 100, not "most"');
  });

  it('--coverage-lcov names the lcov file', () => {
    const root = samples();
    const result = run(['test', '--coverage-lcov', 'out/playbooks.info', 'playbooks/pr.test.yml'], root);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('lcov: out/playbooks.info');
    expect(readFileSync(join(root, 'out/playbooks.info'), 'utf8')).toMatch(
      /^TN:playbooks\nSF:playbooks\/pr\.yml\n/,
    );
    expect(existsSync(join(root, 'coverage'))).toBe(false);
  });

  describe.skipIf(!hasTool('genhtml'))("Debian's genhtml", () => {
    it("renders the samples' lcov, with their branches", () => {
      const root = samples();
      expect(run(['test', '--coverage', 'playbooks'], root).code).toBe(0);
      const html = join(root, 'html');
      const genhtml = spawnSync(
        'genhtml',
        ['--branch-coverage', '--output-directory', html, 'coverage/playbooks.lcov'],
        { cwd: root, encoding: 'utf8' },
      );
      expect(genhtml.stderr).not.toMatch(/ERROR|WARNING/);
      expect(genhtml.status).toBe(0);
      expect(genhtml.stdout).toMatch(/branches\.*: [\d.]+% \(\d+ of \d+ branches\)/);
      expect(existsSync(join(html, 'index.html'))).toBe(true);
      expect(existsSync(join(html, 'playbooks/pr.yml.gcov.html'))).toBe(true);
    });
  });
});
