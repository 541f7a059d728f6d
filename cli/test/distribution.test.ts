/**
 * What the npm package and the other ways of getting the CLI rest on, checked without packing:
 * cli/package.json says what the code says, the bin npm links exists before a build, the licence is
 * shipped, and the pre-commit hook runs on the files check discovers. scripts/test-distribution.sh packs,
 * installs and runs the real thing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isPlaybookPath } from '@kairoku-playbook/compiler';
import { assetPaths } from '../build.mjs';
import { ASSETS } from '../src/assets.js';
import { REPOSITORY_URL, VERSION } from '../src/version.js';
import { tempDir } from '../../test/kit/index.js';

const repo = new URL('../../', import.meta.url).pathname;
const cli = join(repo, 'cli');
const manifest = JSON.parse(readFileSync(join(cli, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
  repository: { url: string };
  bin: Record<string, string>;
  files: string[];
  dependencies?: Record<string, string>;
  engines: { node: string };
};

describe('cli/package.json', () => {
  it('has the version and repository of src/version.ts', () => {
    expect(manifest.version).toBe(VERSION);
    expect(manifest.repository.url).toBe(`git+${REPOSITORY_URL}.git`);
  });

  it('depends on nothing: the bundle holds every package it uses', () => {
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.engines.node).toBe('>=20');
  });

  it('ships what the build makes, and the licence', () => {
    expect(existsSync(join(cli, 'dist/kairoku-playbook.bundle.cjs')), 'run npm run build first').toBe(true);
    const missing = manifest.files.filter((file) => !existsSync(join(cli, file)));
    expect(missing).toEqual([]);
    expect(manifest.files).toContain('dist/schema/playbook.schema.json');
    expect(manifest.files).toContain('dist/THIRD-PARTY-NOTICES.txt');
  });

  it('is Apache-2.0, with the same LICENSE as the repository', () => {
    expect(manifest.license).toBe('Apache-2.0');
    const licence = readFileSync(join(repo, 'LICENSE'), 'utf8');
    expect(licence).toContain('Apache License\n                           Version 2.0, January 2004');
    expect(readFileSync(join(cli, 'LICENSE'), 'utf8')).toBe(licence);
  });

  it('names the licences of the bundled packages', () => {
    const notices = readFileSync(join(cli, 'dist/THIRD-PARTY-NOTICES.txt'), 'utf8');
    for (const name of [
      'yaml',
      'ajv',
      'chevrotain',
      'vscode-languageserver',
      '@modelcontextprotocol/sdk',
      'ws',
      'zod',
    ])
      expect(notices, name).toMatch(
        new RegExp(`^${name.replace(/[/.]/g, '\\$&')} \\d+\\.\\d+\\.\\d+ \\(`, 'm'),
      );
    expect(notices).not.toContain('@kairoku-playbook/');
  });

  it('has a CHANGELOG entry for this version', () => {
    expect(readFileSync(join(repo, 'CHANGELOG.md'), 'utf8')).toMatch(
      new RegExp(`^## ${VERSION.replace(/\./g, '\\.')} `, 'm'),
    );
  });
});

describe('the bin npm links', { timeout: 60_000 }, () => {
  const bin = manifest.bin['kairoku-playbook']!;

  it('is committed, executable, so npm links it before anything is built', () => {
    expect(bin).toBe('bin/kairoku-playbook.js');
    const mode = execFileSync('git', ['ls-files', '--stage', `cli/${bin}`], { cwd: repo, encoding: 'utf8' });
    expect(mode).toMatch(/^100755 /);
    expect(readFileSync(join(cli, bin), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
    expect(statSync(join(cli, bin)).mode & 0o111).not.toBe(0);
  });

  it('runs the built CLI', () => {
    const result = spawnSync(join(cli, bin), ['explain', 'PB100'], { cwd: tmpdir(), encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^## PB100 YAML syntax error\n/);
  });

  it('says to build first when there is no build', () => {
    const copy = tempDir('kp-bin-');
    mkdirSync(join(copy, 'bin'));
    copyFileSync(join(cli, bin), join(copy, bin));
    writeFileSync(join(copy, 'package.json'), '{ "type": "module" }\n');
    const result = spawnSync(process.execPath, [join(copy, bin), 'check'], { encoding: 'utf8' });
    expect(result).toMatchObject({
      status: 2,
      stdout: '',
      stderr:
        'kairoku-playbook: the CLI is not built yet (no cli/dist/kairoku-playbook.js); run `npm run build` in the repository first\n',
    });
  });
});

describe('the bundle', { timeout: 60_000 }, () => {
  it('holds the texts of src/assets.ts, so it needs no file beside it', () => {
    expect(assetPaths()).toEqual(ASSETS);
    const alone = tempDir('kp-bundle-');
    copyFileSync(join(cli, 'dist/kairoku-playbook.bundle.cjs'), join(alone, 'cli.cjs'));
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(alone, 'cli.cjs'), ...args], { cwd: alone, encoding: 'utf8' });
    expect(run('schema').stdout === readFileSync(join(repo, ASSETS.playbookSchema), 'utf8')).toBe(true);
    expect(run('schema', '--ir').stdout === readFileSync(join(repo, ASSETS.irSchema), 'utf8')).toBe(true);
    expect(run('explain', 'PB903').stdout).toMatch(/^## PB903 suppression comment that silences nothing\n/);
    const bundle = readFileSync(join(cli, 'dist/kairoku-playbook.bundle.cjs'), 'utf8');
    expect(/require\("@kairoku-playbook\//.test(bundle)).toBe(false);
  });
});

describe('.pre-commit-hooks.yaml', () => {
  const hooks = parse(readFileSync(join(repo, '.pre-commit-hooks.yaml'), 'utf8')) as {
    id: string;
    entry: string;
    language: string;
    files: string;
    exclude: string;
    pass_filenames: boolean;
  }[];
  const hook = hooks[0]!;
  /** pre-commit's Python regex; `(?i)` at the start is the only flag it uses. */
  const regex = (python: string) =>
    new RegExp(python.replace(/^\(\?i\)/, ''), python.startsWith('(?i)') ? 'i' : '');

  it('runs a script of the repository over the whole repository', () => {
    expect(hooks).toHaveLength(1);
    expect(hook).toMatchObject({ id: 'kairoku-playbook', language: 'script', pass_filenames: false });
    expect(statSync(join(repo, hook.entry)).mode & 0o111).not.toBe(0);
  });

  it('runs when a file that check discovers changes, and only then', () => {
    const runsOn = (path: string) => regex(hook.files).test(path) && !regex(hook.exclude).test(path);
    for (const path of [
      'a.playbook.yml',
      'deep/er/b.playbook.YAML',
      'playbooks/pr.yml',
      'x/playbooks/pr.yaml',
      '.kairoku/playbooks/a.yml',
      '.paseo/playbooks/b.yml',
      'playbooks/pr.test.yml',
      'a.playbook.test.yml',
      'playbooks/nested/c.yml',
      'other/e.yml',
      'playbooks.yml',
      'myplaybooks/a.yml',
      'playbooks/readme.md',
    ])
      expect(runsOn(path), path).toBe(isPlaybookPath(path));
  });
});

describe('the docs', () => {
  const read = (path: string) => readFileSync(join(repo, path), 'utf8');
  const docs = [
    'README.md',
    'cli/README.md',
    ...['ci.md', 'cli.md', 'versioning.md'].map((d) => `docs/${d}`),
  ];

  it('name this version wherever they name one (tags, pins, links)', () => {
    const stale: string[] = [];
    for (const doc of docs)
      for (const match of read(doc).matchAll(/\bv(\d+\.\d+\.\d+)\b|kairoku-playbook@(\d+\.\d+\.\d+)/g))
        if ((match[1] ?? match[2]) !== VERSION) stale.push(`${doc}: ${match[0]}`);
    expect(stale).toEqual([]);
  });

  it("give a schema catalog entry that matches only playbooks, pointing at the tag's schema", () => {
    const cliDoc = read('docs/cli.md');
    const block = [...cliDoc.matchAll(/```json\n([\s\S]*?)\n```/g)]
      .map((m) => m[1]!)
      .find((b) => b.includes('fileMatch'));
    const entry = JSON.parse(block!) as { fileMatch: string[]; url: string };
    expect(entry.url).toBe(
      `${REPOSITORY_URL.replace('https://github.com/', 'https://raw.githubusercontent.com/')}/v${VERSION}/${ASSETS.playbookSchema}`,
    );
    expect(cliDoc).toContain(`# yaml-language-server: $schema=${entry.url}\n`);
    /** A SchemaStore file pattern: without a slash it matches a file name in any folder. */
    const glob = (pattern: string) =>
      new RegExp(
        `(^|/)${pattern
          .split('**/')
          .map((part) => part.replace(/\./g, '\\.').replace(/\*/g, '[^/]*'))
          .join('(.*/)?')}$`,
      );
    const matches = (path: string) => entry.fileMatch.some((pattern) => glob(pattern).test(path));
    for (const path of [
      'a.playbook.yml',
      'x/b.playbook.yaml',
      '.kairoku/playbooks/c.yml',
      'p/.paseo/playbooks/d.yaml',
    ])
      expect(matches(path), path).toBe(true);
    for (const path of ['playbooks/site.yml', 'other/e.yml', '.kairoku/playbooks/x/f.yml', 'g.yml'])
      expect(matches(path), path).toBe(false);
    for (const path of ['a.playbook.yml', '.kairoku/playbooks/c.yml', 'playbooks/pr.yml', 'x.yml'])
      if (matches(path)) expect(isPlaybookPath(path), path).toBe(true);
  });
});
