// The GitHub Action's step (action.yml runs it): installs kairoku-playbook, checks the playbooks with
// GitHub annotations, writes SARIF when asked, and reports the counts as outputs and in the job summary;
// with `diff-base`, also compares the playbooks' power between that revision and the checkout
// (`kairoku-playbook diff`), in the job summary and as a Markdown file for a pull request comment.
//
// It reads only what a runner gives a step: GITHUB_WORKSPACE (the checkout: paths are relative to it),
// GITHUB_ACTION_PATH (this action's checkout), GITHUB_OUTPUT and GITHUB_STEP_SUMMARY (files to append
// to), RUNNER_TEMP, and the inputs as INPUT_* variables, which action.yml sets from `with:`.
//
// The CLI comes from one of (docs/ci.md, "How the action installs the CLI"):
// - the npm registry, when the `version` input names a version, a dist-tag or a tarball;
// - this action's checkout, built there (`npm ci` of the CLI's workspace, then cli/build.mjs) unless a
//   build is already there.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

const env = process.env;
const NAME = 'kairoku-playbook';

/** An input as action.yml passes it (INPUT_MAX_WARNINGS), or as a runner does for other actions. */
function input(name) {
  const upper = name.toUpperCase();
  return (env[`INPUT_${upper.replace(/-/g, '_')}`] ?? env[`INPUT_${upper}`] ?? '').trim();
}

function required(variable) {
  const value = env[variable];
  if (!value) fail(`${variable} is not set: this script runs as a step of a GitHub Actions job (action.yml)`);
  return value;
}

class ActionError extends Error {}

function fail(message) {
  throw new ActionError(message);
}

/** A workflow command's message, escaped as the runner reads it. */
function escapeData(text) {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A multi-line value for GITHUB_OUTPUT, with a delimiter the value cannot contain. */
function setOutput(name, value) {
  const file = env.GITHUB_OUTPUT;
  if (!file) return;
  let delimiter = `kairoku_playbook_${process.pid}`;
  while (value.includes(delimiter)) delimiter += '_';
  appendFileSync(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`);
}

function runOrFail(command, args, options) {
  const result = spawnSync(command, args, {
    stdio: 'inherit',
    shell: process.platform === 'win32',
    ...options,
  });
  if (result.status !== 0)
    fail(`${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})`);
}

function group(title, body) {
  process.stdout.write(`::group::${title}\n`);
  try {
    return body();
  } finally {
    process.stdout.write('::endgroup::\n');
  }
}

// ---------------------------------------------------------------------------------------------- install

/** The CLI's bin script. */
function installCli(workspace) {
  const spec = input('version');
  return spec ? installFromNpm(spec, workspace) : buildFromCheckout(required('GITHUB_ACTION_PATH'));
}

/** `version`: a version, range or dist-tag of the npm package, or a tarball's path (in the workspace) or URL. */
function installFromNpm(spec, workspace) {
  const tarball = /\.tgz$/.test(spec) || /^[a-z+]+:/i.test(spec);
  // No spaces or shell characters: on Windows npm runs through a shell.
  if (!tarball && !/^[\w.^~*-]+$/.test(spec))
    fail(`version: "${spec}" is not a version, range or dist-tag of ${NAME}, nor a .tgz`);
  const what = tarball ? (/^[a-z+]+:/i.test(spec) ? spec : resolve(workspace, spec)) : `${NAME}@${spec}`;
  const prefix = join(required('RUNNER_TEMP'), `${NAME}-cli`);
  rmSync(prefix, { recursive: true, force: true });
  mkdirSync(prefix, { recursive: true });
  group(`Install ${what}`, () =>
    runOrFail('npm', [
      'install',
      '--prefix',
      prefix,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--loglevel',
      'error',
      what,
    ]),
  );
  const bin = join(prefix, 'node_modules', NAME, 'bin', `${NAME}.js`);
  if (!existsSync(bin)) fail(`${what} installed no ${NAME} command (${bin})`);
  return bin;
}

/**
 * The CLI of this action's checkout: the ref in `uses: kairoku/kairoku-playbook@REF` is the version.
 * Built here, as a developer builds it, unless the checkout already holds a build.
 */
function buildFromCheckout(actionPath) {
  const bin = join(actionPath, 'cli', 'bin', `${NAME}.js`);
  if (!existsSync(bin)) fail(`GITHUB_ACTION_PATH (${actionPath}) is not a checkout of ${NAME}: no cli/bin`);
  if (!existsSync(join(actionPath, 'cli', 'dist', `${NAME}.bundle.cjs`))) {
    group(`Build ${NAME} from the action's checkout`, () => {
      // Only the CLI's workspace and what it builds from (no editor or test tooling): the playground's
      // too, whose page the CLI's bundle embeds.
      runOrFail(
        'npm',
        [
          'ci',
          '--workspace',
          'cli',
          '--workspace',
          'playground',
          '--include-workspace-root=false',
          '--no-audit',
          '--no-fund',
          '--loglevel',
          'error',
        ],
        { cwd: actionPath },
      );
      runOrFail(process.execPath, [join('cli', 'build.mjs')], { cwd: actionPath });
    });
  }
  return bin;
}

// ------------------------------------------------------------------------------------------------ check

/** `paths`: one per line, or separated by spaces on one line. */
function pathsInput() {
  const text = input('paths');
  if (!text) return [];
  return (text.includes('\n') ? text.split('\n') : text.split(/\s+/)).map((p) => p.trim()).filter(Boolean);
}

function checkArgs() {
  const args = ['check'];
  const maxWarnings = input('max-warnings');
  if (maxWarnings) {
    if (!/^\d+$/.test(maxWarnings)) fail(`max-warnings: a whole number, not "${maxWarnings}"`);
    args.push('--max-warnings', maxWarnings);
  }
  const explore = input('explore').toLowerCase();
  if (explore === 'true') args.push('--explore');
  else if (explore && explore !== 'false') fail(`explore: true or false, not "${explore}"`);
  return args;
}

function check(bin, workspace) {
  const args = checkArgs();
  const paths = pathsInput();
  const sarifInput = input('sarif-file');
  const sarifFile = sarifInput
    ? resolve(workspace, sarifInput)
    : join(required('RUNNER_TEMP'), `${NAME}-${process.pid}.sarif`);

  // The annotations: the runner reads the workflow commands on this step's standard output.
  const annotated = spawnSync(process.execPath, [bin, ...args, '--format', 'github', '--', ...paths], {
    cwd: workspace,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (annotated.status !== 0 && annotated.status !== 1)
    fail(`${NAME} check could not check (exit ${annotated.status ?? annotated.signal}); see above`);

  // The same diagnostics as SARIF: the file asked for, else a temporary one for the counts and summary.
  const sarif = spawnSync(process.execPath, [bin, ...args, '--format', 'sarif', '--', ...paths], {
    cwd: workspace,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (sarif.status !== 0 && sarif.status !== 1)
    fail(`${NAME} check --format sarif failed (exit ${sarif.status ?? sarif.signal})`);
  mkdirSync(dirname(sarifFile), { recursive: true });
  writeFileSync(sarifFile, sarif.stdout);
  const log = JSON.parse(readFileSync(sarifFile, 'utf8'));
  if (!sarifInput) rmSync(sarifFile, { force: true });
  return { exit: annotated.status, log, sarifFile: sarifInput ? sarifFile : undefined };
}

// ------------------------------------------------------------------------------------------------- diff

const FAIL_ON = ['widened', 'any', 'never'];

/**
 * `diff-base`: the playbooks of the checkout (HEAD) against their merge base with that revision, as
 * `kairoku-playbook diff` compares them. Undefined without the input.
 */
function diff(bin, workspace) {
  const base = input('diff-base');
  if (!base) return undefined;
  const failOn = (input('diff-fail-on') || 'widened').toLowerCase();
  if (!FAIL_ON.includes(failOn)) fail(`diff-fail-on: one of ${FAIL_ON.join(', ')}, not "${failOn}"`);
  // A revision, passed as one argument (no shell); a leading dash would be read as an option.
  if (base.startsWith('-')) fail(`diff-base: a revision (a commit, branch or tag), not "${base}"`);
  const mergeBase = spawnSync('git', ['merge-base', base, 'HEAD'], { cwd: workspace, encoding: 'utf8' });
  if (mergeBase.status !== 0)
    fail(
      `diff-base: no merge base of ${base} and HEAD in the checkout (${(mergeBase.stderr || `exit ${mergeBase.status}`).trim()}): ` +
        'give actions/checkout fetch-depth: 0 so both commits and their history are there',
    );
  const from = mergeBase.stdout.trim();
  const paths = pathsInput();
  const run = (format, extra = []) => {
    const result = spawnSync(
      process.execPath,
      [bin, 'diff', from, 'HEAD', '--format', format, ...extra, '--', ...paths],
      {
        cwd: workspace,
        stdio: ['ignore', 'pipe', 'inherit'],
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      },
    );
    if (result.status !== 0 && result.status !== 1)
      fail(
        `${NAME} diff could not compare ${from} and HEAD (exit ${result.status ?? result.signal}); see above`,
      );
    return result;
  };
  const counted = JSON.parse(run('json').stdout);
  const markdown = run('markdown', failOn === 'never' ? [] : ['--fail-on', failOn]);
  const file = join(required('RUNNER_TEMP'), `${NAME}-diff.md`);
  writeFileSync(file, markdown.stdout);
  // An error in either version exits 1 too: `check` has annotated it, and it fails the step only where
  // the diff was asked to fail on something.
  const failed = failOn !== 'never' && markdown.status === 1;
  return {
    file,
    markdown: markdown.stdout,
    widened: counted.summary.widened,
    failed,
  };
}

// ---------------------------------------------------------------------------------------------- report

function counts(log) {
  const run = log.runs[0];
  const count = (level) => run.results.filter((r) => r.level === level).length;
  return { errors: count('error'), warnings: count('warning'), notes: count('note') };
}

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** Markdown table text: one line, no pipes or HTML. */
function cell(text) {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|').replace(/</g, '&lt;');
}

const SUMMARY_ROWS = 100;

function summary(log, { errors, warnings, notes }) {
  const run = log.runs[0];
  const driver = run.tool.driver;
  const lines = [
    `### ${NAME} check`,
    '',
    `${errors ? `**${plural(errors, 'error', 'errors')}**` : 'no errors'}, ${plural(warnings, 'warning', 'warnings')}, ` +
      `${plural(notes, 'note', 'notes')} (${NAME} ${driver.version})`,
  ];
  if (run.results.length) {
    lines.push('', '| | where | code | message |', '| --- | --- | --- | --- |');
    for (const result of run.results.slice(0, SUMMARY_ROWS)) {
      const location = result.locations[0]?.physicalLocation;
      const uri = location?.artifactLocation.uri ?? '';
      const file = decodeURIComponent(uri.startsWith('file:') ? new URL(uri).pathname : uri);
      const where = location?.region
        ? `${file}:${location.region.startLine}:${location.region.startColumn}`
        : file;
      const rule = result.ruleIndex === undefined ? undefined : driver.rules[result.ruleIndex];
      const code = rule?.helpUri ? `[${result.ruleId}](${rule.helpUri})` : result.ruleId;
      lines.push(`| ${result.level} | \`${cell(where)}\` | ${code} | ${cell(result.message.text)} |`);
    }
    if (run.results.length > SUMMARY_ROWS)
      lines.push('', `… and ${run.results.length - SUMMARY_ROWS} more (the annotations list them all).`);
  }
  return `${lines.join('\n')}\n`;
}

// ------------------------------------------------------------------------------------------------- main

function main() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 20)
    fail(
      `${NAME} needs Node 20 or later, and this runner's node is ${process.version}: add actions/setup-node`,
    );
  const workspace = required('GITHUB_WORKSPACE');
  if (!isAbsolute(workspace)) fail(`GITHUB_WORKSPACE is not an absolute path: ${workspace}`);

  const bin = installCli(workspace);
  const result = check(bin, workspace);
  const found = counts(result.log);
  setOutput('errors', String(found.errors));
  setOutput('warnings', String(found.warnings));
  setOutput('notes', String(found.notes));
  if (result.sarifFile) setOutput('sarif-file', result.sarifFile);
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, summary(result.log, found));
  const compared = diff(bin, workspace);
  if (!compared) return result.exit;
  setOutput('diff-file', compared.file);
  setOutput('widened', String(compared.widened));
  if (env.GITHUB_STEP_SUMMARY && compared.markdown.trim())
    appendFileSync(env.GITHUB_STEP_SUMMARY, `\n${compared.markdown.trimEnd()}\n`);
  return result.exit === 1 || compared.failed ? 1 : result.exit;
}

try {
  process.exitCode = main();
} catch (error) {
  if (!(error instanceof ActionError)) throw error;
  process.stdout.write(`::error title=${NAME}::${escapeData(error.message)}\n`);
  process.exitCode = 2;
}
