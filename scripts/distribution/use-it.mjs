// The README's "Use it in your repository", run as a person with Node and git follows it: every command
// of its sh blocks (between the `use-it-in-your-repository` markers), as written, in order, in an empty
// git repository. Run by scripts/test-distribution.mjs (its `use` section).
//
// What stands in for the person's machine: a fresh HOME, so `~/kairoku-playbook` is a folder of the test;
// its .gitconfig (a name for commits, and `url.<this repository>.insteadOf` the GitHub address, so
// `git clone https://github.com/kairoku/kairoku-playbook.git` and pre-commit's own clone fetch this
// repository's HEAD: commit before running this); npm's cache of the real HOME, preferred offline (the
// clone's `npm ci` and the hook's build may still reach the npm registry for what is not cached).
//
// A command is a line, or a line with `<<EOF` through its `EOF`. It must exit 0, or the code its
// comment gives (`# exit 1`). What the prose around the commands says is done too: after `init`, the test
// makes the typo the README names (`needs: [plna]`); `serve` is started, its panel page asked for with
// its login URL, then stopped with Ctrl-C's signal. After the commands that make something, the test
// looks at it: the tarball, init's "Next:" line, check's output against the README's text block, the
// refused and the accepted commit, the workflow (actionlint, then the action's step run on it), the
// single executable.
/* global fetch */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const BEGIN = '<!-- use-it-in-your-repository: begin';
const END = '<!-- use-it-in-your-repository: end -->';
const GITHUB = 'https://github.com/kairoku/kairoku-playbook';

/** The sh blocks of the section, each with its commands, and the text block after it, if any. */
export function useItBlocks(readme) {
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${BEGIN} … ${END}`);
  const fences = [...readme.slice(start, end).matchAll(/^```(\w+)\n([\s\S]*?)\n```$/gm)];
  const blocks = [];
  for (const [, lang, content] of fences) {
    if (lang === 'sh') blocks.push({ commands: commandsOf(content), output: undefined });
    else if (lang === 'text' && blocks.length) blocks[blocks.length - 1].output = `${content}\n`;
    else throw new Error(`a \`${lang}\` block in "Use it in your repository": only sh, and text after one`);
  }
  return blocks;
}

function commandsOf(script) {
  const commands = [];
  const lines = script.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === '') continue;
    const heredoc = /<<'?(\w+)'?/.exec(line);
    if (!heredoc) {
      commands.push({ text: line, exit: Number(/#\s*exit (\d+)/.exec(line)?.[1] ?? 0) });
      continue;
    }
    const close = lines.indexOf(heredoc[1], i + 1);
    if (close < 0) throw new Error(`no ${heredoc[1]} closes the here-document of: ${line}`);
    commands.push({ text: lines.slice(i, close + 1).join('\n'), exit: 0 });
    i = close;
  }
  return commands;
}

/** A person's machine: HOME, git's configuration, npm's cache. */
function machine(repo, temp) {
  const home = join(temp, 'use-home');
  mkdirSync(home, { recursive: true });
  const cache = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(
    join(home, '.gitconfig'),
    '[user]\n\tname = A User\n\temail = user@example.com\n[init]\n\tdefaultBranch = main\n' +
      `[url "${repo}"]\n\tinsteadOf = ${GITHUB}.git\n\tinsteadOf = ${GITHUB}\n`,
  );
  const env = { ...process.env, HOME: home, npm_config_cache: cache, npm_config_prefer_offline: 'true' };
  for (const name of ['KAIROKU_PLAYBOOK_HOME', 'PRE_COMMIT_HOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME'])
    delete env[name];
  Object.assign(env, {
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  });
  return { home, env };
}

/**
 * Runs the section. `kit` is the distribution test's: test(name, body), assert, assertRun, clip,
 * section(title), and lint(text, path) → actionlint's findings as lines.
 */
export async function testUseIt({ repo, temp, kit }) {
  kit.section('README: "Use it in your repository", every command as written, in an empty git repository');
  const blocks = useItBlocks(readFileSync(join(repo, 'README.md'), 'utf8'));
  const { home, env } = machine(repo, temp);
  const user = join(temp, 'use-repository');
  mkdirSync(user);
  kit.assertRun(spawnSync('git', ['init', '-q'], { cwd: user, env, encoding: 'utf8' }), 0, 'git init');
  const version = JSON.parse(readFileSync(join(repo, 'cli', 'package.json'), 'utf8')).version;
  const ctx = { kit, temp, env, user, version, clone: join(home, 'kairoku-playbook'), typo: false };

  let failedBefore = false;
  for (const block of blocks)
    for (const [index, command] of block.commands.entries()) {
      const last = index === block.commands.length - 1;
      const name =
        command.text.split('\n')[0].replace(/\s+#.*$/, '') + (command.text.includes('\n') ? ' …' : '');
      await kit.test(name, async () => {
        kit.assert(!failedBefore, 'not run: a command before it failed');
        try {
          await runCommand(ctx, command, last ? block.output : undefined);
        } catch (error) {
          failedBefore = true;
          throw error;
        }
      });
    }
}

async function runCommand(ctx, command, output) {
  if (/ check\b/.test(command.text) && command.exit === 1 && !ctx.typo) makeTypo(ctx);
  if (/ (serve|panel)(\s|$)/.test(command.text)) return serve(ctx, command.text);
  const result = spawnSync('sh', ['-c', command.text], {
    cwd: ctx.user,
    env: ctx.env,
    encoding: 'utf8',
    timeout: 600_000,
    maxBuffer: 1 << 28,
  });
  ctx.kit.assertRun(result, command.exit, command.text);
  after(ctx, command, result, output);
}

/** The mistake the README's prose asks for. */
function makeTypo(ctx) {
  const playbook = join(ctx.user, 'playbooks', 'change.yml');
  const text = readFileSync(playbook, 'utf8');
  ctx.kit.assert(text.includes('needs: [plan]'), 'init wrote no `needs: [plan]` to mistype');
  writeFileSync(playbook, text.replace('needs: [plan]', 'needs: [plna]'));
  ctx.typo = true;
}

/** What the command made, looked at. */
function after(ctx, command, result, output) {
  const { assert, clip } = ctx.kit;
  const { user, clone, version } = ctx;
  const git = (...args) => spawnSync('git', args, { cwd: user, env: ctx.env, encoding: 'utf8' });
  const text = command.text;
  if (/ npm pack/.test(text))
    assert(
      existsSync(join(clone, 'cli', `kairoku-playbook-${version}.tgz`)),
      `no cli/kairoku-playbook-${version}.tgz`,
    );
  if (/npm i -D /.test(text)) {
    const manifest = JSON.parse(readFileSync(join(user, 'package.json'), 'utf8'));
    const spec = manifest.devDependencies?.['kairoku-playbook'];
    assert(spec === `file:kairoku-playbook-${version}.tgz`, `package.json names ${spec}`);
  }
  if (/ init\b/.test(text))
    assert(
      /^Next: npx kairoku-playbook check && npx kairoku-playbook test/m.test(result.stdout),
      result.stdout,
    );
  if (output !== undefined)
    assert(result.stdout === output, `check printed:\n${result.stdout}\nthe README shows:\n${output}`);
  if (/git commit/.test(text) && command.exit === 1) {
    assert(
      /error PB200/.test(result.stdout + result.stderr),
      `no PB200 from the hook:\n${clip(result.stdout)}`,
    );
    assert(git('rev-parse', '--verify', '-q', 'HEAD').status !== 0, 'the commit was made');
  }
  if (/git commit/.test(text) && command.exit === 0) {
    assert(git('rev-parse', '--verify', '-q', 'HEAD').status === 0, 'no commit');
    const files = git('ls-files').stdout.split('\n');
    assert(files.includes(`kairoku-playbook-${version}.tgz`), 'the tarball is not committed');
    assert(!files.some((file) => file.startsWith('node_modules/')), 'node_modules/ is committed');
  }
  if (/\.github\/workflows\/(\S+)\.yml/.test(text))
    workflow(ctx, /\.github\/workflows\/\S+\.yml/.exec(text)[0]);
  if (/ --sea\b/.test(text))
    assert(existsSync(join(clone, 'cli', 'dist', 'sea', 'kairoku-playbook')), 'no executable');
  if (/sea\/kairoku-playbook --version/.test(text))
    assert(/^kairoku-playbook \d+\.\d+\.\d+\n/.test(result.stdout), result.stdout);
}

/** The workflow written: actionlint finds nothing; its action's step, run as a runner would, passes. */
function workflow(ctx, file) {
  const { assert, assertRun, lint } = ctx.kit;
  const { user, clone, temp, env } = ctx;
  const text = readFileSync(join(user, file), 'utf8');
  const findings = lint(text, file);
  assert(findings.length === 0, findings.join('\n'));
  const uses = /uses: kairoku\/kairoku-playbook@(\S+)/.exec(text)?.[1];
  const head = spawnSync('git', ['-C', clone, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
  assert(uses === head && /^[0-9a-f]{40}$/.test(uses), `uses: @${uses}, not the commit built (${head})`);
  const inputs = Object.fromEntries(
    [...text.matchAll(/^ {10}([\w-]+): (.+)$/gm)].map(([, key, value]) => [
      `INPUT_${key.toUpperCase().replace(/-/g, '_')}`,
      value,
    ]),
  );
  const runner = join(temp, 'use-runner');
  mkdirSync(join(runner, 'temp'), { recursive: true });
  writeFileSync(join(runner, 'output'), '');
  writeFileSync(join(runner, 'summary'), '');
  const result = spawnSync(process.execPath, [join(clone, 'action', 'run.mjs')], {
    cwd: user,
    encoding: 'utf8',
    env: {
      ...env,
      ...inputs,
      npm_config_offline: 'true',
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: user,
      GITHUB_ACTION_PATH: clone,
      GITHUB_OUTPUT: join(runner, 'output'),
      GITHUB_STEP_SUMMARY: join(runner, 'summary'),
      RUNNER_TEMP: join(runner, 'temp'),
    },
  });
  assertRun(result, 0, `the action's step with ${JSON.stringify(inputs)}`);
  assert(result.stdout.includes('::group::Install '), 'it did not install the tarball');
  assert(/^errors<<(.+)\n0\n\1$/m.test(readFileSync(join(runner, 'output'), 'utf8')), 'errors is not 0');
}

/** `serve` (or `panel`, which is serve on a port) as typed: the login URL logs in, the panel's page answers; then Ctrl-C. */
async function serve(ctx, text) {
  const { assert, clip } = ctx.kit;
  const { user, env } = ctx;
  const child = spawn('sh', ['-c', text], {
    cwd: user,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk) => (err += chunk));
  try {
    const [loginUrl, origin] = await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no URL in 60 s:\n${clip(out)}\n${clip(err)}`)),
        60_000,
      );
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const match = /(http:\/\/127\.0\.0\.1:\d+)\/\?login=\S+/.exec(out);
        if (match) resolve(match, clearTimeout(timer));
      });
      exited.then((code) => reject(new Error(`serve exited ${code}:\n${clip(out)}\n${clip(err)}`)));
    });
    const login = await fetch(loginUrl, { redirect: 'manual' });
    const cookie = login.headers.get('set-cookie')?.split(';')[0];
    assert(
      login.status >= 300 && login.status < 400 && cookie,
      `the URL answered ${login.status}, no cookie`,
    );
    const page = await fetch(`${origin}/`, { headers: { cookie } });
    const html = await page.text();
    assert(
      page.status === 200 && /text\/html/.test(page.headers.get('content-type')),
      `GET / answered ${page.status}`,
    );
    assert(/Playbooks/.test(html), `the page is not the panel:\n${clip(html)}`);
  } finally {
    process.kill(-child.pid, 'SIGINT');
    const code = await Promise.race([
      exited,
      new Promise((resolve) => setTimeout(resolve, 15_000, 'still running')),
    ]);
    if (code === 'still running') process.kill(-child.pid, 'SIGKILL');
    assert([0, 130, 'SIGINT'].includes(code), `serve, after Ctrl-C: ${code}\n${clip(err)}`);
  }
}
