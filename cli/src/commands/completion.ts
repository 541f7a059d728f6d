import { readdirSync } from 'node:fs';
// Light imports only: `__complete` runs from a bundle of its own (cli/src/bin-complete.ts), at every TAB.
import { CODES } from '@kairoku-playbook/compiler/codes';
import { defaultHome, runsFolder } from '@kairoku-playbook/runtime/home';
import { parseArgs } from '../args.js';
import { UsageError } from '../usage-error.js';
import type { CommandIo } from '../io.js';
import { COMMAND_TABLE, RUNS_SUBCOMMANDS, SHELLS } from './table.js';
import type { FlagValue, Positionals } from './table.js';

export const COMPLETION_HELP = `Usage: kairoku-playbook completion bash|zsh|fish

Prints a script that makes the shell complete kairoku-playbook's commands, their options, the values
of options that take one of a few words (--format, --backend), playbook files, diagnostic codes
(explain) and saved run ids (runs). Load it from the shell's startup file:

  bash   echo 'source <(kairoku-playbook completion bash)' >> ~/.bashrc
  zsh    echo 'source <(kairoku-playbook completion zsh)' >> ~/.zshrc    (after compinit)
  fish   kairoku-playbook completion fish > ~/.config/fish/completions/kairoku-playbook.fish

The script asks kairoku-playbook itself what to offer at each TAB, so it follows the installed
version; an option's value is completed after a space (--format json), not after =.

Options:
  -h, --help  this help`;

/** The first line of `__complete`'s answer when the shell should complete paths itself. */
const PLAYBOOK_FILES = ':files';
const FOLDERS = ':dirs';
const ANY_FILE = ':any-file';

export function runCompletion(argv: readonly string[], io: CommandIo): number {
  const args = parseArgs(argv, { help: 'boolean' }, { h: 'help' });
  if (args.flags.has('help')) {
    io.stdout(`${COMPLETION_HELP}\n`);
    return 0;
  }
  const [shell, ...extra] = args.positionals;
  if (shell === undefined) throw new UsageError(`completion needs a shell: ${SHELLS.join(', ')}`);
  if (extra.length) throw new UsageError(`completion takes one shell, not ${args.positionals.length}`);
  const script = SCRIPTS[shell as (typeof SHELLS)[number]];
  if (script === undefined) throw new UsageError(`completion knows ${SHELLS.join(', ')}, not "${shell}"`);
  io.stdout(script);
  return 0;
}

/**
 * `__complete WORD...` (the scripts' helper, not for people): the words of the command line after the
 * program's name, the last one being the word under the cursor (empty after a space); prints the
 * candidates that start with it, one a line, or one of the path directives above for the shell to do.
 */
export function runComplete(argv: readonly string[], io: CommandIo): number {
  const lines = complete(argv);
  io.stdout(lines.length ? `${lines.join('\n')}\n` : '');
  return 0;
}

/** What to offer for the last word of `words` (see `runComplete`). */
export function complete(words: readonly string[], runIds: () => string[] = savedRunIds): string[] {
  const current = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const starting = (candidates: readonly string[]) => candidates.filter((c) => c.startsWith(current));
  if (before.length === 0) {
    return starting(current.startsWith('-') ? ['--help', '--version'] : Object.keys(COMMAND_TABLE));
  }
  const [command, ...rest] = before as [string, ...string[]];
  const entry = COMMAND_TABLE[command];
  if (!entry) return [];
  const previous = rest.at(-1);
  if (previous?.startsWith('--') && !previous.includes('=')) {
    const value = entry.flags[previous.slice(2)];
    if (value !== undefined && value !== 'none') return valueCandidates(value, starting);
  }
  if (current.startsWith('-')) return starting(Object.keys(entry.flags).map((name) => `--${name}`));
  return positionalCandidates(entry.positionals, positionalsBefore(rest, entry.flags), current, runIds);
}

function valueCandidates(value: FlagValue, starting: (c: readonly string[]) => string[]): string[] {
  if (value === 'file') return [ANY_FILE];
  if (value === 'dir') return [FOLDERS];
  if (value === 'text') return [];
  return starting(value as readonly string[]);
}

/** The positional arguments among `words`: what is neither a flag nor a flag's value. */
function positionalsBefore(words: readonly string[], flags: Readonly<Record<string, FlagValue>>): string[] {
  const found: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!word.startsWith('-') || word === '-') found.push(word);
    else if (word.startsWith('--') && !word.includes('=')) {
      const value = flags[word.slice(2)];
      if (value !== undefined && value !== 'none') i++;
    } else if (word === '-o') i++;
  }
  return found;
}

function positionalCandidates(
  kind: Positionals,
  given: readonly string[],
  current: string,
  runIds: () => string[],
): string[] {
  const starting = (candidates: readonly string[]) => candidates.filter((c) => c.startsWith(current));
  switch (kind) {
    case 'playbooks':
      return [PLAYBOOK_FILES];
    case 'dir':
      return given.length ? [] : [FOLDERS];
    case 'codes':
      // explain takes pb205 and 205 too; the shell replaces the word with the code
      return given.length
        ? []
        : Object.keys(CODES).filter(
            (code) => code.startsWith(current.toUpperCase()) || code.slice(2).startsWith(current),
          );
    case 'commands':
      return given.length ? [] : starting(Object.keys(COMMAND_TABLE));
    case 'shells':
      return given.length ? [] : starting(SHELLS);
    case 'runs':
      if (given.length === 0) return starting(RUNS_SUBCOMMANDS);
      return given.length === 1 && given[0] !== 'list' && given[0] !== 'prune' ? starting(runIds()) : [];
    default:
      return [];
  }
}

/** The ids of the saved runs, archived ones included, read from the file names (nothing is parsed). */
function savedRunIds(): string[] {
  try {
    return readdirSync(runsFolder(defaultHome()))
      .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
      .map((name) => name.slice(0, -'.json'.length))
      .sort();
  } catch {
    return [];
  }
}

// The scripts pass the words before the cursor to `__complete` and do what it answers: offer its
// lines, or complete paths themselves (so quoting, ~ and folders work as the shell's own do).

const BASH = `# bash completion for kairoku-playbook (kairoku-playbook completion bash)
_kairoku_playbook() {
  local cur=\${COMP_WORDS[COMP_CWORD]}
  local IFS=$'\\n'
  local -a answer
  answer=($("\${COMP_WORDS[0]}" __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)) || return 0
  COMPREPLY=()
  case \${answer[0]-} in
    ${PLAYBOOK_FILES})
      compopt -o filenames 2>/dev/null
      local path
      for path in $(compgen -f -- "$cur"); do
        if [[ -d $path || $path == *.yml || $path == *.yaml ]]; then COMPREPLY+=("$path"); fi
      done ;;
    ${FOLDERS})
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -d -- "$cur")) ;;
    ${ANY_FILE})
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$cur")) ;;
    *) COMPREPLY=("\${answer[@]}") ;;
  esac
}
complete -F _kairoku_playbook kairoku-playbook
`;

const ZSH = `#compdef kairoku-playbook
# zsh completion for kairoku-playbook (kairoku-playbook completion zsh; load it after compinit)
_kairoku_playbook() {
  local answer
  answer=$("\${words[1]}" __complete "\${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
  [[ -n $answer ]] || return 1
  local -a candidates
  candidates=("\${(@f)answer}")
  case $candidates[1] in
    ${PLAYBOOK_FILES}) _files -g '*.(yml|yaml)(-.)' ;;
    ${FOLDERS}) _files -/ ;;
    ${ANY_FILE}) _files ;;
    *) compadd -a candidates ;;
  esac
}
compdef _kairoku_playbook kairoku-playbook
`;

const FISH = `# fish completion for kairoku-playbook (kairoku-playbook completion fish)
function __kairoku_playbook_complete
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    set -l answer ($words[1] __complete $words[2..-1] "$current" 2>/dev/null)
    switch "$answer[1]"
        case '${PLAYBOOK_FILES}'
            __fish_complete_path "$current" | string match -r '^[^\\t]*(?:/|\\.ya?ml)(?:\\t.*)?$'
        case '${FOLDERS}'
            __fish_complete_directories "$current"
        case '${ANY_FILE}'
            __fish_complete_path "$current"
        case '*'
            printf '%s\\n' $answer
    end
end
complete -c kairoku-playbook -f -a '(__kairoku_playbook_complete)'
`;

const SCRIPTS: Record<(typeof SHELLS)[number], string> = { bash: BASH, zsh: ZSH, fish: FISH };
