import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain as run } from './in-process.js';
import { EXTENSION_ID, initFiles } from '../src/commands/init.js';
import { BIN, REPO, tempFolder } from './tools.js';

/** The built CLI as a process, in `cwd`, runs saved below it, without a terminal. */
function cli(args: string[], cwd: string) {
  return spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, KAIROKU_PLAYBOOK_HOME: join(cwd, '.home'), NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('kairoku-playbook init', () => {
  it('writes a playbook that checks clean, whose test passes, and that runs to its end on sim', () => {
    const parent = tempFolder();
    const init = cli(['init', 'project'], parent);
    expect(init.stderr).toBe('');
    expect(init.status).toBe(0);
    expect(init.stdout).toContain('wrote project/playbooks/change.yml\n');
    const folder = join(parent, 'project');
    for (const file of initFiles()) expect(existsSync(join(folder, file.path))).toBe(true);

    const check = cli(['check'], folder);
    expect({ status: check.status, stdout: check.stdout }).toEqual({
      status: 0,
      stdout: 'no problems in 2 files\n', // the playbook and its test, checked against it
    });
    const test = cli(['test'], folder);
    expect(test.stdout).toContain('1 passed, 0 failed');
    expect(test.status).toBe(0);
    const runResult = cli(
      ['run', 'playbooks/change.yml', '--backend', 'sim', '--input', 'task=add a flag'],
      folder,
    );
    expect(runResult.stdout).toMatch(/run change-\S+ completed/);
    expect(runResult.status).toBe(0);
  }, 120_000);

  it('writes editor settings: the schema for YAML support, and the extension recommended', () => {
    const folder = tempFolder();
    expect(run(['init'], folder).code).toBe(0);
    const settings = JSON.parse(readFileSync(join(folder, '.vscode/settings.json'), 'utf8')) as {
      'yaml.schemas': Record<string, string[]>;
    };
    expect(settings['yaml.schemas']['./.kairoku/playbook.schema.json']).toContain('playbooks/*.yml');
    expect(readFileSync(join(folder, '.kairoku/playbook.schema.json'), 'utf8')).toBe(
      readFileSync(join(REPO, 'grammar/schema/playbook.schema.json'), 'utf8'),
    );
    const extensions = JSON.parse(readFileSync(join(folder, '.vscode/extensions.json'), 'utf8')) as {
      recommendations: string[];
    };
    const manifest = JSON.parse(readFileSync(join(REPO, 'vscode-extension/package.json'), 'utf8')) as {
      publisher: string;
      name: string;
    };
    expect(EXTENSION_ID).toBe(`${manifest.publisher}.${manifest.name}`);
    expect(extensions.recommendations).toEqual([EXTENSION_ID]);
    // the playbook's first line names the schema init wrote, by its path from the playbook
    expect(readFileSync(join(folder, 'playbooks/change.yml'), 'utf8')).toMatch(
      /^# yaml-language-server: \$schema=\.\.\/\.kairoku\/playbook\.schema\.json\n/,
    );
  });

  it('refuses to overwrite, naming the files, unless --force', () => {
    const folder = tempFolder({ 'playbooks/change.yml': 'mine\n', '.vscode/settings.json': '{}\n' });
    expect(run(['init'], folder)).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'kairoku-playbook: init writes nothing: playbooks/change.yml, .vscode/settings.json are already there (--force overwrites)\n',
    });
    expect(readFileSync(join(folder, 'playbooks/change.yml'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(folder, 'playbooks/change.test.yml'))).toBe(false);
    expect(run(['init', '--force'], folder).code).toBe(0);
    expect(readFileSync(join(folder, 'playbooks/change.yml'), 'utf8')).toContain('version: 1');
  });

  it('refuses a DIR that is a file', () => {
    const folder = tempFolder();
    writeFileSync(join(folder, 'file'), '');
    expect(run(['init', 'file'], folder)).toMatchObject({
      code: 2,
      stderr: 'kairoku-playbook: file is not a folder\n',
    });
  });
});
