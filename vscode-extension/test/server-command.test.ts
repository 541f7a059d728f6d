import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeServerCommand, serveCommand, serverCommand } from '../src/server-command.js';

const context = { extensionPath: '/ext', workspaceFolder: '/work/repo', home: '/home/me' };

describe('serverCommand', () => {
  it('runs the bundled server when the setting is empty', () => {
    for (const setting of [undefined, '', '   '])
      expect(serverCommand(setting, context)).toEqual({
        kind: 'module',
        module: join('/ext', 'dist', 'server.js'),
        args: [],
        bundled: true,
      });
    expect(describeServerCommand(serverCommand('', context))).toBe(
      `the bundled server (${join('/ext', 'dist', 'server.js')})`,
    );
  });

  it('runs an installed CLI as `<path> lsp --stdio`, from PATH when bare', () => {
    expect(serverCommand('kairoku-playbook', context)).toEqual({
      kind: 'executable',
      command: 'kairoku-playbook',
      args: ['lsp'],
    });
    expect(serverCommand('/usr/local/bin/kairoku-playbook', context)).toMatchObject({
      command: '/usr/local/bin/kairoku-playbook',
    });
    expect(describeServerCommand(serverCommand('kairoku-playbook', context))).toBe(
      'kairoku-playbook lsp --stdio',
    );
  });

  it('resolves relative paths against the workspace folder and ~ against home', () => {
    expect(serverCommand('node_modules/.bin/kairoku-playbook', context)).toMatchObject({
      command: join('/work/repo', 'node_modules/.bin/kairoku-playbook'),
    });
    expect(serverCommand('~/bin/kairoku-playbook', context)).toMatchObject({
      command: join('/home/me', 'bin/kairoku-playbook'),
    });
  });

  it('runs JavaScript with Node: the CLI entry with `lsp`, a server entry as it is', () => {
    expect(serverCommand('cli/dist/kairoku-playbook.js', context)).toEqual({
      kind: 'module',
      module: join('/work/repo', 'cli/dist/kairoku-playbook.js'),
      args: ['lsp'],
      bundled: false,
    });
    expect(serverCommand('/work/repo/lsp/dist/stdio.js', context)).toEqual({
      kind: 'module',
      module: '/work/repo/lsp/dist/stdio.js',
      args: [],
      bundled: false,
    });
    expect(describeServerCommand(serverCommand('/s/server.mjs', context))).toBe('node /s/server.mjs --stdio');
  });
});

describe('serveCommand', () => {
  it('starts serve from the CLI the setting names, an executable or a kairoku-playbook script', () => {
    expect(serveCommand('kairoku-playbook', context)).toEqual({
      kind: 'executable',
      command: 'kairoku-playbook',
    });
    expect(serveCommand('cli/dist/kairoku-playbook.js', context)).toEqual({
      kind: 'module',
      module: join('/work/repo', 'cli/dist/kairoku-playbook.js'),
    });
  });

  it('starts the bundled CLI when the setting is empty or names the language server itself (it has no serve)', () => {
    const bundled = { kind: 'module', module: join(context.extensionPath, 'dist', 'cli.js') };
    expect(serveCommand('', context)).toEqual(bundled);
    expect(serveCommand(undefined, context)).toEqual(bundled);
    expect(serveCommand('/work/repo/lsp/dist/stdio.js', context)).toEqual(bundled);
  });
});
