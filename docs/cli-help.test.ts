/**
 * docs/cli.md against the CLI's own `--help`: the commands of `kairoku-playbook --help` are the
 * commands of the page's synopsis and each has its section; the subcommands of `runs` are the same in
 * `runs --help`, the overview and the synopsis; every option a command's `--help` names is in that
 * command's section, and every option the page gives a command (in the synopsis, in a command line of
 * a code block, or in inline code such as `run --gate …`) is one its `--help` names.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../cli/src/main.js';

const PAGE = readFileSync(new URL('./cli.md', import.meta.url), 'utf8');

/** What `argv` prints on standard output; it must answer at once with exit 0. */
function output(argv: string[]): string {
  let stdout = '';
  const code = main(argv, {
    cwd: process.cwd(),
    stdout: (text) => (stdout += text),
    stderr: () => {},
    color: false,
    colorStderr: false,
  });
  if (code !== 0) throw new Error(`${argv.join(' ')} answered ${String(code)}`);
  return stdout;
}

/** The lines of a help text's section that starts at a line `title` and ends at a blank line. */
function block(text: string, title: string): string[] {
  const lines = text.split('\n');
  const start = lines.indexOf(title);
  if (start < 0) throw new Error(`no "${title}" in:\n${text}`);
  const end = lines.indexOf('', start);
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

const flags = (text: string): string[] => [...new Set(text.match(/(?<![\w-])--[a-z][a-z0-9-]*/g) ?? [])];

/** `check` → the text of the page's `## \`check\`` section. */
function sections(): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of PAGE.split(/^## /m).slice(1)) {
    const name = /^`([a-z]+)`\n/.exec(part)?.[1];
    if (name) found.set(name, part);
  }
  return found;
}

const SYNOPSIS = (/^```text\n([\s\S]*?)^```$/m.exec(PAGE)?.[1] ?? '').split('\n').filter(Boolean);
const COMMANDS = block(output(['--help']), 'Commands:')
  .map((line) => /^ {2}([a-z]+)\b/.exec(line)?.[1])
  .filter((name): name is string => name !== undefined);
const HELP = new Map(COMMANDS.map((command) => [command, output([command, '--help'])]));

/**
 * Every place the page gives a command options: `[command, the text]`. Synopsis lines and lines of
 * code blocks that start with `kairoku-playbook COMMAND` (or `npx kairoku-playbook COMMAND`), and
 * inline code that starts with a command's name followed by an option.
 */
function commandLines(): [string, string][] {
  const lines: [string, string][] = [];
  const named = (text: string) => {
    const match = /^(?:\$ )?(?:npx )?kairoku-playbook ([a-z]+)\b(.*)$/.exec(text.trim());
    if (match && HELP.has(match[1]!)) lines.push([match[1]!, match[2]!]);
  };
  let fenced = false;
  for (const line of PAGE.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (fenced) named(line);
    else
      for (const [, code] of line.matchAll(/`([^`]+)`/g)) {
        const bare = /^([a-z]+) (--[a-z].*)$/.exec(code!);
        if (bare && HELP.has(bare[1]!)) lines.push([bare[1]!, bare[2]!]);
        else named(code!);
      }
  }
  return lines;
}

describe('docs/cli.md and --help', () => {
  it('name the same commands, and each has its section', () => {
    const synopsis = SYNOPSIS.map((line) => /^kairoku-playbook ([a-z]+)\b/.exec(line)?.[1]).filter(
      (name): name is string => name !== undefined,
    );
    expect(COMMANDS.length).toBeGreaterThan(15);
    expect([...new Set(synopsis)].sort()).toEqual([...COMMANDS].sort());
    const documented = sections();
    expect(COMMANDS.filter((command) => !documented.has(command))).toEqual([]);
  });

  it('give runs the same subcommands: its --help, the overview and the synopsis', () => {
    const own = block(HELP.get('runs')!, 'Commands:')
      .map((line) => /^ {2}([a-z]+)\b/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined);
    const listed = (text: string) => /runs \[([a-z|]+)\]/.exec(text)?.[1]?.split('|');
    expect(own.length).toBeGreaterThan(5);
    expect(listed(output(['--help']))).toEqual(own);
    expect(listed(SYNOPSIS.join('\n'))).toEqual(own);
  });

  it("has every option of a command's --help in the command's section", () => {
    const documented = sections();
    const missing = COMMANDS.flatMap((command) => {
      const section = documented.get(command) ?? '';
      return flags(HELP.get(command)!)
        .filter((flag) => !new RegExp(`${flag}(?![\\w-])`).test(section))
        .map((flag) => `${command} ${flag}`);
    });
    expect(missing).toEqual([]);
  });

  it('gives a command only options its --help has', () => {
    const lines = commandLines();
    expect(lines.length).toBeGreaterThan(COMMANDS.length);
    const unknown = lines.flatMap(([command, text]) =>
      flags(text)
        .filter(
          (flag) => flag !== '--help' && flag !== '--version' && !flags(HELP.get(command)!).includes(flag),
        )
        .map((flag) => `${command} ${flag}: ${text.trim()}`),
    );
    expect(unknown).toEqual([]);
  });
});
