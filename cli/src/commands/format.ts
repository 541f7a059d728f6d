import { analyzeFile, isPlaybookFile, isPlaybookTest } from '@kairoku-playbook/compiler';
import { parseArgs } from '../args.js';
import { collectPaths, displayPath } from '../discover.js';
import { UsageError, readPlaybookFile, writeUserFile } from '../io.js';
import type { CommandIo } from '../io.js';
import { FORMAT_HELP } from './format-help.js';

export { FORMAT_HELP };

export function runFormat(argv: readonly string[], io: CommandIo): number | Promise<number> {
  const args = parseArgs(argv, { check: 'boolean', help: 'boolean' }, { h: 'help' });
  if (args.flags.has('help')) {
    io.stdout(`${FORMAT_HELP}\n`);
    return 0;
  }
  return formatFiles(args.positionals, args.flags.has('check'), io);
}

/** Formats (or with `check`, looks at) the given paths; Prettier answers asynchronously. */
async function formatFiles(positionals: readonly string[], check: boolean, io: CommandIo): Promise<number> {
  const args = { positionals };
  const given = args.positionals.length ? args.positionals : ['.'];
  const { paths, named, limits } = collectPaths(given, io.cwd);
  if (limits.length) throw new UsageError(limits[0]!);
  // (loaded here, not at start: Prettier is only needed by this command)
  const { formatPlaybook, formatYaml, prettierOptionsForPath } = await import('@kairoku-playbook/lsp');
  let found = 0;
  let changed = 0;
  let refused = 0;
  let ignored = 0;
  for (const path of paths) {
    const shown = displayPath(path, io.cwd);
    const read = readPlaybookFile(path, shown);
    if ('diagnostic' in read) {
      io.stderr(`kairoku-playbook: ${shown}: not formatted: ${read.diagnostic.message}\n`);
      found++;
      refused++;
      continue;
    }
    // SPEC §2: an Ansible playbook in a bare playbooks/ folder is not ours (a file named is always formatted)
    if (!named.has(path) && !isPlaybookTest(path) && !isPlaybookFile(path, read.text)) continue;
    found++;
    const config = await prettierOptionsForPath(path);
    // (listed in the nearest .prettierignore: left as it is, as Prettier leaves it)
    if ('ignored' in config) {
      ignored++;
      continue;
    }
    const result =
      'refused' in config
        ? config
        : isPlaybookTest(path)
          ? await formatYaml(read.text, config.options)
          : await formatPlaybook(analyzeFile(shown, read.text), config.options);
    if ('refused' in result) {
      io.stderr(`kairoku-playbook: ${shown}: ${result.refused}\n`);
      refused++;
      continue;
    }
    if (result.text === read.text) continue;
    changed++;
    if (check) io.stdout(`${shown}\n`);
    else {
      // with the byte order mark the file began with (reading dropped it)
      writeUserFile(path, read.byteOrderMark ? `\ufeff${result.text}` : result.text);
      io.stdout(`formatted ${shown}\n`);
    }
  }
  if (found === 0) {
    const where = args.positionals.length ? args.positionals.join(', ') : 'this folder';
    throw new UsageError(
      `no playbooks found in ${where} (*.playbook.yml, or *.yml directly in a playbooks/ folder)`,
    );
  }
  const files = (n: number) => `${n} ${n === 1 ? 'file' : 'files'}`;
  const untouched = found - changed - refused - ignored;
  if (ignored)
    io.stderr(
      `${files(ignored)} left as ${ignored === 1 ? 'it is' : 'they are'}: listed in .prettierignore\n`,
    );
  if (check)
    io.stderr(
      changed
        ? `${files(changed)} not formatted; run kairoku-playbook format to format ${changed === 1 ? 'it' : 'them'}\n`
        : `${files(untouched)} formatted\n`,
    );
  else io.stderr(changed ? `formatted ${files(changed)}\n` : `${files(untouched)} already formatted\n`);
  if (refused) return 2;
  return check && changed ? 1 : 0;
}
