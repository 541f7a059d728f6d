#!/usr/bin/env node
// Checks the `paseo` backend against a real, running Paseo daemon, by hand (docs/paseo.md,
// "Checking against the real daemon"). Not part of CI: CI has no daemon. Each check runs the built
// CLI (`npm run build` first) on playbooks/pr.yml in a fresh git workspace, with step agents played
// by scripted-acp-agent.mjs (declared to the daemon as the custom provider --provider), and reads
// the run file, git and the daemon to judge it. Prints one line per check and exits 1 if one failed.
//
//   node scripts/paseo-real/check.mjs --paseo-host 127.0.0.1:6767 --password-file FILE \
//     --provider scripted --script FILE [--only branch,second,...,serve-manager-archived,...] [--keep]
//
// --script is the rules file the provider's command line names (this script rewrites it for each
// check); the agents' log is agents.log beside it.
import { spawn, execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  copyFileSync,
  mkdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { paseo } from '@kairoku-playbook/runtime/backends';
import { serveChecks } from './check-serve.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(repo, 'cli/dist/kairoku-playbook.js');
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : fallback;
};
const host = option('--paseo-host', process.env.PASEO_HOST ?? '127.0.0.1:6767');
const passwordFile = option('--password-file');
const provider = option('--provider', 'scripted');
const scriptPath = resolve(option('--script', 'script.json'));
const logPath = join(dirname(scriptPath), 'agents.log');
const only = option('--only')?.split(',');
const keep = argv.includes('--keep');
const password = passwordFile
  ? readFileSync(passwordFile, 'utf8').split('\n')[0]
  : process.env.PASEO_PASSWORD;

const root = mkdtempSync(join(tmpdir(), 'kp-paseo-real-'));
const home = join(root, 'home');
const results = [];
const client = await paseo.PaseoClient.connect({ host, password, requestTimeoutMs: 60_000 });

/** A git workspace with playbooks/pr.yml and lint/test scripts that pass. */
function workspace(name) {
  const dir = join(root, name);
  mkdirSync(join(dir, 'playbooks'), { recursive: true });
  copyFileSync(join(repo, 'playbooks/pr.yml'), join(dir, 'playbooks/pr.yml'));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name, private: true, scripts: { lint: 'node -e 0', test: 'node -e 0' } }, null, 2),
  );
  const git = (...args) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.email=check@example.invalid', '-c', 'user.name=check', 'add', '.');
  git('-c', 'user.email=check@example.invalid', '-c', 'user.name=check', 'commit', '-qm', 'start');
  return dir;
}

function script(rules, extra = {}) {
  writeFileSync(scriptPath, JSON.stringify({ ...extra, rules }, null, 2));
}

const report = (outcome, outputs = {}, summary = 'scripted') => ({
  tool: 'report_step_result',
  args: { outcome, summary, outputs },
});

/** Rules for a whole pr.yml run where every agent reports at once. */
const happyRules = (tag) => [
  {
    match: 'Plan this change',
    turns: [{ calls: [report('done', { plan: `plan ${tag}`, files: ['a.txt'] })] }],
  },
  {
    match: 'Implement this plan',
    turns: [{ write: { 'a.txt': `change ${tag}\n` }, calls: [report('done', { branch: `feature-${tag}` })] }],
  },
  { match: 'Review the change', turns: [{ calls: [report('approved', { verdict: 'approve' })] }] },
  { match: 'Summarise the run', turns: [{ calls: [report('done')] }] },
];

function agentLog() {
  if (!existsSync(logPath)) return [];
  return readFileSync(logPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

function runCli(args, { cwd, env = {}, onStart } = {}) {
  const started = Date.now();
  const child = spawn(process.execPath, [cli, ...args], {
    cwd,
    env: {
      ...process.env,
      KAIROKU_PLAYBOOK_HOME: home,
      PASEO_HOST: host,
      ...(password && !passwordFile ? { PASEO_PASSWORD: password } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  onStart?.(child);
  return new Promise((done) =>
    child.on('exit', (code, signal) => done({ code, signal, stdout, stderr, ms: Date.now() - started })),
  );
}

const paseoFlags = () => [
  '--backend',
  'paseo',
  '--paseo-provider',
  provider,
  '--paseo-provider',
  `claude=${provider}`,
  ...(passwordFile ? ['--paseo-password-file', passwordFile] : []),
];

function runFiles() {
  const dir = join(home, 'runs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')));
}

async function agentsOf(runId) {
  const answer = await client.request('fetch_agents_request', {
    filter: { labels: { 'kairoku.run': runId }, includeArchived: true },
  });
  const rows = Array.isArray(answer.entries) ? answer.entries.map((e) => e.agent) : (answer.agents ?? []);
  return rows;
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

async function waitFor(what, test, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await test();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

function branchesOf(dir) {
  return execFileSync('git', ['branch', '--format=%(refname:short)'], { cwd: dir, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
}

function worktreeBranch(dir, branch) {
  const list = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: dir, encoding: 'utf8' });
  return list.includes(`branch refs/heads/${branch}`);
}

function judge(name, ok, detail) {
  results.push({ name, ok, detail });
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${detail}\n`);
}

async function check(name, body) {
  if (only && !only.includes(name)) return;
  try {
    await body();
  } catch (error) {
    judge(name, false, `threw: ${error.stack ?? error}`);
  }
}

/** The run's branch, kept through the first agent and to the end (issue 12, item 1). */
function judgeBranch(name, dir, result, run) {
  const expected = `playbooks/pr-${run?.id.split('-').pop()}`;
  const branches = branchesOf(dir);
  judge(
    name,
    result.code === 0 &&
      run?.status === 'completed' &&
      run.branch === expected &&
      branches.includes(expected) &&
      worktreeBranch(dir, expected),
    `exit ${result.code} in ${result.ms} ms, run ${run?.id} ${run?.status}, branch ${run?.branch}; git branches: ${branches.join(', ')}${result.code ? `\n${result.stderr.slice(-1500)}` : ''}`,
  );
}

const task = 'add a --json flag';
let mainDir;

await check('branch', async () => {
  mainDir = workspace('main');
  script(happyRules('one'));
  const result = await runCli(
    ['run', 'playbooks/pr.yml', ...paseoFlags(), '--gate', 'ship=approve', '--input', `task=${task}`],
    { cwd: mainDir },
  );
  const run = runFiles().find((r) => r.workspace === mainDir);
  judgeBranch('branch', mainDir, result, run);
  // Item 7: the implementer's role (provider claude, sent to the scripted ACP provider) opens its first message.
  const implement = agentLog().find(
    (e) => e.kind === 'prompt' && e.index === 0 && e.rule === 'Implement this plan',
  );
  judge(
    'role-instructions',
    Boolean(implement?.text.startsWith('## Your role: implementer')),
    JSON.stringify(implement?.text.slice(0, 120)),
  );
});

await check('second', async () => {
  mainDir ??= workspace('main');
  script(happyRules('two'));
  const before = new Set(runFiles().map((r) => r.id));
  const result = await runCli(
    ['run', 'playbooks/pr.yml', ...paseoFlags(), '--gate', 'ship=approve', '--input', `task=${task}`],
    { cwd: mainDir },
  );
  const run = runFiles().find((r) => r.workspace === mainDir && !before.has(r.id));
  judgeBranch('second', mainDir, result, run);
});

/** Ctrl-C while the plan agent is being created: no agent of the run may be left running (item 2). */
async function cancelCheck(name, { whileCreating }) {
  const dir = workspace(name);
  script(
    [{ match: 'Plan this change', turns: [{ hang: true }] }],
    whileCreating ? { newSessionDelayMs: 8000 } : {},
  );
  const logStart = agentLog().length;
  let child;
  const sent = Date.now();
  const exited = runCli(['run', 'playbooks/pr.yml', ...paseoFlags(), '--input', `task=${task}`], {
    cwd: dir,
    onStart: (c) => (child = c),
  });
  const mark = whileCreating ? 'session-new' : 'prompt';
  await waitFor(`the plan agent's ${mark}`, () =>
    agentLog()
      .slice(logStart)
      .find((e) => e.kind === mark && (mark === 'prompt' || !e.probe)),
  );
  const signaled = Date.now();
  child.kill('SIGINT');
  const result = await exited;
  const run = runFiles().find((r) => r.workspace === dir);
  // Give the daemon a moment to end the turn the cancel asked to stop.
  let agents = [];
  try {
    await waitFor(
      'every agent to stop',
      async () => {
        agents = await agentsOf(run.id);
        return (
          agents.length > 0 && agents.every((a) => a.status !== 'running' && a.status !== 'initializing')
        );
      },
      20_000,
    );
  } catch {
    // judged below
  }
  judge(
    name,
    result.code === 130 &&
      run?.status === 'canceled' &&
      agents.length > 0 &&
      agents.every((a) => a.status !== 'running' && a.status !== 'initializing'),
    `exit ${result.code} ${signaled - sent} ms after start, process gone ${Date.now() - signaled} ms after SIGINT; run ${run?.status}; agents: ${agents.map((a) => `${a.id.slice(0, 8)} ${a.status}`).join(', ') || 'none'}`,
  );
}

await check('cancel-running', () => cancelCheck('cancel-running', { whileCreating: false }));
await check('cancel-creating', () => cancelCheck('cancel-creating', { whileCreating: true }));

/** A failed turn, then the reminder answered `accepted: false`: the run goes on (item 4). */
await check('failed-turn', async () => {
  const dir = workspace('failed-turn');
  const rules = happyRules('failed');
  rules[0] = { match: 'Plan this change', turns: [{ fail: 'scripted failure' }, ...rules[0].turns] };
  script(rules);
  const result = await runCli(
    ['run', 'playbooks/pr.yml', ...paseoFlags(), '--gate', 'ship=approve', '--input', `task=${task}`],
    { cwd: dir },
  );
  const run = runFiles().find((r) => r.workspace === dir);
  const planStarts = run?.history.filter((h) => h.step === 'plan' && h.kind === 'step-started').length;
  const failed = agentLog().some((e) => e.kind === 'fail');
  judge(
    'failed-turn',
    result.code === 0 && run?.status === 'completed' && planStarts === 1 && failed,
    `exit ${result.code}, run ${run?.status}, plan attempts ${planStarts}, a turn failed: ${failed}; history: ${run?.history
      .filter((h) => h.step === 'plan')
      .map((h) => h.text)
      .join(' | ')}${result.code ? `\n${result.stderr.slice(-1500)}` : ''}`,
  );
});

/** The daemon's own answer to a message after a failed turn, recorded as it comes (item 4). */
await check('failed-turn-answer', async () => {
  const dir = workspace('failed-turn-answer');
  script([{ match: 'probe', turns: [{ fail: 'scripted failure' }, {}] }]);
  const ends = [];
  const stop = client.onStream((e) => ends.push(e));
  const created = await client.request('create_agent_request', {
    config: { provider, cwd: dir, title: 'kairoku check: failed turn' },
    initialPrompt: 'probe',
    labels: { 'kairoku.check': 'failed-turn' },
  });
  const id = created.agentId;
  await waitFor('turn_failed', () => ends.some((e) => e.agentId === id && e.event.type === 'turn_failed'));
  const answer = await client.request('send_agent_message_request', { agentId: id, text: 'again' });
  await waitFor(
    'the second turn to end',
    () => ends.filter((e) => e.agentId === id && e.event.type === 'turn_completed').length > 0,
    20_000,
  ).catch(() => undefined);
  stop();
  const second = agentLog().find((e) => e.agent === id && e.kind === 'prompt' && e.index === 1);
  judge(
    'failed-turn-answer',
    true,
    `send_agent_message_response after a failed turn: accepted ${answer.accepted}, error ${JSON.stringify(answer.error)}; the second turn ${second ? 'ran' : 'did not run'}; events: ${ends
      .filter((e) => e.agentId === id && e.event.type !== 'timeline')
      .map((e) => e.event.type)
      .join(' ')}`,
  );
  await client.request('archive_agent_request', { agentId: id }).catch(() => undefined);
});

/** An agent archived while its step runs: the run says archived (item 5). */
await check('archived', async () => {
  const dir = workspace('archived');
  script([{ match: 'Plan this change', turns: [{ hang: true }] }]);
  const logStart = agentLog().length;
  const exited = runCli(['run', 'playbooks/pr.yml', ...paseoFlags(), '--input', `task=${task}`], {
    cwd: dir,
  });
  const prompt = await waitFor('the plan prompt', () =>
    agentLog()
      .slice(logStart)
      .find((e) => e.kind === 'prompt'),
  );
  await client.request('archive_agent_request', { agentId: prompt.agent });
  const result = await exited;
  const run = runFiles().find((r) => r.workspace === dir);
  const listed = await agentsOf(run.id);
  const history = run?.history.filter((h) => h.step === 'plan').map((h) => h.text) ?? [];
  judge(
    'archived',
    result.code === 1 &&
      run?.status === 'failed' &&
      history.some((t) => /archived/.test(t)) &&
      listed.some((a) => a.archivedAt),
    `exit ${result.code}, run ${run?.status}; listed with includeArchived: ${listed.map((a) => `${a.id.slice(0, 8)} archivedAt=${a.archivedAt}`).join(', ')}; history: ${history.join(' | ')}`,
  );
});

/** A Paseo agent as the manager (`mcp --agents paseo`): woken when its step reports (item 3). */
await check('manager-wake', async () => {
  const dir = workspace('manager');
  const mcpArgs = [
    cli,
    'mcp',
    '--agents',
    'paseo',
    '--workspace',
    dir,
    '--paseo-host',
    host,
    '--paseo-provider',
    provider,
    '--paseo-provider',
    `claude=${provider}`,
  ];
  if (passwordFile) mcpArgs.push('--paseo-password-file', passwordFile);
  script([
    {
      match: 'MANAGER',
      turns: [
        {
          calls: [
            { tool: 'start_playbook', args: { playbook: 'pr', inputs: { task } } },
            { tool: 'start_step', args: { run: '$run', step: 'plan', brief: 'keep it short' } },
          ],
        },
        {
          calls: [
            { tool: 'get_run', args: { run: '$run' } },
            { tool: 'complete_step', args: { run: '$run', step: 'plan', outcome: 'done' } },
            { tool: 'cancel_run', args: { run: '$run', reason: 'check done' } },
          ],
        },
      ],
    },
    {
      match: 'Plan this change',
      turns: [{ delayMs: 2000, calls: [report('done', { plan: 'p', files: ['a.txt'] })] }],
    },
  ]);
  const logStart = agentLog().length;
  const created = await client.request('create_agent_request', {
    config: {
      provider,
      cwd: dir,
      title: 'kairoku check: manager',
      mcpServers: {
        'kairoku-playbook': {
          type: 'stdio',
          command: process.execPath,
          args: mcpArgs,
          env: { KAIROKU_PLAYBOOK_HOME: home },
        },
      },
    },
    initialPrompt: 'MANAGER: run pr.yml and start its plan step',
    labels: { 'kairoku.check': 'manager' },
  });
  const managerId = created.agentId;
  const woken = await waitFor(
    'the manager to be woken',
    () =>
      agentLog()
        .slice(logStart)
        .find((e) => e.agent === managerId && e.kind === 'prompt' && e.index === 1),
    // Generous: on a loaded machine one create_agent_request alone took more than 30 s.
    180_000,
  ).catch(() => undefined);
  const reported = agentLog()
    .slice(logStart)
    .find((e) => e.kind === 'tool' && e.tool === 'report_step_result');
  const wokenAfter = woken && reported ? Date.parse(woken.at) - Date.parse(reported.at) : undefined;
  const run = runFiles().find((r) => r.workspace === dir);
  judge(
    'manager-wake',
    Boolean(woken),
    woken
      ? `woken ${wokenAfter} ms after the report: ${JSON.stringify(woken.text.slice(0, 160))}; run ${run?.status}`
      : `not woken within 180 s of the start; run ${run?.id} ${run?.status}; manager tools: ${agentLog()
          .slice(logStart)
          .filter((e) => e.agent === managerId && e.kind === 'tool')
          .map((e) => `${e.tool}${e.isError ? ' (error)' : ''}`)
          .join(', ')}`,
  );
  // Done with it: stop the manager's session (its MCP server ends with it).
  await client.request('archive_agent_request', { agentId: managerId }).catch(() => undefined);
});

/** The password from the environment, and a wrong one refused with what to do (item 6). */
await check('password', async () => {
  if (!password) return judge('password', true, 'the daemon has no password: nothing to check');
  const dir = workspace('password');
  script(happyRules('password'));
  const flags = paseoFlags().filter(
    (flag, at, all) => flag !== '--paseo-password-file' && all[at - 1] !== '--paseo-password-file',
  );
  const wrong = await runCli(['run', 'playbooks/pr.yml', ...flags, '--input', `task=${task}`], {
    cwd: dir,
    env: { PASEO_PASSWORD: `${password}-wrong` },
  });
  const right = await runCli(
    ['run', 'playbooks/pr.yml', ...flags, '--gate', 'ship=approve', '--input', `task=${task}`],
    {
      cwd: dir,
      env: { PASEO_PASSWORD: password },
    },
  );
  const flag = await runCli(['run', 'playbooks/pr.yml', '--backend', 'paseo', '--paseo-password', 'x'], {
    cwd: dir,
  });
  judge(
    'password',
    wrong.code !== 0 && /4401/.test(wrong.stderr) && right.code === 0 && flag.code === 2,
    `wrong PASEO_PASSWORD: exit ${wrong.code}, ${JSON.stringify(wrong.stderr.trim().split('\n').pop())}; right PASEO_PASSWORD: exit ${right.code} ${right.code ? right.stderr.slice(-600) : ''}; --paseo-password: exit ${flag.code}, ${JSON.stringify(flag.stderr.trim().split('\n')[0])}`,
  );
});

/** create_agent_request latency, for the record. */
await check('create-latency', async () => {
  const dir = workspace('latency');
  script([{ match: 'latency', turns: [{}] }]);
  const times = [];
  for (let i = 0; i < 5; i++) {
    const started = Date.now();
    const created = await client.request('create_agent_request', {
      config: { provider, cwd: dir, title: `kairoku check: latency ${i}` },
      initialPrompt: 'latency',
      labels: { 'kairoku.check': 'latency' },
    });
    times.push(Date.now() - started);
    await client.request('archive_agent_request', { agentId: created.agentId }).catch(() => undefined);
  }
  judge('create-latency', true, `create_agent_request answered in ${times.join(', ')} ms`);
});

// serve --backend paseo: managed runs, a restart, the agents left behind (issue 25).
await serveChecks({
  ...{ check, judge, workspace, script, agentLog, agentsOf, waitFor, report, happyRules },
  ...{ client, cli, host, provider, passwordFile, home, task },
});

await client.close();
if (!keep) rmSync(root, { recursive: true, force: true });
else process.stdout.write(`kept ${root}\n`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
