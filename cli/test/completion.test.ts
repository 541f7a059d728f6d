import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain, runMainToEnd } from './in-process.js';
import { complete } from '../src/commands/completion.js';
import { COMMAND_TABLE } from '../src/commands/table.js';
import { cliOnPath, hasTool, runCli, tempDir, terminal, workspaceWith } from '../../test/kit/index.js';

/** An empty folder: whatever a command given here did, it would do it there, not in the repository. */
const SCRATCH = tempDir();

const run = (argv: string[]) => runMain(argv, SCRATCH);

async function helpOf(command: string): Promise<string> {
  const { code, stdout } = await runMainToEnd([command, '--help'], SCRATCH);
  expect(code).toBe(0);
  return stdout;
}

/**
 * Flags a parser takes that its help does not name (completion offers them all the same): runs' help
 * sends its restart options to run's ("as for `run`") and leaves out --allow-remote-runners; the
 * runner's (the runtime's) does not list --help; panel's names --port and leaves the rest to serve's.
 */
const HELP_OMITS: Record<string, string[]> = {
  runs: ['allow-remote-runners'],
  runner: ['help'],
  // panel's help sends the rest of its options to serve's
  panel: Object.keys(COMMAND_TABLE.serve!.flags).filter((flag) => flag !== 'port' && flag !== 'help'),
};

/** Flags of other commands a help text names (the runner's `run --backend kairoku`, completion's examples). */
const HELP_QUOTES: Record<string, string[]> = {
  runner: ['backend', 'tls-self-signed'], // serve's flag, which prints the fingerprint
  completion: ['format', 'backend'],
  serve: ['app-fingerprint'], // the runners' flag its self-signed certificate is pinned with
};

const FLAG = /(?<![\w-])--([a-z][a-z-]*[a-z])/g;

describe('the command table that completion reads', () => {
  it('has every command, and only those', async () => {
    const help = run(['--help']).stdout;
    const listed = [...help.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!);
    expect(new Set(Object.keys(COMMAND_TABLE))).toEqual(new Set(listed));
  });

  it("names exactly the flags each command's help names", async () => {
    for (const [command, entry] of Object.entries(COMMAND_TABLE)) {
      if (command === 'help') continue; // help's only flag is its own --help, shown by `help --help`
      let text: string;
      if (command === 'runner') {
        // the runner prints its help itself, on the process's stdout
        const result = runCli(['runner', '--help']);
        text = result.stdout + result.stderr;
      } else text = await helpOf(command);
      const named = new Set(
        [...text.matchAll(FLAG)].map((m) => m[1]!).filter((flag) => !HELP_QUOTES[command]?.includes(flag)),
      );
      const table = Object.keys(entry.flags).filter((flag) => !HELP_OMITS[command]?.includes(flag));
      expect({ command, notInHelp: table.filter((f) => !named.has(f)) }).toEqual({ command, notInHelp: [] });
      expect({ command, notInTable: [...named].filter((f) => !table.includes(f)) }).toEqual({
        command,
        notInTable: [],
      });
    }
  });

  // (awaited: serve, mcp, lsp, format and playground are loaded when they run, and answer a usage error then)
  it("matches each command's parser: every flag is accepted, and takes a value exactly when the table says", async () => {
    const ran = (argv: string[]) => runMainToEnd(argv, SCRATCH);
    for (const [command, entry] of Object.entries(COMMAND_TABLE)) {
      if (command === 'runner' || command === 'help') continue; // the runner parses its own (runtime)
      for (const [name, value] of Object.entries(entry.flags)) {
        if (name === 'help') continue;
        // a flag before --help is parsed, then --help answers: an unknown flag is refused first
        if (value === 'none') {
          const result = await ran([command, `--${name}`, '--help']);
          expect({ command, name, code: result.code }).toEqual({ command, name, code: 0 });
        } else {
          expect({ command, name, code: (await ran([command, `--${name}`, 'x', '--help'])).code }).toEqual({
            command,
            name,
            code: 0,
          });
          // (the parser refuses a value flag with nothing after it before the command does anything)
          expect({ command, name, stderr: (await ran([command, `--${name}`])).stderr }).toEqual({
            command,
            name,
            stderr: `kairoku-playbook: option --${name} needs a value\n`,
          });
        }
      }
    }
  });
});

describe('__complete', () => {
  const ids = () => ['pr-abc123', 'release-0f0f0f'];
  it('completes commands, flags, values, codes, subcommands and run ids', () => {
    expect(complete(['ch'])).toEqual(['check']);
    expect(complete(['']).length).toBe(Object.keys(COMMAND_TABLE).length);
    expect(complete(['check', '--f'])).toEqual(['--format', '--fix']);
    expect(complete(['check', '--format', ''])).toEqual(['text', 'json', 'sarif', 'github']);
    expect(complete(['graph', '--format', 'm'])).toEqual(['mermaid']);
    expect(complete(['run', '--backend', ''])).toEqual(['sim', 'paseo', 'kairoku']);
    expect(complete(['mcp', '--agents', 'e'])).toEqual(['external']);
    expect(complete(['check', ''])).toEqual([':files']);
    expect(complete(['run', 'pr.yml', '--scenario', ''])).toEqual([':any-file']);
    expect(complete(['run', '--worktree', ''])).toEqual([':dirs']);
    expect(complete(['run', '--input', ''])).toEqual([]);
    expect(complete(['explain', 'PB20'])).toContain('PB205');
    expect(complete(['explain', 'pb20'])).toContain('PB205');
    expect(complete(['explain', '20'])).toContain('PB205');
    expect(complete(['explain', 'PB205', ''])).toEqual([]);
    expect(complete(['help', 'gr'])).toEqual(['graph']);
    expect(complete(['completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(complete(['runs', 're'])).toEqual(['resume', 'restart']);
    expect(complete(['runs', 'show', ''], ids)).toEqual(ids());
    expect(complete(['runs', '--json', 'show', 'pr'], ids)).toEqual(['pr-abc123']);
    expect(complete(['runs', 'list', ''], ids)).toEqual([]);
    expect(complete(['runs', 'cancel', '--reason', 'why', ''], ids)).toEqual(ids());
    expect(complete(['runs', 'cancel', 'pr-abc123', ''], ids)).toEqual([]);
    expect(complete(['init', ''])).toEqual([':dirs']);
    expect(complete(['nope', ''])).toEqual([]);
  });

  it('is what the scripts call', () => {
    expect(run(['__complete', 'check', '--format', 'j']).stdout).toBe('json\n');
    expect(run(['completion', 'tcsh'])).toMatchObject({
      code: 2,
      stderr: 'kairoku-playbook: completion knows bash, zsh, fish, not "tcsh"\n',
    });
  });
});

// ------------------------------------------------------------------------- the scripts, in real shells

const PLAYBOOK = 'version: 1\ntitle: T\nsteps:\n  a:\n    role: implementer\n    prompt: Do it.\n';
let folder: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  folder = workspaceWith({
    'playbooks/pr.yml': PLAYBOOK,
    'playbooks/notes.txt': 'not a playbook\n',
    'home/runs/pr-abc123.json': '{}',
    'home/runs/release-0f0f0f.json': '{}',
  });
  mkdirSync(join(folder, 'docs'));
  writeFileSync(join(folder, 'docs/readme.md'), '');
  env = {
    ...process.env,
    PATH: `${cliOnPath()}:${process.env.PATH}`,
    KAIROKU_PLAYBOOK_HOME: join(folder, 'home'),
  };
});

describe('the bash script', () => {
  // Each line starts two node processes (the script, then its completer): at load 20 on two cores the
  // eight lines took over a minute, so the guards below only catch a hang.
  /** The completions bash's function gives for a command line (cursor at its end). */
  function bash(line: string): string[] {
    const words = line.split(' ');
    const script = `source <(kairoku-playbook completion bash)
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
COMP_LINE='${line}'; COMP_POINT=${line.length}
_kairoku_playbook
printf '%s\\n' "\${COMPREPLY[@]}"`;
    const result = spawnSync('bash', ['-c', script], { cwd: folder, env, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    return result.stdout.split('\n').filter(Boolean);
  }

  it('completes commands, flags, values, playbook files, codes and run ids', () => {
    expect(bash('kairoku-playbook ch')).toEqual(['check']);
    expect(bash('kairoku-playbook check --w')).toEqual(['--watch']);
    expect(bash('kairoku-playbook check --format ')).toEqual(['text', 'json', 'sarif', 'github']);
    expect(bash('kairoku-playbook run playbooks/')).toEqual(['playbooks/pr.yml']);
    expect(bash('kairoku-playbook check ').sort()).toEqual(['docs', 'home', 'playbooks']);
    expect(bash('kairoku-playbook explain PB20')).toContain('PB205');
    expect(bash('kairoku-playbook runs show ')).toEqual(['pr-abc123', 'release-0f0f0f']);
    expect(bash('kairoku-playbook run --worktree d')).toEqual(['docs']);
  }, 180_000);
});

describe.skipIf(!hasTool('fish'))('the fish script', () => {
  function fish(line: string): string[] {
    const result = spawnSync(
      'fish',
      ['--no-config', '-c', `kairoku-playbook completion fish | source; complete -C '${line}'`],
      { cwd: folder, env, encoding: 'utf8' },
    );
    expect(result.stderr).toBe('');
    return result.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t')[0]!);
  }

  it('completes commands, flags, values, playbook files, codes and run ids', () => {
    expect(fish('kairoku-playbook ch')).toEqual(['check']);
    expect(fish('kairoku-playbook check --w')).toEqual(['--watch']);
    expect(fish('kairoku-playbook check --format ').sort()).toEqual(['github', 'json', 'sarif', 'text']);
    expect(fish('kairoku-playbook run playbooks/')).toEqual(['playbooks/pr.yml']);
    expect(fish('kairoku-playbook explain PB20')).toContain('PB205');
    expect(fish('kairoku-playbook runs show ')).toEqual(['pr-abc123', 'release-0f0f0f']);
    expect(fish('kairoku-playbook run --worktree d')).toEqual(['docs/']);
  }, 180_000);
});

describe.skipIf(!hasTool('zsh') || !hasTool('script'))('the zsh script, typed at an interactive zsh', () => {
  let shell: ReturnType<typeof terminal>;
  beforeAll(async () => {
    shell = terminal('zsh -f -i', env, folder);
    await shell.waitFor((s) => /[#%] $/.test(s), 'the first prompt');
    await shell.type(
      'autoload -U compinit; compinit -u; source <(kairoku-playbook completion zsh); echo LOADED\n',
      (s) => /LOADED\n[\s\S]*[#%] $/.test(s),
      'the prompt after loading the script',
    );
  }, 60_000);
  afterAll(async () => shell?.close());

  /** Types the line and TAB, then waits for `expected` on the screen; clears the line (Ctrl-U) afterwards. */
  async function tab(line: string, expected: RegExp): Promise<void> {
    const screen = await shell.type(`${line}\t`, (s) => expected.test(s), `${expected} after "${line}<TAB>"`);
    expect(screen).toMatch(expected);
    await shell.type('\x15', () => true, 'the line cleared');
  }

  it('completes commands, flags, values, playbook files, codes and run ids', async () => {
    await tab('kairoku-playbook ch', /kairoku-playbook check /);
    await tab('kairoku-playbook check --wa', /kairoku-playbook check --watch /);
    await tab('kairoku-playbook check --format ', /github\s+json\s+sarif\s+text/);
    await tab('kairoku-playbook run playbooks/', /kairoku-playbook run playbooks\/pr\.yml /);
    await tab('kairoku-playbook explain PB20', /PB200\s+PB201\s+PB202/);
    await tab('kairoku-playbook runs show ', /pr-abc123\s+release-0f0f0f/);
  }, 180_000);
});
