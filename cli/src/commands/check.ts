import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  WorkspaceLoader,
  checkCommandIn,
  compilePlaybook,
  displayPath,
  isPlaybookTest,
  isPolicyFile,
  sortDiagnostics,
} from '@kairoku-playbook/compiler';
import type { Diagnostic, Refusal, WorkspaceFile } from '@kairoku-playbook/compiler';
import { diskFileSystem } from '@kairoku-playbook/compiler/disk';
import {
  DEFAULT_MAX_STATES,
  applyExploreSuppressions,
  explore,
  exploreDiagnostics,
  sayBounds,
} from '@kairoku-playbook/runtime';
import { CHECK_EXPLORE_SECONDS, budgetRanOut } from './explore.js';
import { flag, oneOf, parseArgs } from '../args.js';
import { formatGithub, formatJson, formatSarif, formatText } from '../format/index.js';
import { UsageError, writeUserFile } from '../io.js';
import { applyQuickFixes, lineDiff } from './check-fix.js';
import { watchCheck } from './check-watch.js';
import { repositoryRoot } from '../repository-root.js';
import type { CommandIo } from '../io.js';
import { VERSION } from '../version.js';

export const CHECK_HELP = `Usage: kairoku-playbook check [PATH...] [options]

Checks playbooks and prints their diagnostics. With no PATH, checks the playbooks discovered in
the current folder: *.playbook.yml|yaml anywhere, and *.yml|yaml directly in playbooks/,
.kairoku/playbooks/ and .paseo/playbooks/ (node_modules and .git are skipped), and the
playbook tests found where a playbook would be (playbooks/pr.test.yml, x.playbook.test.yml), each
against the playbook beside it (pr.test.yml tests pr.yml). A folder PATH is searched the same way; a file PATH is always checked. A file found only
because it is in a playbooks/ folder is left out when its top level is not a mapping (an Ansible
playbook).

Options:
  --format text|json|sarif|github   output format (default text)
  --max-warnings N                  exit 1 when there are more than N warnings (default: no limit)
  --root DIR                        sarif: paths are relative to DIR (default: the top of the git
                                    work tree holding the current folder, else the current folder)
  --explore                         also explore every run of each playbook without errors (up to
                                    ${DEFAULT_MAX_STATES} states or ${CHECK_EXPLORE_SECONDS} s each): PB310 (a step that can never run),
                                    PB311 (a run that can get stuck); in text, the bounds of a run
                                    (most agent turns, gate decisions, wall clock)
  --max-agent-turns N               with --explore (implied): PB312 when a run can take more than N
                                    agent turns
  --fix                             apply the quick fixes diagnostics carry (did-you-mean names of
                                    steps, outputs, inputs, roles, outcomes, functions and keys),
                                    rewriting each file whole; says what it fixed, then checks again
  --dry-run                         with --fix: print the changes as a diff and write nothing
  --watch                           check again whenever a playbook changes, until Ctrl-C
  --no-color                        plain text even on a terminal
  -h, --help                        this help

Exit codes: 0 no errors (and warnings within --max-warnings), 1 diagnostics over that, 2 usage or I/O errors.`;

interface CheckOptions {
  format: 'text' | 'json' | 'sarif' | 'github';
  maxWarnings: number;
  root: string;
  explore: boolean;
  /** `--max-agent-turns`: over it, PB312 */
  maxAgentTurns: number | undefined;
  color: boolean;
  fix: 'no' | 'write' | 'dry-run';
}

export function runCheck(argv: readonly string[], io: CommandIo): number | Promise<number> {
  const args = parseArgs(
    argv,
    {
      format: 'string',
      'max-warnings': 'string',
      'no-color': 'boolean',
      help: 'boolean',
      explore: 'boolean',
      'max-agent-turns': 'string',
      root: 'string',
      fix: 'boolean',
      'dry-run': 'boolean',
      watch: 'boolean',
    },
    { h: 'help' },
  );
  if (args.flags.has('help')) {
    io.stdout(`${CHECK_HELP}\n`);
    return 0;
  }
  const format = oneOf(flag(args, 'format'), ['text', 'json', 'sarif', 'github'] as const, 'format', 'text');
  const maxWarningsText = flag(args, 'max-warnings');
  let maxWarnings = Infinity;
  if (maxWarningsText !== undefined) {
    if (!/^\d+$/.test(maxWarningsText))
      throw new UsageError(`--max-warnings takes a whole number, not "${maxWarningsText}"`);
    maxWarnings = Number(maxWarningsText);
  }
  const maxTurnsText = flag(args, 'max-agent-turns');
  if (maxTurnsText !== undefined && !/^\d+$/.test(maxTurnsText))
    throw new UsageError(`--max-agent-turns takes a whole number, not "${maxTurnsText}"`);

  const fix = args.flags.has('fix');
  if (args.flags.has('dry-run') && !fix)
    throw new UsageError('--dry-run goes with --fix (check --fix --dry-run)');
  if (fix && args.flags.has('watch'))
    throw new UsageError(
      '--fix and --watch do not go together: a file is not rewritten while it is being edited',
    );
  const options: CheckOptions = {
    format,
    maxWarnings,
    root: sourceRoot(flag(args, 'root'), io.cwd),
    explore: args.flags.has('explore') || maxTurnsText !== undefined,
    maxAgentTurns: maxTurnsText === undefined ? undefined : Number(maxTurnsText),
    color: format === 'text' && !args.flags.has('no-color') && io.color,
    fix: fix ? (args.flags.has('dry-run') ? 'dry-run' : 'write') : 'no',
  };
  const given = args.positionals.length ? args.positionals : ['.'];
  if (args.flags.has('watch')) {
    // one loader for the whole watch: each check reads only the files that changed
    let loader: WorkspaceLoader | undefined;
    const load = () => (loader ??= loaderOf(args.positionals, io.cwd));
    return watchCheck(given, io, () => checkOnce(args.positionals, options, io, load()));
  }
  return checkOnce(args.positionals, options, io, loaderOf(args.positionals, io.cwd));
}

/** What `check PATH...` loads: each PATH a folder walked or a file named (a missing one is a usage error). */
function loaderOf(positionals: readonly string[], cwd: string): WorkspaceLoader {
  const paths = (positionals.length ? positionals : ['.']).map((arg) => {
    const path = resolve(cwd, arg);
    try {
      return { path, folder: statSync(path).isDirectory() };
    } catch {
      throw new UsageError(`no such file or folder: ${arg}`);
    }
  });
  const shown = new Map(positionals.map((arg) => [resolve(cwd, arg), arg]));
  return new WorkspaceLoader(diskFileSystem, {
    paths,
    command: checkCommandIn(diskFileSystem, cwd),
    show: (path) => displayPath(path, cwd),
    shownRoot: (folder) => {
      const arg = shown.get(folder) ?? '.';
      return arg === '.' ? 'the current folder' : arg;
    },
  });
}

/** A file found that cannot be read at all is a usage error (one refused unread is a PB100). */
function refuseUnreadable(refusals: readonly Refusal[]): void {
  for (const { file, problem, reason } of refusals) {
    if (problem === 'missing') throw new UsageError(`no such file: ${file}`);
    if (problem === 'unreadable') throw new UsageError(`cannot read ${file}: ${reason}`);
  }
}

/** One check of the given paths (the current folder without any), printed; the exit code. */
function checkOnce(
  positionals: readonly string[],
  options: CheckOptions,
  io: CommandIo,
  loader: WorkspaceLoader,
): number {
  const { format, maxWarnings, root } = options;
  let loaded = loader.load();
  refuseUnreadable(loaded.refusals);
  const { limits, notOurs } = loaded;
  // As ESLint does: checking nothing is more likely a wrong path than a clean workspace.
  if (loaded.checked.length === 0 && limits.length === 0) {
    const where = positionals.length ? positionals.join(', ') : 'this folder';
    const skipped = notOurs.length
      ? `; ${notOurs.length === 1 ? `${notOurs[0]} is` : `${notOurs.length} files in playbooks/ folders are`} not a playbook: its top level is not a mapping (an Ansible playbook is a list of plays)`
      : '';
    throw new UsageError(
      `no playbooks found in ${where} (*.playbook.yml, or *.yml directly in a playbooks/ folder)${skipped}`,
    );
  }
  if (options.fix !== 'no') {
    const fixed = fixFiles(loaded.files, loaded.onDisk, options, io);
    loaded = loader.load({ beforeValidation: () => fixed });
  }
  const explored = options.explore
    ? exploreAll(loaded.files, loaded.validation.diagnostics, io, options.maxAgentTurns)
    : undefined;
  const diagnostics = explored
    ? sortDiagnostics([...explored.keep(loaded.diagnostics), ...explored.found])
    : loaded.diagnostics;
  const sourceOf = loaded.sourceOf;
  const paths = loaded.checked;

  const color = options.color;
  switch (format) {
    case 'json':
      io.stdout(formatJson(diagnostics, sourceOf));
      break;
    case 'sarif':
      io.stdout(formatSarif(diagnostics, sourceOf, { toolVersion: VERSION, cwd: io.cwd, root }));
      break;
    case 'github':
      io.stdout(formatGithub(diagnostics, sourceOf));
      break;
    default:
      io.stdout(formatText(diagnostics, sourceOf, { color, fileCount: paths.length }));
      // the bounds are information for the author: in text only (JSON and SARIF stay diagnostics)
      for (const line of explored?.bounds ?? []) io.stdout(line);
  }
  // A walk that stopped at a limit checked only part of the folder: what it found is printed, and
  // the exit code says the check is incomplete (an I/O refusal), not clean.
  for (const limit of limits) io.stderr(`kairoku-playbook: ${limit}\n`);
  if (limits.length) return 2;
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
  return errors > 0 || warnings > maxWarnings ? 1 : 0;
}

/**
 * `--fix`: applies the diagnostics' quick fixes and writes each changed file whole (or, with --dry-run,
 * prints the diff); says what it fixed on standard output in text format, on standard error otherwise
 * (so JSON and SARIF stay parseable). Returns the files as fixed, to be checked.
 */
function fixFiles(
  files: readonly WorkspaceFile[],
  onDisk: ReadonlyMap<string, { path: string; byteOrderMark: boolean }>,
  options: CheckOptions,
  io: CommandIo,
): WorkspaceFile[] {
  const result = applyQuickFixes(files);
  const say = options.format === 'text' ? io.stdout : io.stderr;
  const dryRun = options.fix === 'dry-run';
  for (const fix of result.applied)
    say(
      `${dryRun ? 'would fix' : 'fixed'} ${fix.file}:${fix.line}:${fix.column}  ${fix.code}  ${fix.title}\n`,
    );
  for (const fix of result.skipped)
    say(
      `not fixed ${fix.file}:${fix.line}:${fix.column}  ${fix.code}  ${fix.title}: it would add ${fix.added}\n`,
    );
  for (const fixed of result.files) {
    const before = result.changed.get(fixed.file);
    if (before === undefined) continue;
    if (dryRun) say(lineDiff(fixed.file, before, fixed.text));
    else {
      // with the byte order mark the file began with (reading dropped it)
      const { path, byteOrderMark } = onDisk.get(fixed.file)!;
      writeUserFile(path, byteOrderMark ? `\ufeff${fixed.text}` : fixed.text);
    }
  }
  const count = result.applied.length;
  const fileCount = result.changed.size;
  say(
    count === 0
      ? 'nothing to fix\n\n'
      : `${dryRun ? 'would fix' : 'fixed'} ${count} ${count === 1 ? 'problem' : 'problems'} in ${fileCount} ${fileCount === 1 ? 'file' : 'files'}${dryRun ? ' (--dry-run: nothing written)' : ''}\n\n`,
  );
  // (after --dry-run, the diagnostics printed are those the fixes would leave)
  return result.files;
}

/**
 * `--explore`: PB310 and PB311 for every playbook that compiles, placed and suppressed like the
 * compiler's own diagnostics. A `# playbook-ignore PB310` comment that silences one of them is not
 * "silencing nothing": the compiler's PB903 for it is dropped.
 */
function exploreAll(
  files: readonly WorkspaceFile[],
  checked: readonly Diagnostic[],
  io: CommandIo,
  maxAgentTurns: number | undefined,
) {
  const found: Diagnostic[] = [];
  const bounds: string[] = [];
  const used = new Set<string>();
  const failed = new Set(checked.filter((d) => d.severity === 'error').map((d) => d.file));
  for (const { file, text } of files) {
    if (failed.has(file) || isPlaybookTest(file) || isPolicyFile(file)) continue;
    const { ir } = compilePlaybook(file, text);
    if (!ir) continue;
    const exploration = explore(ir, { maxMillis: CHECK_EXPLORE_SECONDS * 1000 });
    if (!exploration.complete)
      io.stderr(
        `kairoku-playbook: note: exploring ${file} stopped after ${exploration.states} states ` +
          `(${budgetRanOut(exploration, CHECK_EXPLORE_SECONDS)}); PB310 is not reported for it ` +
          '(kairoku-playbook explore explores one playbook further)\n',
      );
    bounds.push(`${file}: bounds: ${sayBounds(exploration.bounds)}\n`);
    const budget = maxAgentTurns === undefined ? {} : { maxAgentTurns };
    const suppressed = applyExploreSuppressions(
      text,
      exploreDiagnostics(exploration, { file, text }, budget),
    );
    found.push(...suppressed.diagnostics);
    for (const range of suppressed.used) used.add(`${file}\u0000${range.start}\u0000${range.end}`);
  }
  return {
    found,
    bounds,
    keep: (diagnostics: readonly Diagnostic[]) =>
      diagnostics.filter(
        (d) => d.code !== 'PB903' || !used.has(`${d.file}\u0000${d.range.start}\u0000${d.range.end}`),
      ),
  };
}

/** SARIF's `%SRCROOT%`: code scanning reads paths relative to the top of the repository. */
function sourceRoot(option: string | undefined, cwd: string): string {
  if (option === undefined) return repositoryRoot(cwd) ?? cwd;
  const root = resolve(cwd, option);
  let isDirectory = false;
  try {
    isDirectory = statSync(root).isDirectory();
  } catch {
    // said below
  }
  if (!isDirectory) throw new UsageError(`--root: no such folder: ${option}`);
  return root;
}
