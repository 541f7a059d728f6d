/**
 * `kairoku-playbook format [--check] [PATH...]`: Prettier's YAML printer with the project's config;
 * --check lists what is not formatted (exit 1) and writes nothing; a YAML error is never touched (exit 2);
 * an Ansible playbook in a bare playbooks/ folder is left alone; BOM and CRLF are kept.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runMainToEnd } from './in-process.js';
import { removeTempDirs, tempDir } from '../../test/kit/index.js';

const MESSY = 'version:   1\ntitle:    "Fix it"   # the title\nsteps:\n  only:\n      run:   make\n';
const FORMATTED = 'version: 1\ntitle: "Fix it" # the title\nsteps:\n  only:\n    run: make\n';

afterEach(removeTempDirs);

function workspace(files: Record<string, string>): string {
  const root = tempDir('kp-format-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

const read = (root: string, name: string) => readFileSync(join(root, name), 'utf8');

describe('format', () => {
  it('--check lists the files that are not formatted and exits 1, writing nothing', async () => {
    const root = workspace({ 'playbooks/pr.yml': MESSY, 'playbooks/ok.yml': FORMATTED });
    const result = await runMainToEnd(['format', '--check'], root);
    expect(result).toEqual({
      code: 1,
      stdout: 'playbooks/pr.yml\n',
      stderr: '1 file not formatted; run kairoku-playbook format to format it\n',
    });
    expect(read(root, 'playbooks/pr.yml')).toBe(MESSY);
  });

  it('formats in place, then --check passes (exit 0)', async () => {
    const root = workspace({ 'playbooks/pr.yml': MESSY, 'a/b.playbook.yaml': MESSY });
    const result = await runMainToEnd(['format'], root);
    expect(result).toEqual({
      code: 0,
      stdout: 'formatted a/b.playbook.yaml\nformatted playbooks/pr.yml\n',
      stderr: 'formatted 2 files\n',
    });
    expect(read(root, 'playbooks/pr.yml')).toBe(FORMATTED);
    expect(read(root, 'a/b.playbook.yaml')).toBe(FORMATTED);
    expect(await runMainToEnd(['format', '--check'], root)).toEqual({
      code: 0,
      stdout: '',
      stderr: '2 files formatted\n',
    });
  });

  it('formats the playbook tests check discovers in a folder, and none whose playbook is not found', async () => {
    const messyTest = 'inputs:   { task: x }\nsteps:\n  only:\n      - { outcome:   done }\n';
    const root = workspace({
      'playbooks/pr.yml': FORMATTED,
      'playbooks/pr.test.yml': messyTest,
      'other/loose.test.yml': messyTest,
    });
    const result = await runMainToEnd(['format'], root);
    expect(result).toEqual({
      code: 0,
      stdout: 'formatted playbooks/pr.test.yml\n',
      stderr: 'formatted 1 file\n',
    });
    expect(read(root, 'playbooks/pr.test.yml')).toBe(
      'inputs: { task: x }\nsteps:\n  only:\n    - { outcome: done }\n',
    );
    expect(read(root, 'other/loose.test.yml')).toBe(messyTest);
  });

  it("honours the project's Prettier config from the file's folder", async () => {
    const root = workspace({
      'playbooks/pr.yml': MESSY,
      'team/.prettierrc.json': '{ "singleQuote": true }',
      'team/playbooks/pr.yml': MESSY,
    });
    await runMainToEnd(['format'], root);
    expect(read(root, 'playbooks/pr.yml')).toContain('title: "Fix it"');
    expect(read(root, 'team/playbooks/pr.yml')).toContain("title: 'Fix it'");
  });

  it('leaves the files the nearest .prettierignore lists as they are, as Prettier does', async () => {
    const root = workspace({
      '.prettierignore': 'playbooks/vendored.yml\n',
      'playbooks/pr.yml': MESSY,
      'playbooks/vendored.yml': MESSY,
    });
    const checked = await runMainToEnd(['format', '--check'], root);
    expect(checked).toEqual({
      code: 1,
      stdout: 'playbooks/pr.yml\n',
      stderr:
        '1 file left as it is: listed in .prettierignore\n1 file not formatted; run kairoku-playbook format to format it\n',
    });
    expect((await runMainToEnd(['format'], root)).code).toBe(0);
    expect(read(root, 'playbooks/pr.yml')).toBe(FORMATTED);
    expect(read(root, 'playbooks/vendored.yml')).toBe(MESSY);
    // Named, it is still left alone (Prettier's CLI does the same).
    expect((await runMainToEnd(['format', 'playbooks/vendored.yml'], root)).code).toBe(0);
    expect(read(root, 'playbooks/vendored.yml')).toBe(MESSY);
  });

  it('keeps a byte order mark and CRLF line endings', async () => {
    const root = workspace({ 'playbooks/pr.yml': `\ufeff${MESSY.replace(/\n/g, '\r\n')}` });
    await runMainToEnd(['format', 'playbooks/pr.yml'], root);
    expect(read(root, 'playbooks/pr.yml')).toBe(`\ufeff${FORMATTED.replace(/\n/g, '\r\n')}`);
  });

  it('never touches a file with a YAML error: it says so and exits 2', async () => {
    const broken = 'version:   1\ntitle: [\n';
    const root = workspace({ 'playbooks/pr.yml': MESSY, 'playbooks/broken.yml': broken });
    const result = await runMainToEnd(['format'], root);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^kairoku-playbook: playbooks\/broken\.yml: not formatted: line 2, column 8 has a YAML error \(.*\); fix it first\n/,
    );
    expect(read(root, 'playbooks/broken.yml')).toBe(broken);
    expect(read(root, 'playbooks/pr.yml')).toBe(FORMATTED);
  });

  it('leaves an Ansible playbook in a bare playbooks/ folder alone, and formats it when named', async () => {
    const root = tempDir('kp-format-');
    cpSync(join(import.meta.dirname, 'fixtures', 'ansible-workspace'), root, { recursive: true });
    const site = read(root, 'playbooks/site.yml');
    writeFileSync(
      join(root, 'playbooks', 'site.yml'),
      site.replace('hosts: webservers', 'hosts:    webservers'),
    );
    expect(await runMainToEnd(['format', '--check'], root)).toMatchObject({ code: 0, stdout: '' });
    expect(await runMainToEnd(['format', '--check', 'playbooks/site.yml'], root)).toMatchObject({
      code: 1,
      stdout: 'playbooks/site.yml\n',
    });
  });

  it('refuses a path that does not exist, and a folder without playbooks (exit 2)', async () => {
    const root = workspace({ 'notes.yml': 'a: 1\n' });
    expect(await runMainToEnd(['format', 'missing.yml'], root)).toMatchObject({
      code: 2,
      stderr: 'kairoku-playbook: no such file or folder: missing.yml\n',
    });
    expect((await runMainToEnd(['format'], root)).code).toBe(2);
  });
});
