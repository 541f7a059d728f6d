import { describe, expect, it } from 'vitest';
import { runMainToEnd } from './in-process.js';
import { COMMAND_TABLE } from '../src/commands/table.js';

const run = (argv: string[]) => runMainToEnd(argv, process.cwd());

describe('kairoku-playbook help', () => {
  it('prints the same text as COMMAND --help, for every command', async () => {
    for (const command of Object.keys(COMMAND_TABLE)) {
      const help = await run(['help', command]);
      expect({ command, ...help }).toEqual({ command, ...(await run([command, '--help'])) });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Usage: kairoku-playbook /i);
    }
  });

  it('without a command prints the overview, exit 0', async () => {
    const help = await run(['help']);
    expect(help).toEqual({ ...(await run(['--help'])), code: 0 });
    expect(help.stdout).toContain('Commands:');
  });

  it('refuses an unknown command with the nearest one, exit 2', async () => {
    expect(await run(['help', 'chek'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'kairoku-playbook: unknown command "chek"; did you mean "check"? (kairoku-playbook help lists them)\n',
    });
    expect(await run(['help', 'zzzzzz'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'kairoku-playbook: unknown command "zzzzzz" (kairoku-playbook help lists them)\n',
    });
    expect((await run(['help', '__complete'])).code).toBe(2);
    expect((await run(['grpah'])).stderr).toBe(
      'kairoku-playbook: unknown command "grpah"; did you mean "graph"? (kairoku-playbook help lists them)\n',
    );
  });
});
