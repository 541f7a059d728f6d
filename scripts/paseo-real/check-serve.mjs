// The checks of `serve --backend paseo` against the real daemon (issue 25): managed runs and what the
// daemon does to them, a restart while a read-only role works, and the agents left behind. Run by
// check.mjs, which hands over its helpers (`h`); each check prints one line with its figures.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findServe } from '@kairoku-playbook/runtime/serve';

/** serve on the real daemon for a workspace: resolves once it listens, with a caller of its API. */
async function startServe(h, dir, extra = []) {
  const { PASEO_PASSWORD: _password, ...env } = process.env;
  const child = spawn(
    process.execPath,
    [
      h.cli,
      'serve',
      dir,
      '--listen',
      '127.0.0.1:0',
      '--backend',
      'paseo',
      '--paseo-host',
      h.host,
      '--paseo-provider',
      h.provider,
      '--paseo-provider',
      `claude=${h.provider}`,
      ...(h.passwordFile ? ['--paseo-password-file', h.passwordFile] : []),
      ...extra,
    ],
    { env: { ...env, KAIROKU_PLAYBOOK_HOME: h.home }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk) => (err += chunk));
  const login = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const found = /login URL: (\S+)/.exec(out);
      if (found) resolve(found[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve exited (${code}): ${err}`)));
  });
  const token = findServe(h.home, realpathSync(dir)).token;
  const origin = new URL(login).origin;
  const api = async (path, body) => {
    const response = await globalThis.fetch(`${origin}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: await response.json() };
  };
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return { child, api, stderr: () => err, exited, stop: () => (child.kill('SIGTERM'), exited) };
}

/** The scripted ACP agents' processes on this machine (each agent of the daemon is one). */
function providerProcesses() {
  try {
    return execFileSync('pgrep', ['-f', 'scripted-acp-agent'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean).length;
  } catch {
    return 0;
  }
}

const managerRule = (turns) => ({ match: 'You manage playbook run', turns });
const startPlan = { calls: [{ tool: 'start_step', args: { run: '$run', step: 'plan', brief: 'short' } }] };

async function startManaged(h, serving) {
  const sent = Date.now();
  const started = await serving.api('/api/v1/runs', {
    playbook: 'playbooks/pr.yml',
    inputs: { task: h.task },
    options: { newAgent: true },
  });
  return { id: started.body.run?.id, status: started.status, answeredMs: Date.now() - sent };
}

const detail = async (serving, id) => (await serving.api(`/api/v1/runs/${id}`)).body;

/**
 * Item 6: once the run has ended and its after-tasks are done, every agent of it archived (within 30 s):
 * how many were made and how many are left, for the check's line.
 */
async function agentsLeft(h, serving, id) {
  const ended = (run) =>
    ['completed', 'failed', 'canceled'].includes(run.run.status) &&
    !run.after.some((t) => t.status === 'running');
  await h.waitFor(
    'the run and its after-tasks to end',
    async () => ended(await detail(serving, id)),
    120_000,
  );
  await h
    .waitFor('every agent archived', async () => (await h.agentsOf(id)).every((a) => a.archivedAt), 30_000)
    .catch(() => undefined);
  const agents = await h.agentsOf(id);
  const left = agents
    .filter((a) => !a.archivedAt)
    .map((a) => `${a.labels?.['kairoku.step'] ?? 'manager'} ${a.status}`);
  return {
    made: agents.length,
    left,
    text: `${agents.length} agents made, not archived: ${left.join(', ') || 'none'}`,
  };
}

/** Item 1: the manager archived while its plan agent works: the run fails, the agent is stopped. */
async function managerArchived(h) {
  const dir = h.workspace('serve-archived');
  h.script([managerRule([startPlan, {}]), { match: 'Plan this change', turns: [{ hang: true }] }], {
    stdioEnv: 'configured',
  });
  const serving = await startServe(h, dir);
  try {
    const { id } = await startManaged(h, serving);
    const plan = await h.waitFor(
      'the plan agent at work',
      async () =>
        (await h.agentsOf(id)).find((a) => a.labels?.['kairoku.step'] === 'plan' && a.status === 'running'),
      180_000,
    );
    const manager = (await h.agentsOf(id)).find((a) => a.labels?.['kairoku.role'] === 'manager');
    const archivedAt = Date.now();
    await h.client.request('archive_agent_request', { agentId: manager.id });
    await h.waitFor(
      'the run to fail',
      async () => (await detail(serving, id)).run.status === 'failed',
      60_000,
    );
    const failedMs = Date.now() - archivedAt;
    await h.waitFor(
      'the plan agent to stop',
      async () => (await h.agentsOf(id)).every((a) => a.id !== plan.id || a.status !== 'running'),
      30_000,
    );
    const stoppedMs = Date.now() - archivedAt;
    const run = await detail(serving, id);
    const agents = await agentsLeft(h, serving, id);
    h.judge(
      'serve-manager-archived',
      /is gone \(archived\)/.test(run.run.reason ?? '') && agents.left.length === 0,
      `run failed ${failedMs} ms after the archive, plan agent stopped after ${stoppedMs} ms; reason: ${run.run.reason}; ${agents.text}`,
    );
  } finally {
    await serving.stop();
  }
}

/** Item 2: a manager whose stdio server gets only its configured env is still woken. */
async function managerEnv(h) {
  const dir = h.workspace('serve-env');
  const done = { calls: [{ tool: 'cancel_run', args: { run: '$run', reason: 'check done' } }] };
  h.script(
    [
      managerRule([startPlan, done]),
      {
        match: 'Plan this change',
        turns: [{ delayMs: 1500, calls: [h.report('done', { plan: 'p', files: ['a.txt'] })] }],
      },
    ],
    { stdioEnv: 'configured' },
  );
  const serving = await startServe(h, dir);
  try {
    const logStart = h.agentLog().length;
    const { id } = await startManaged(h, serving);
    const woken = await h
      .waitFor(
        'the manager woken',
        () =>
          h
            .agentLog()
            .slice(logStart)
            .find((e) => e.kind === 'prompt' && e.index === 1 && /Playbook run/.test(e.text)),
        180_000,
      )
      .catch(() => undefined);
    const reported = h
      .agentLog()
      .slice(logStart)
      .find((e) => e.kind === 'tool' && e.tool === 'report_step_result');
    const serverLog = h
      .agentLog()
      .slice(logStart)
      .filter((e) => /serving the manager agent run/.test(e.text ?? ''));
    const agents = await agentsLeft(h, serving, id);
    h.judge(
      'serve-manager-env',
      Boolean(woken) && agents.left.length === 0,
      woken
        ? `woken ${Date.parse(woken.at) - Date.parse(reported.at)} ms after the report (run ${id}); the server learned its agent from the run: ${serverLog.length > 0}; ${agents.text}`
        : `not woken within 180 s; run ${id}`,
    );
  } finally {
    await serving.stop();
  }
}

/** Item 3: a slow create: the Start is answered at once, the manager recorded later. */
async function slowCreate(h) {
  const dir = h.workspace('serve-slow');
  h.script([managerRule([{}])], { newSessionDelayMs: 8000 });
  const serving = await startServe(h, dir);
  try {
    const { id, status, answeredMs } = await startManaged(h, serving);
    const making = (await detail(serving, id)).run.manager;
    const madeAt = Date.now();
    await h.waitFor(
      'the manager recorded',
      async () => !(await detail(serving, id)).run.manager?.making,
      180_000,
    );
    const recordedMs = Date.now() - madeAt;
    const recorded = (await detail(serving, id)).run.manager;
    await serving.api(`/api/v1/runs/${id}/cancel`, {});
    const agents = await agentsLeft(h, serving, id);
    h.judge(
      'serve-slow-create',
      status === 201 &&
        answeredMs < 2000 &&
        making?.making === true &&
        /Paseo agent/.test(recorded?.name ?? ''),
      `Start answered ${status} in ${answeredMs} ms (making: ${making?.making}); the manager recorded ${recordedMs} ms later: ${recorded?.name}; after a cancel, ${agents.text}`,
    );
  } finally {
    await serving.stop();
  }
}

/** Items 4 and 6: kill -9 of serve while the read-only plan works; then the agents left behind. */
async function restartReadOnly(h) {
  const dir = h.workspace('serve-restart');
  const rules = h.happyRules('restart');
  rules[0] = { ...rules[0], turns: [{ delayMs: 10_000, ...rules[0].turns[0] }] };
  h.script(rules);
  const before = providerProcesses();
  const first = await startServe(h, dir);
  const logStart = h.agentLog().length;
  const { id } = await (async () => {
    const started = await first.api('/api/v1/runs', {
      playbook: 'playbooks/pr.yml',
      inputs: { task: h.task },
    });
    return { id: started.body.run.id };
  })();
  await h.waitFor(
    'the plan prompt',
    () =>
      h
        .agentLog()
        .slice(logStart)
        .find((e) => e.kind === 'prompt'),
    180_000,
  );
  first.child.kill('SIGKILL');
  await first.exited;
  const second = await startServe(h, dir);
  try {
    await h
      .waitFor(
        'the ship gate',
        async () => (await detail(second, id)).steps.some((s) => s.name === 'ship' && s.status === 'waiting'),
        300_000,
      )
      .catch(async (error) => {
        const run = await detail(second, id);
        const steps = run.steps.map((s) => `${s.name} ${s.status}${s.reason ? ` (${s.reason})` : ''}`);
        throw new Error(
          `${error.message}: run ${run.run.status}; ${steps.join('; ')}\n${second.stderr().slice(-1500)}`,
        );
      });
    const plan = (await detail(second, id)).steps.find((s) => s.name === 'plan');
    await second.api(`/api/v1/runs/${id}/gates/ship`, { choice: 'approve' });
    const agents = await agentsLeft(h, second, id);
    h.judge(
      'serve-restart-read-only',
      plan.attempts.length === 1 && plan.attempts[0].outcome === 'done',
      `plan after kill -9 of serve: ${plan.attempts.map((a) => `attempt ${a.attempt} ${a.outcome ?? a.ended}`).join(', ')}; run ${(await detail(second, id)).run.status}`,
    );
    h.judge(
      'serve-agents-archived',
      agents.left.length === 0,
      `${agents.text}; provider processes ${before} before the run, ${providerProcesses()} after`,
    );
  } finally {
    await second.stop();
  }
}

const RELAY = `version: 1
id: relay
title: Relay
steps:
  plan:
    role: implementer
    prompt: Plan the work
`;

/**
 * Issue 30: the person's own agent (made in the workspace with the servers init --mcp wrote, as the
 * daemon forwards an agent's config to an ACP provider; its stdio server gets only that env) becomes
 * the manager of a run started with it, gets the kickoff, and completes the run through its tools.
 */
async function currentAgent(h) {
  const dir = h.workspace('serve-current');
  writeFileSync(join(dir, 'playbooks', 'relay.yml'), RELAY);
  const init = spawnSync(
    process.execPath,
    [
      h.cli,
      'init',
      '--mcp',
      '--paseo-host',
      h.host,
      ...(h.passwordFile ? ['--paseo-password-file', h.passwordFile] : []),
    ],
    { cwd: dir, encoding: 'utf8' },
  );
  if (init.status !== 0) throw new Error(`init --mcp: ${init.stderr}`);
  const server = JSON.parse(readFileSync(join(dir, '.mcp.json'), 'utf8')).mcpServers['kairoku-playbook'];
  // This daemon has no Claude: the step agents go to the scripted provider (a person sets theirs).
  server.args.push('--paseo-provider', h.provider, '--paseo-provider', `claude=${h.provider}`);
  const tools = (calls) => ({ calls: calls.map(([tool, args]) => ({ tool, args })) });
  h.script(
    [
      {
        match: 'PERSON',
        turns: [
          {},
          tools([
            ['get_run', { run: '$run' }],
            ['start_step', { run: '$run', step: 'plan', brief: 'short' }],
          ]),
          tools([['complete_step', { run: '$run', step: 'plan', outcome: 'done' }]]),
        ],
      },
      { match: 'Plan the work', turns: [{ calls: [h.report('done')] }] },
    ],
    { stdioEnv: 'configured' },
  );
  const made = await h.client.request('create_agent_request', {
    config: {
      provider: h.provider,
      cwd: dir,
      title: 'My agent',
      mcpServers: {
        'kairoku-playbook': { type: 'stdio', ...server, env: { KAIROKU_PLAYBOOK_HOME: h.home } },
      },
    },
    initialPrompt: 'PERSON: hello',
    labels: { 'kairoku.check': 'current-agent' },
  });
  const serving = await startServe(h, dir);
  try {
    await h.waitFor(
      'the person agent idle',
      async () => {
        const answer = await serving.api('/api/v1/current-agent');
        return answer.body.agent?.id === made.agentId && !answer.body.agent.busy;
      },
      120_000,
    );
    const startedAt = Date.now();
    const started = await serving.api('/api/v1/runs', {
      playbook: 'playbooks/relay.yml',
      inputs: {},
      options: { currentAgent: made.agentId },
    });
    const id = started.body.run?.id;
    await h.waitFor(
      'the run to complete',
      async () => (await detail(serving, id)).run.status !== 'running',
      180_000,
    );
    const run = await detail(serving, id);
    const plan = (await h.agentsOf(id)).find((a) => a.labels?.['kairoku.step'] === 'plan');
    h.judge(
      'serve-current-agent',
      run.run.status === 'completed' && plan?.labels?.['paseo.parent-agent-id'] === made.agentId,
      `Start ${started.status}; run ${run.run.status} ${Date.now() - startedAt} ms after the Start${run.run.reason ? ` (${run.run.reason})` : ''}; the plan agent's parent: ${plan?.labels?.['paseo.parent-agent-id'] === made.agentId ? 'the current agent' : plan?.labels?.['paseo.parent-agent-id']}`,
    );
  } finally {
    await serving.stop();
    await h.client.request('archive_agent_request', { agentId: made.agentId }).catch(() => undefined);
  }
}

export async function serveChecks(h) {
  await h.check('serve-current-agent', () => currentAgent(h));
  await h.check('serve-manager-archived', () => managerArchived(h));
  await h.check('serve-manager-env', () => managerEnv(h));
  await h.check('serve-slow-create', () => slowCreate(h));
  await h.check('serve-restart-read-only', () => restartReadOnly(h));
}
