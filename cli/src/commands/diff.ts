import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import {
  SourceText,
  analyzeFile,
  analyzePolicyFile,
  compileAnalysis,
  decodeSource,
  diffPlaybooks,
  EXCLUDE_FILE,
  POLICY_FILE,
  excludeTest,
  findPolicyFile,
  isPlaybookFile,
  refusalDiagnostic,
  isPlaybookPath,
  toJsonDiagnostic,
  ungatedFromDiagnostics,
} from '@kairoku-playbook/compiler';
import type {
  ApprovalPolicy,
  Diagnostic,
  ExcludeTest,
  Ir,
  JsonDiagnostic,
  PolicyChange,
  UngatedStep,
} from '@kairoku-playbook/compiler';
import { FILE_LIMITS, diskFileSystem, formatBytes } from '@kairoku-playbook/compiler/disk';
import { explore } from '@kairoku-playbook/runtime';
import { CHECK_EXPLORE_SECONDS } from './explore.js';
import { flag, oneOf, parseArgs } from '../args.js';
import { displayPath } from '../discover.js';
import { formatText } from '../format/index.js';
import { UsageError, readPlaybookFile } from '../io.js';
import type { CommandIo } from '../io.js';

export const DIFF_HELP = `Usage: kairoku-playbook diff BASE HEAD [PATH...] [--format text|json|markdown] [--fail-on widened|any]

Compares two versions of playbooks by what they let agents do, on their IR, not their text: tool
grants per role and step, check commands, gates removed, made optional or bypassed, gate choices and
outcomes that now lead on, loop maxima, retries, timeouts, the most agent turns and gate decisions
a run can take (bounded as check does when it explores), secret inputs added or exposed, steps added or
removed, roles changing base. Each change is widened, narrowed or changed. Steps, roles and
inputs are matched by what they are, not by name: renaming and reordering report nothing.

BASE and HEAD are two playbook files, or two git revisions: then each PATH (a playbook or a folder)
is read from both with git show, and without PATH every playbook discovered in either revision is
compared. A playbook added or removed between the revisions is a change too.

Options:
  --format text|json|markdown   output format (default text; markdown for a pull request comment)
  --fail-on widened|any         exit 1 when something widened (or changed at all)
  -h, --help                    this help

Exit codes: 0 the diff was printed (and nothing matched --fail-on), 1 something matched --fail-on,
or a version of a playbook has errors (printed on standard error), 2 usage, git or I/O errors.`;

/** The JSON output's version: bumped only when a field changes meaning or goes away. */
export const DIFF_JSON_VERSION = 1;

export interface PlaybookDiff {
  /** the playbook's path in HEAD (in BASE when it was removed) */
  path: string;
  /** the path in BASE, when it differs (two files) */
  basePath?: string;
  status: 'added' | 'removed' | 'changed' | 'unchanged';
  changes: PolicyChange[];
}

/** A version of a playbook that does not check, so its playbook was not compared. */
export interface UncheckedPlaybook {
  path: string;
  /** which version: BASE's or HEAD's */
  side: 'base' | 'head';
  /** its errors, in the JSON shape of `check --format json` */
  errors: JsonDiagnostic[];
}

export interface DiffReport {
  base: string;
  head: string;
  playbooks: PlaybookDiff[];
  /** only when some version does not check */
  unchecked?: UncheckedPlaybook[];
}

/** One version of a playbook: its text, or absent from that revision. */
interface Version {
  shown: string;
  /** the git revision it was read from (none for a file) */
  revision?: string;
  text: string | undefined;
  /** a file that cannot be read as a playbook: its refusal */
  refused?: Diagnostic;
  /** the approval policy (PB700) it is judged under: its version's `.kairoku/policy.yml`, else the defaults */
  policy?: ApprovalPolicy;
}

export function runDiff(argv: readonly string[], io: CommandIo): number {
  const args = parseArgs(argv, { format: 'string', 'fail-on': 'string', help: 'boolean' }, { h: 'help' });
  if (args.flags.has('help')) {
    io.stdout(`${DIFF_HELP}\n`);
    return 0;
  }
  const format = oneOf(flag(args, 'format'), ['text', 'json', 'markdown'] as const, 'format', 'text');
  const failOnFlag = flag(args, 'fail-on');
  const failOn =
    failOnFlag === undefined
      ? undefined
      : oneOf(failOnFlag, ['widened', 'any'] as const, 'fail-on', 'widened');
  const [base, head, ...paths] = args.positionals;
  if (base === undefined || head === undefined)
    throw new UsageError(
      'diff needs BASE and HEAD: two files or two git revisions (see kairoku-playbook diff --help)',
    );

  const pairs = bothFiles(io.cwd, base, head, paths)
    ? [filePair(io, base, head)]
    : gitPairs(io, base, head, paths);
  const report: DiffReport = { base, head, playbooks: [] };
  const unchecked: UncheckedPlaybook[] = [];
  for (const [before, after] of pairs) {
    const irs = [before, after].map((version, side) => {
      if (version.text === undefined && !version.refused) return undefined;
      const result = compiled(version);
      if ('diagnostics' in result) {
        unchecked.push(notCompared(io, version, side === 0 ? 'base' : 'head', result.diagnostics));
        return null;
      }
      return result;
    });
    if (irs.includes(null)) continue;
    const [b, h] = irs.map((version) => version?.ir);
    // approval dominance (PB700) of each version: the steps it reports, from the same compile
    const ungated = new Map(
      irs.flatMap((version) => (version ? [[version.ir, version.ungated] as const] : [])),
    );
    const changes = diffPlaybooks(b, h, {
      ungatedSteps: (ir) => ungated.get(ir) ?? [],
      // the worst case of a run, as check --explore gives it (within its budget; else the static bound)
      bounds: (ir) => explore(ir, { maxMillis: CHECK_EXPLORE_SECONDS * 1000 }).bounds,
    });
    report.playbooks.push({
      path: h ? after.shown : before.shown,
      ...(b && h && before.shown !== after.shown ? { basePath: before.shown } : {}),
      status: !b ? 'added' : !h ? 'removed' : changes.length ? 'changed' : 'unchanged',
      changes,
    });
  }
  if (unchecked.length) report.unchecked = unchecked;
  io.stdout(
    format === 'json' ? diffJson(report) : format === 'markdown' ? diffMarkdown(report) : diffText(report),
  );
  const all = report.playbooks.flatMap((p) => p.changes);
  const failed =
    (failOn === 'widened' && all.some((c) => c.direction === 'widened')) ||
    (failOn === 'any' && all.length > 0);
  return unchecked.length || failed ? 1 : 0;
}

/** The IR of one version, or its diagnostics when it has errors. */
function compiled(version: Version): { ir: Ir; ungated: UngatedStep[] } | { diagnostics: Diagnostic[] } {
  const text = version.text ?? '';
  const result = version.refused
    ? { diagnostics: [version.refused], ir: undefined }
    : compileAnalysis(analyzeFile(version.shown, text, version.policy ? { policy: version.policy } : {}));
  if (result.ir)
    return { ir: result.ir, ungated: ungatedFromDiagnostics(text, result.ir, result.diagnostics) };
  return { diagnostics: result.diagnostics };
}

/**
 * A version with errors: says so on standard error, first, then its diagnostics (the summary that follows
 * on standard output must not leave the reader wondering where the playbook went).
 */
function notCompared(
  io: CommandIo,
  version: Version,
  side: 'base' | 'head',
  diagnostics: Diagnostic[],
): UncheckedPlaybook {
  const source = new SourceText(version.text ?? '');
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const which = version.revision === undefined ? '' : ` in ${version.revision}`;
  io.stderr(
    `${version.shown}${which} does not check (${errors.length} error${errors.length === 1 ? '' : 's'}), so it is not compared:\n`,
  );
  io.stderr(formatText(diagnostics, () => source, { color: io.colorStderr, fileCount: 1 }));
  return { path: version.shown, side, errors: errors.map((d) => toJsonDiagnostic(d, () => source)) };
}

function bothFiles(cwd: string, base: string, head: string, paths: readonly string[]): boolean {
  if (paths.length) return false;
  const isFile = (p: string) => {
    const path = resolve(cwd, p);
    return existsSync(path) && statSync(path).isFile();
  };
  return isFile(base) && isFile(head);
}

function filePair(io: CommandIo, base: string, head: string): [Version, Version] {
  // two files on disk, each judged by the policy found from its own folder (SPEC §4)
  return [base, head].map((file) => {
    const path = resolve(io.cwd, file);
    const shown = displayPath(path, io.cwd);
    const read = readPlaybookFile(path, shown);
    const version: Version =
      'text' in read ? { shown, text: read.text } : { shown, text: '', refused: read.diagnostic };
    const policy = policyBeside(path, io.cwd);
    if (policy) version.policy = policy;
    return version;
  }) as [Version, Version];
}

/** The policy found from a file's folder upward, when there is one that reads. */
function policyBeside(path: string, cwd: string): ApprovalPolicy | undefined {
  const policyPath = findPolicyFile(diskFileSystem, dirname(path));
  if (!policyPath) return undefined;
  const read = readPlaybookFile(policyPath, displayPath(policyPath, cwd));
  return 'text' in read ? analyzePolicyFile(POLICY_FILE, read.text).policy : undefined;
}

/** The policy a revision holds (what it says well; a mistaken entry is left out), or undefined. */
function policyAt(top: string, revision: string): ApprovalPolicy | undefined {
  if (spawnGit(top, ['cat-file', '-e', `${revision}:${POLICY_FILE}`]).status !== 0) return undefined;
  const version = blob(top, revision, POLICY_FILE, POLICY_FILE);
  return version.refused || version.text === undefined
    ? undefined
    : analyzePolicyFile(POLICY_FILE, version.text).policy;
}

/** The revision's `.kairoku/exclude` (what is not a playbook there), at the top of the repository. */
function excludesAt(top: string, revision: string): ExcludeTest | undefined {
  if (spawnGit(top, ['cat-file', '-e', `${revision}:${EXCLUDE_FILE}`]).status !== 0) return undefined;
  const version = blob(top, revision, EXCLUDE_FILE, EXCLUDE_FILE);
  return version.refused || version.text === undefined ? undefined : excludeTest(top, version.text);
}

// ------------------------------------------------------------------------------------ git, at the edge

/** Each playbook of PATHs (or every discovered one) in BASE and in HEAD, read with `git show`. */
function gitPairs(io: CommandIo, base: string, head: string, paths: readonly string[]): [Version, Version][] {
  const top = git(io.cwd, ['rev-parse', '--show-toplevel']).trim();
  for (const revision of [base, head]) {
    if (revision.startsWith('-')) throw new UsageError(`"${revision}" is not a revision`);
    const found = spawnGit(io.cwd, ['rev-parse', '--verify', '--quiet', `${revision}^{commit}`]);
    if (found.status !== 0)
      throw new UsageError(
        `"${revision}" is neither a playbook file nor a git revision of the repository at ${top}`,
      );
  }
  // pathspecs relative to the top of the repository
  const specs = paths.map((p) => {
    const inRepo = relative(top, resolve(io.cwd, p)).split(sep).join('/');
    if (inRepo.startsWith('../') || inRepo === '..')
      throw new UsageError(`${p} is outside the repository at ${top}`);
    return inRepo;
  });
  // from the top, where --full-tree reads pathspecs too
  const listed = [base, head].map((revision) => new Set(listFiles(top, revision, specs)));
  const named = new Set(specs);
  // What either revision's `.kairoku/exclude` names is not a playbook there (a file named is diffed anyway).
  const excludes = [base, head].flatMap((revision) => excludesAt(top, revision) ?? []);
  const excluded = (path: string) => excludes.some((test) => test(`${top}/${path}`, false));
  const candidates = [...new Set([...listed[0]!, ...listed[1]!])]
    .filter((path) => named.has(path) || (isPlaybookPath(path) && !excluded(path)))
    .filter((path) => !path.split('/').some((part) => part === 'node_modules' || part === '.git'))
    .sort();
  for (const spec of specs)
    if (!candidates.some((path) => path === spec || path.startsWith(`${spec === '' ? '' : `${spec}/`}`)))
      throw new UsageError(`${spec || '.'} holds no playbook in ${base} or ${head}`);
  const policies = [base, head].map((revision) => policyAt(top, revision));
  const pairs: [Version, Version][] = [];
  for (const path of candidates) {
    const shown = displayPath(resolve(top, path), io.cwd);
    const versions = [base, head].map((revision, side) => {
      const version: Version = listed[side]!.has(path)
        ? blob(top, revision, path, shown)
        : { shown, text: undefined };
      version.revision = revision;
      if (policies[side]) version.policy = policies[side];
      return version;
    }) as [Version, Version];
    // a file only the bare playbooks/ folder rule finds, holding a list, is Ansible's (SPEC §2)
    const ours = versions.some(
      (v) => v.text === undefined || v.refused || named.has(path) || isPlaybookFile(path, v.text),
    );
    if (ours) pairs.push(versions);
  }
  return pairs;
}

function listFiles(cwd: string, revision: string, specs: readonly string[]): string[] {
  const out = git(cwd, ['ls-tree', '-r', '-z', '--name-only', '--full-tree', revision, '--', ...specs]);
  return out.split('\0').filter((name) => /\.ya?ml$/i.test(name));
}

function blob(cwd: string, revision: string, path: string, shown: string): Version {
  const size = Number(git(cwd, ['cat-file', '-s', `${revision}:${path}`]).trim());
  if (size > FILE_LIMITS.playbook) {
    const message = `it is larger than ${formatBytes(FILE_LIMITS.playbook)}, the limit for a playbook`;
    return { shown, text: '', refused: refusalDiagnostic(shown, { problem: 'too-large', message }) };
  }
  const result = spawnGit(cwd, ['cat-file', 'blob', `${revision}:${path}`], 'buffer');
  if (result.status !== 0)
    throw new UsageError(`git cannot read ${revision}:${path}: ${String(result.stderr).trim()}`);
  const decoded = decodeSource(shown, result.stdout as Buffer);
  return decoded.text === undefined
    ? { shown, text: '', refused: decoded.diagnostic }
    : { shown, text: decoded.text };
}

function spawnGit(cwd: string, args: string[], encoding: 'utf8' | 'buffer' = 'utf8') {
  const env: NodeJS.ProcessEnv = { ...process.env, LANG: 'C', LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0' };
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_PREFIX']) delete env[name];
  const result = spawnSync('git', args, {
    cwd,
    env,
    encoding: encoding === 'utf8' ? 'utf8' : null,
    maxBuffer: FILE_LIMITS.playbook * 2 + 1024 * 1024,
    windowsHide: true,
  });
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT'
        ? 'git is not installed (or not on the PATH)'
        : `git ${args[0]} failed: ${result.error.message}`,
    );
  }
  return result;
}

function git(cwd: string, args: string[]): string {
  const result = spawnGit(cwd, args);
  if (result.status === 0) return String(result.stdout);
  const stderr = String(result.stderr).trim();
  if (/not a git repository/i.test(stderr))
    throw new UsageError(`BASE and HEAD are not both files, and ${cwd} is not in a git repository`);
  throw new UsageError(`git ${args.join(' ')} failed: ${stderr.split('\n')[0] ?? ''}`);
}

// ------------------------------------------------------------------------------------ output

function counts(report: DiffReport): Record<'widened' | 'narrowed' | 'changed', number> {
  const all = report.playbooks.flatMap((p) => p.changes);
  return {
    widened: all.filter((c) => c.direction === 'widened').length,
    narrowed: all.filter((c) => c.direction === 'narrowed').length,
    changed: all.filter((c) => c.direction === 'changed').length,
  };
}

function summaryLine(report: DiffReport): string {
  const compared = comparedLine(report);
  const paths = [...new Set((report.unchecked ?? []).map((u) => u.path))];
  if (!paths.length) return compared;
  const unchecked = `not compared: ${paths.length === 1 ? `${paths[0]!} does not check` : `${paths.length} playbooks that do not check`}`;
  return report.playbooks.length ? `${compared}; ${unchecked}` : unchecked;
}

function comparedLine(report: DiffReport): string {
  const total = report.playbooks.length;
  const touched = report.playbooks.filter((p) => p.changes.length).length;
  const n = counts(report);
  if (total === 0) return `no playbook in ${report.base} or ${report.head}`;
  if (touched === 0)
    return `no change to what ${total === 1 ? 'the playbook' : `the ${total} playbooks`} may do`;
  return `${n.widened} widened, ${n.narrowed} narrowed, ${n.changed} changed in ${touched} of ${total} playbook${total === 1 ? '' : 's'}`;
}

function pathLine(p: PlaybookDiff): string {
  const status = p.status === 'added' || p.status === 'removed' ? ` (${p.status})` : '';
  return `${p.basePath ? `${p.basePath} → ` : ''}${p.path}${status}`;
}

/** Text: per playbook with changes, one line a change; then a summary line. */
export function diffText(report: DiffReport): string {
  const lines: string[] = [];
  for (const p of report.playbooks) {
    if (!p.changes.length) continue;
    lines.push(pathLine(p));
    for (const c of p.changes) lines.push(`  ${c.direction.padEnd(8)}  ${c.message}${stepsNote(c)}`);
    lines.push('');
  }
  lines.push(summaryLine(report));
  return `${lines.join('\n')}\n`;
}

function stepsNote(c: PolicyChange): string {
  if (!c.steps?.length || c.kind === 'gate-bypassed' || c.kind === 'gate-guards' || c.kind === 'ungated-path')
    return '';
  return ` (${c.kind === 'tool' || c.kind === 'role-base' ? 'used by' : 'before'} ${c.steps.join(', ')})`;
}

/**
 * JSON: `{version, base, head, playbooks: [{path, basePath?, status, changes}], unchecked?: [{path, side,
 * errors}], summary}` (docs/cli.md).
 */
export function diffJson(report: DiffReport): string {
  return `${JSON.stringify({ version: DIFF_JSON_VERSION, ...report, summary: counts(report) }, null, 2)}\n`;
}

/** Markdown for a pull request comment: a heading, the summary, a table per playbook with changes. */
export function diffMarkdown(report: DiffReport): string {
  const cell = (text: string) =>
    text
      .replace(/\\/g, '\\\\')
      .replace(/\|/g, '\\|')
      .replace(/[\r\n]+/g, ' ');
  const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;
  // a commit's full name is noise in a comment's heading; its first 12 digits name it as well
  const revision = (text: string) => code(/^[0-9a-f]{40}$/.test(text) ? text.slice(0, 12) : text);
  const lines = [`### Playbook policy diff: ${revision(report.base)} → ${revision(report.head)}`, ''];
  const n = counts(report);
  lines.push(
    n.widened
      ? `**${summaryLine(report)}**`
      : `${summaryLine(report).replace(/^./, (c) => c.toUpperCase())}.`,
  );
  const mark = { widened: '🔺 widened', narrowed: '🔻 narrowed', changed: '🔸 changed' } as const;
  for (const p of report.playbooks) {
    if (!p.changes.length) continue;
    lines.push('', `#### ${code(pathLine(p))}`, '', '| | change |', '| --- | --- |');
    for (const c of p.changes) lines.push(`| ${mark[c.direction]} | ${cell(c.message + stepsNote(c))} |`);
  }
  return `${lines.join('\n')}\n`;
}
