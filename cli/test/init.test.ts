import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain as run } from './in-process.js';
import { commandHere } from '../src/command-here.js';
import { EXTENSION_ID, initFiles } from '../src/commands/init.js';
import { CLI, REPO, runCli, tempDir, workspaceWith } from '../../test/kit/index.js';

/** The built CLI as a process, in `cwd`, runs saved below it, without a terminal. */
function cli(args: string[], cwd: string, env: Record<string, string> = {}) {
  return runCli(args, { cwd, home: join(cwd, '.home'), env: { NO_COLOR: '1', ...env } });
}

describe('kairoku-playbook init', () => {
  it('writes a playbook that checks clean, whose test passes, and that runs to its end on sim', () => {
    const parent = tempDir();
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
    const folder = tempDir();
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
    const folder = workspaceWith({ 'playbooks/change.yml': 'mine\n', '.vscode/settings.json': '{}\n' });
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
    const folder = tempDir();
    writeFileSync(join(folder, 'file'), '');
    expect(run(['init', 'file'], folder)).toMatchObject({
      code: 2,
      stderr: 'kairoku-playbook: file is not a folder\n',
    });
  });

  describe('its "Next:" line names the CLI as it runs where init ran', () => {
    const next = (stdout: string) => /^Next: (.*)$/m.exec(stdout)?.[1];
    const NEXT = 'check && CLI test && CLI run playbooks/change.yml --input task="add a --verbose flag"';

    it('npx kairoku-playbook in a repository whose package.json depends on it (the tarball installed)', () => {
      const folder = workspaceWith({
        'package.json': JSON.stringify({
          devDependencies: { 'kairoku-playbook': 'file:kairoku-playbook-0.1.0.tgz' },
        }),
      });
      const init = cli(['init'], folder, { PATH: '/usr/bin:/bin' });
      expect(init.status).toBe(0);
      expect(next(init.stdout)).toBe(`npx kairoku-playbook ${NEXT.replace(/CLI/g, 'npx kairoku-playbook')}`);
      // and in a subfolder of it, behind the cd
      const sub = cli(['init', 'sub dir'], folder);
      expect(next(sub.stdout)).toBe(
        `cd 'sub dir' && npx kairoku-playbook ${NEXT.replace(/CLI/g, 'npx kairoku-playbook')}`,
      );
    });

    it('the path it was run by where nothing installed it, and the bare name when that one is on the PATH', () => {
      const folder = tempDir();
      const alone = cli(['init'], folder, { PATH: '/usr/bin:/bin' });
      expect(next(alone.stdout)).toBe(`node ${CLI} ${NEXT.replace(/CLI/g, `node ${CLI}`)}`);
      // the command was typed and works: run it as printed
      const ran = spawnSync('sh', ['-c', next(alone.stdout)!.split(' && ')[0]!], {
        cwd: folder,
        encoding: 'utf8',
      });
      expect(ran.stdout).toBe('no problems in 2 files\n');

      const binDir = join(tempDir(), 'bin');
      mkdirSync(binDir);
      symlinkSync(CLI, join(binDir, 'kairoku-playbook')); // what a global install links
      const global = cli(['init', 'other'], folder, { PATH: `${binDir}:/usr/bin:/bin` });
      expect(next(global.stdout)).toBe(
        `cd other && kairoku-playbook ${NEXT.replace(/CLI/g, 'kairoku-playbook')}`,
      );
    });

    it('a single executable by its own path, quoted for the shell', () => {
      const folder = tempDir();
      const program = { sea: true, execPath: '/opt/my tools/kairoku-playbook', script: undefined };
      expect(commandHere(folder, program, '/usr/bin')).toBe(`'/opt/my tools/kairoku-playbook'`);
      // a package.json that does not depend on it changes nothing
      writeFileSync(join(folder, 'package.json'), '{"devDependencies":{"left-pad":"1"}}');
      expect(commandHere(folder, program, '/usr/bin')).toBe(`'/opt/my tools/kairoku-playbook'`);
    });
  });
});

describe('kairoku-playbook init --mcp', () => {
  it("merges the manager's server into .mcp.json and .claude/settings.json, keeping what is there", () => {
    const folder = tempDir();
    writeFileSync(join(folder, '.mcp.json'), JSON.stringify({ mcpServers: { other: { command: 'other' } } }));
    mkdirSync(join(folder, '.claude'));
    writeFileSync(
      join(folder, '.claude', 'settings.json'),
      JSON.stringify({ model: 'opus', permissions: { allow: ['Bash(npm test)'] } }),
    );
    const init = cli(
      ['init', '--mcp', '--paseo-password-file', 'secret/pw', '--paseo-host', '127.0.0.1:7777'],
      folder,
    );
    expect(init.status).toBe(0);
    expect(init.stdout).toContain('wrote .mcp.json');
    // Nothing else: an existing repository keeps its playbooks.
    expect(existsSync(join(folder, 'playbooks'))).toBe(false);
    const mcp = JSON.parse(readFileSync(join(folder, '.mcp.json'), 'utf8')) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    expect(mcp.mcpServers.other).toEqual({ command: 'other' });
    const server = mcp.mcpServers['kairoku-playbook']!;
    expect(server.args.slice(-7)).toEqual([
      'mcp',
      '--agents',
      'paseo',
      '--paseo-host',
      '127.0.0.1:7777',
      '--paseo-password-file',
      join(folder, 'secret/pw'),
    ]);
    const settings = JSON.parse(readFileSync(join(folder, '.claude', 'settings.json'), 'utf8')) as {
      model: string;
      enabledMcpjsonServers: string[];
      permissions: { allow: string[] };
    };
    expect(settings.model).toBe('opus');
    expect(settings.enabledMcpjsonServers).toEqual(['kairoku-playbook']);
    expect(settings.permissions.allow).toEqual(
      expect.arrayContaining([
        'Bash(npm test)',
        'mcp__kairoku-playbook__start_step',
        'mcp__kairoku-playbook__get_run',
      ]),
    );
    // Run again: nothing doubles.
    cli(['init', '--mcp'], folder);
    const again = JSON.parse(
      readFileSync(join(folder, '.claude', 'settings.json'), 'utf8'),
    ) as typeof settings;
    expect(again.permissions.allow.filter((t) => t === 'mcp__kairoku-playbook__get_run')).toHaveLength(1);
    expect(init.stdout).toContain('[mcp_servers.kairoku-playbook]');
  });

  it('refuses a .mcp.json that is not JSON, saying what to fix', () => {
    const folder = tempDir();
    writeFileSync(join(folder, '.mcp.json'), '{ not json');
    const init = cli(['init', '--mcp'], folder);
    expect(init.status).toBe(2);
    expect(init.stderr).toContain('.mcp.json is not JSON');
  });
});
