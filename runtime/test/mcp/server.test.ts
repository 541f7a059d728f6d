/**
 * The manager protocol over MCP, end to end: the SDK's real Client and StdioClientTransport spawn
 * the built CLI (`kairoku-playbook mcp`) on a temporary workspace and store, and drive runs of
 * playbooks/pr.yml through the 13 tools.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, REPO, runCli, tempDir } from '../../../test/kit/index.js';

const MANAGER_TOOLS = [
  'cancel_run',
  'complete_step',
  'get_run',
  'list_playbooks',
  'list_runs',
  'nudge_step',
  'request_gate',
  'restart_run',
  'resume',
  'start_playbook',
  'start_step',
  'validate_playbooks',
];

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Session {
  client: Client;
  /** a tool call that must succeed: its JSON result (validate_playbooks: its text) */
  call(name: string, args?: Json): Promise<Json>;
  /** a tool call that must be refused: its message */
  refuse(name: string, args?: Json): Promise<string>;
  tools(): Promise<string[]>;
}

const open: Client[] = [];

afterEach(async () => {
  // Every spawned server stops: closing the client ends its stdin (then SIGTERM if it lingers).
  await Promise.all(open.splice(0).map((client) => client.close()));
});

beforeAll(() => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-b'], { cwd: REPO, stdio: 'pipe' });
  execFileSync(process.execPath, [join(REPO, 'cli', 'build.mjs')], { cwd: REPO, stdio: 'pipe' });
}, 240_000);

/** A workspace folder with a copy of playbooks/pr.yml (and any other files given). */
function workspace(files: Record<string, string> = {}): string {
  const root = tempDir('kp-mcp-ws-');
  mkdirSync(join(root, 'playbooks'));
  copyFileSync(join(REPO, 'playbooks', 'pr.yml'), join(root, 'playbooks', 'pr.yml'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

async function connect(
  args: string[],
  home: string,
  command: { command: string; args: string[]; env?: Json } = {
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
  },
): Promise<Session> {
  const transport = new StdioClientTransport({
    command: command.command,
    args: command.args,
    // The launch's own environment (a step agent's server gets its token there), as an MCP client passes it.
    env: { KAIROKU_PLAYBOOK_HOME: home, ...(command.env as Record<string, string> | undefined) },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'kairoku-playbook-test', version: '1.0.0' });
  await client.connect(transport);
  open.push(client);
  const text = async (name: string, args: Json, error: boolean) => {
    const result = await client.callTool({ name, arguments: args });
    const content = result.content as { type: string; text: string }[];
    const body = content.map((c) => c.text).join('\n');
    if (Boolean(result.isError) !== error)
      throw new Error(
        `${name} ${JSON.stringify(args)} ${error ? 'was not refused' : 'was refused'}: ${body}`,
      );
    return body;
  };
  return {
    client,
    call: async (name, args = {}) => {
      const body = await text(name, args, false);
      return name === 'validate_playbooks' ? { text: body } : (JSON.parse(body) as Json);
    },
    refuse: (name, args = {}) => text(name, args, true),
    tools: async () => (await client.listTools()).tools.map((t) => t.name).sort(),
  };
}

const PLAN = { plan: 'add the flag, document it', files: ['cli/src/main.ts', 'README.md'] };
const CHECKS = (failed: number) => ({ passed: 40, failed, skipped: 0, todo: 0, exit_code: failed ? 1 : 0 });

describe('kairoku-playbook mcp: a whole run of pr.yml', () => {
  it('runs with the qa loop firing once, the review loop once, and the gate decided through resume', async () => {
    const home = tempDir('kp-mcp-home-');
    const ws = workspace();
    const m = await connect(['--workspace', ws, '--agents', 'external', '--with-step-tools'], home);
    expect(await m.tools()).toEqual([...MANAGER_TOOLS, 'report_step_result'].sort());

    const listed = await m.call('list_playbooks');
    expect(listed.protocol).toContain('complete_step');
    expect(listed.playbooks).toHaveLength(1);
    expect(listed.playbooks[0]).toMatchObject({
      id: 'pr',
      title: 'Implement, review and land a change',
      file: 'playbooks/pr.yml',
    });
    expect(listed.playbooks[0].inputs.map((i: Json) => i.name)).toEqual([
      'task',
      'strict',
      'reviewers',
      'target',
      'api_key',
    ]);
    expect(listed.playbooks[0].inputs[0]).toMatchObject({ name: 'task', type: 'string', required: true });

    const started = await m.call('start_playbook', {
      playbook: 'pr',
      inputs: { task: 'add a --json flag', strict: true },
    });
    const run = started.run as string;
    expect(run).toMatch(/^pr-[0-9a-f]{6}$/);
    expect(started).toMatchObject({ status: 'running', ready: [{ step: 'plan', kind: 'agent' }] });
    expect(started.next).toEqual(['start step "plan" with start_step and a brief for its agent']);

    /** start_step, report_step_result as the step's agent, complete_step: returns complete_step's result. */
    const turn = async (step: string, outcome: string, outputs: Json = {}, summary = '', expected?: Json) => {
      const s = await m.call('start_step', { run, step, brief: `do ${step} well` });
      expect(s.started).toMatchObject({ step });
      if (expected) expect(s.started).toMatchObject(expected);
      expect(s.running).toEqual([{ step, attempt: s.started.attempt }]);
      const r = await m.call('report_step_result', {
        run,
        step,
        attempt: s.started.attempt,
        outcome,
        summary,
        outputs,
      });
      expect(r.reported).toEqual([
        expect.objectContaining({ step, attempt: s.started.attempt, outcome, summary }),
      ]);
      return m.call('complete_step', { run, step, outcome });
    };

    let next = await turn('plan', 'done', PLAN, 'planned', {
      kind: 'agent',
      role: 'planner',
      brief: 'do plan well',
    });
    expect(next.ready).toEqual([{ step: 'implement', kind: 'agent' }]);
    next = await turn('implement', 'done', { branch: 'feat/json' }, '', {
      prompt: expect.stringContaining('add the flag'),
    });
    expect(next.ready).toEqual([{ step: 'qa', kind: 'check' }]);

    // qa fails once: the loop sends the run back to implement with the feedback.
    next = await turn('qa', 'fail', CHECKS(2), '2 tests failing', {
      kind: 'check',
      commands: ['npm run lint', 'npm test'],
    });
    expect(next.events).toContain('qa fail: loop back to implement (qa.fail 1 of 3)');
    expect(next.ready).toEqual([{ step: 'implement', kind: 'agent' }]);
    await turn('implement', 'done', { branch: 'feat/json' }, '', {
      attempt: 2,
      feedback: 'Tests failed: 2 tests failing',
      loopCount: 1,
    });
    next = await turn('qa', 'pass', CHECKS(0), '', { attempt: 2 });
    expect(next.ready).toEqual([{ step: 'review', kind: 'agent' }]);

    // review asks for changes once: back to implement again.
    next = await turn('review', 'changes_requested', { verdict: 'changes' }, 'rename the flag');
    expect(next.events).toContain(
      'review changes_requested: loop back to implement (review.changes_requested 1 of 3)',
    );
    await turn('implement', 'done', { branch: 'feat/json' }, '', {
      attempt: 3,
      feedback: 'rename the flag',
    });
    expect((await turn('qa', 'pass', CHECKS(0))).ready).toEqual([{ step: 'review', kind: 'agent' }]);
    next = await turn('review', 'approved', { verdict: 'approve' });
    expect(next.ready).toEqual([{ step: 'ship', kind: 'gate' }]);
    expect(next.next).toEqual([
      'open gate "ship" with request_gate and a summary for the human, then end your turn',
    ]);

    const gate = await m.call('request_gate', {
      run,
      step: 'ship',
      summary: 'Reviewed and green: ship feat/json?',
    });
    expect(gate.gate).toMatchObject({
      step: 'ship',
      title: 'Ship feat/json?',
      summary: 'Reviewed and green: ship feat/json?',
      choices: [
        { name: 'approve', comment: 'none' },
        { name: 'reject', comment: 'none' },
        { name: 'revise', comment: 'required' },
      ],
    });
    expect(gate.waiting).toHaveLength(1);
    expect(await m.refuse('resume', { run, step: 'ship', choice: 'revise' })).toContain(
      'choice "revise" of gate "ship" needs a comment',
    );
    const decided = await m.call('resume', { run, step: 'ship', choice: 'approve', comment: 'ship it' });
    expect(decided).toMatchObject({ status: 'completed', outputs: { branch: 'feat/json' } });
    expect(decided.events).toContain('ship decided: approve (ship it)');
    expect(decided.ready).toEqual([{ step: 'after.summarize', kind: 'agent' }]);

    // The auto after-task runs once the run has completed; it never changes the run's status.
    const wrapped = await turn('after.summarize', 'done', {}, 'shipped --json');
    expect(wrapped).toMatchObject({ status: 'completed', ready: [], running: [], reported: [] });

    const final = await m.call('get_run', { run });
    expect(final).toMatchObject({
      status: 'completed',
      loops: { 'qa.fail': 1, 'review.changes_requested': 1 },
      outputs: { branch: 'feat/json' },
      workspace: expect.stringContaining('kp-mcp-ws-'),
      manager: 'kairoku-playbook-test 1.0.0 (mcp)',
    });
    const attempts = Object.fromEntries(
      final.steps.map((s: Json) => [s.name, s.attempts.map((a: Json) => a.outcome)]),
    );
    expect(attempts).toEqual({
      plan: ['done'],
      implement: ['done', 'done', 'done'],
      qa: ['fail', 'pass', 'pass'],
      review: ['changes_requested', 'approved'],
      ship: ['approve'],
    });
    expect(final.after[0]).toMatchObject({ name: 'after.summarize', status: 'completed' });

    // The state was saved after every change: the run file says the same.
    const saved = JSON.parse(readFileSync(join(home, 'runs', `${run}.json`), 'utf8')) as Json;
    expect(saved).toMatchObject({ status: 'completed', loops: final.loops, outputs: final.outputs });
  }, 60_000);

  it("progresses with the sim backend's agents reporting by themselves", async () => {
    const home = tempDir('kp-mcp-home-');
    const m = await connect(['--workspace', workspace()], home);
    expect(await m.tools()).toEqual(MANAGER_TOOLS);
    const { run } = await m.call('start_playbook', { playbook: 'pr', inputs: { task: 'add a --json flag' } });
    for (const step of ['plan', 'implement', 'qa']) {
      const started = await m.call('start_step', { run, step });
      // A sim agent reports at once: its first declared outcome, outputs made from their types.
      expect(started.reported).toEqual([expect.objectContaining({ step, attempt: 1 })]);
      await m.call('complete_step', { run, step, outcome: started.reported[0].outcome });
    }
    // review's `when` is false (not strict, one reviewer): skipped, and the gate is ready.
    const opened = await m.call('request_gate', { run, step: 'ship' });
    expect(opened.gate.title).toBe('Ship sim/implement-c71e23?');
    expect(opened.gate.summary).toBe('Review verdict: not reviewed');
    const done = await m.call('resume', { run, step: 'ship', choice: 'approve' });
    expect(done).toMatchObject({ status: 'completed', outputs: { branch: 'sim/implement-c71e23' } });
  }, 30_000);
});

describe('kairoku-playbook mcp: refusals', () => {
  it('refuses what the playbook does not allow, and says what to do', async () => {
    const home = tempDir('kp-mcp-home-');
    const ws = workspace();
    const m = await connect(['--workspace', ws, '--agents', 'external', '--with-step-tools'], home);

    expect(await m.refuse('start_playbook', { playbook: 'pt' })).toContain(
      'unknown playbook "pt"; did you mean "pr"?',
    );
    expect(await m.refuse('start_playbook', { playbook: 'pr', inputs: { tsak: 'x' } })).toContain(
      'unknown input "tsak"; did you mean "task"?',
    );
    expect(await m.refuse('start_playbook', { playbook: 'pr', inputs: { reviewers: 7 } })).toMatch(
      /input "task" is required.*input "reviewers" must be <= 3/,
    );
    const { run } = await m.call('start_playbook', { playbook: 'pr', inputs: { task: 'x' } });

    // A second active run in the same workspace.
    expect(await m.refuse('start_playbook', { playbook: 'pr', inputs: { task: 'y' } })).toContain(
      `run "${run}" of playbook "pr" is already active in this workspace (running); one run may be active per workspace`,
    );

    // A step that is not ready; a gate started as a step; a step opened as a gate.
    expect(await m.refuse('start_step', { run, step: 'implement' })).toBe(
      'step "implement" is not ready: it is pending, waiting for plan; ready now: plan (get_run shows the run)',
    );
    expect(await m.refuse('start_step', { run, step: 'ship' })).toContain(
      'gate "ship" is a gate: open it with request_gate',
    );
    expect(await m.refuse('request_gate', { run, step: 'plan' })).toContain(
      'step "plan" is not a gate: start it with start_step',
    );
    expect(await m.refuse('start_step', { run, step: 'plna' })).toContain(
      'unknown step "plna"; did you mean "plan"?',
    );
    expect(await m.refuse('get_run', { run: 'pr-zzzzzz' })).toContain('unknown run "pr-zzzzzz"');

    // A step that has not reported cannot complete.
    await m.call('start_step', { run, step: 'plan' });
    expect(await m.refuse('complete_step', { run, step: 'plan', outcome: 'done' })).toBe(
      'step "plan" has not reported (it is running); a step completes after its report; wait for its report (get_run shows it when it arrives)',
    );

    // Reports: outputs that do not fit, an undeclared outcome, another attempt.
    const misfit = await m.refuse('report_step_result', {
      run,
      step: 'plan',
      attempt: 1,
      outcome: 'done',
      outputs: { plan: 42, files: 'one' },
    });
    expect(misfit).toContain('the report of step "plan" does not fit its outputs');
    expect(misfit).toContain('output "plan" must be string');
    expect(misfit).toContain('Report again with outputs that fit: plan: string, files: list<string>');
    expect(
      await m.refuse('report_step_result', {
        run,
        step: 'plan',
        attempt: 1,
        outcome: 'finished',
        outputs: PLAN,
      }),
    ).toContain('step "plan" has no outcome "finished"; its outcomes are done, failed');
    expect(
      await m.refuse('report_step_result', { run, step: 'plan', attempt: 2, outcome: 'done', outputs: PLAN }),
    ).toContain('the report is for attempt 2, but the current attempt is 1');
    expect(
      await m.refuse('report_step_result', { run, step: 'implement', attempt: 1, outcome: 'done' }),
    ).toContain('step "implement" is not running (it is pending)');
    await m.call('report_step_result', { run, step: 'plan', attempt: 1, outcome: 'done', outputs: PLAN });
    expect(
      await m.refuse('report_step_result', { run, step: 'plan', attempt: 1, outcome: 'done', outputs: PLAN }),
    ).toContain('has already reported attempt 1; it waits for complete_step');

    // An outcome the step does not declare lists the allowed ones.
    expect(await m.refuse('complete_step', { run, step: 'plan', outcome: 'approved' })).toBe(
      'step "plan" has no outcome "approved"; its outcomes are done, failed',
    );
    // A gate that is not open; a nudge for a step that is not running.
    expect(await m.refuse('resume', { run, step: 'ship', choice: 'approve' })).toContain(
      'gate "ship" is not open (it is pending)',
    );
    expect(await m.refuse('nudge_step', { run, step: 'implement', text: 'hurry' })).toContain(
      'only a running step can be nudged',
    );
    // Arguments that do not fit a tool's schema are refused by the tool's input schema.
    expect(await m.refuse('complete_step', { run, step: 'plan' })).toMatch(/outcome/);
    await m.call('complete_step', { run, step: 'plan', outcome: 'done' });

    // limits.concurrency: pr allows one active run, also across workspaces.
    const other = await connect(['--workspace', workspace()], home);
    expect(await other.refuse('start_playbook', { playbook: 'pr', inputs: { task: 'z' } })).toContain(
      `playbook "pr" allows 1 active run at once (limits.concurrency) and "${run}" is active`,
    );

    // Cancel, then list and restart.
    expect(await m.call('cancel_run', { run, reason: 'changed my mind' })).toMatchObject({
      status: 'canceled',
      reason: 'changed my mind',
    });
    expect(await m.refuse('cancel_run', { run })).toContain('the run has already ended (canceled)');
    const listed = await m.call('list_runs');
    expect(listed.runs).toEqual([
      expect.objectContaining({ run, status: 'canceled', restartFrom: ['plan', 'implement'] }),
    ]);
    expect(await m.refuse('restart_run', { run, step: 'qa' })).toBe(
      'step "qa" cannot restart: its needs have not completed (implement is pending); it can restart from plan, implement',
    );
    const restarted = await m.call('restart_run', { run, step: 'implement' });
    expect(restarted).toMatchObject({ status: 'running', ready: [{ step: 'implement', kind: 'agent' }] });
    expect(restarted.events).toContain('run restarted from implement');
  }, 60_000);
});

describe('kairoku-playbook mcp: archived runs', () => {
  it('lists archived runs only when asked, and restart_run reopens them', async () => {
    const home = tempDir('kp-mcp-home-');
    const m = await connect(['--workspace', workspace()], home);
    const { run } = await m.call('start_playbook', { playbook: 'pr', inputs: { task: 'x' } });
    await m.call('cancel_run', { run });
    // Archiving belongs to the panel and `runs archive`; here the run file is marked by hand.
    const file = join(home, 'runs', `${run}.json`);
    writeFileSync(
      file,
      JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), archivedAt: '2025-01-01T00:00:00.000Z' }),
    );
    expect((await m.call('list_runs')).runs).toEqual([]);
    expect((await m.call('list_runs', { archived: true })).runs).toEqual([
      expect.objectContaining({ run, archived: true, restartFrom: ['plan'] }),
    ]);
    await m.call('restart_run', { run, step: 'plan' });
    expect((await m.call('list_runs')).runs).toEqual([
      expect.objectContaining({ run, archived: false, status: 'running' }),
    ]);
  }, 30_000);
});

describe('kairoku-playbook mcp: validate_playbooks', () => {
  it('prints exactly what check --format json prints for the same workspace', async () => {
    const ws = workspace({
      'broken.playbook.yml':
        'version: 1\ntitle: Broken\nsteps:\n  only:\n    needs: [nowhere]\n    role: implementer\n    prompt: Do it.\n',
      'playbooks/spare.yml':
        'version: 1\ntitle: Spare\ninputs:\n  spare: { type: string, default: x }\nsteps:\n  only:\n    role: implementer\n    prompt: Do it.\n',
      'playbooks/pr.test.yml': 'not: a playbook',
    });
    const check = runCli(['check', '--format', 'json'], { cwd: ws });
    expect(check.status).toBe(1);
    const m = await connect(['--workspace', ws], tempDir('kp-mcp-home-'));
    const { text } = await m.call('validate_playbooks');
    expect(text).toBe(check.stdout);
    // (the playbook test is checked against its playbook too, as check checks it: an unknown key)
    expect(JSON.parse(text).map((d: Json) => d.code)).toEqual(['PB200', 'PB800', 'PB900']);

    // The broken playbook is listed with its errors and cannot start.
    const listed = await m.call('list_playbooks');
    expect(listed.playbooks.map((p: Json) => p.id)).toEqual(['broken', 'pr', 'spare']);
    expect(listed.playbooks[0]).toMatchObject({
      startable: false,
      errors: [expect.stringContaining('PB200')],
    });
    expect(await m.refuse('start_playbook', { playbook: 'broken' })).toContain(
      'playbook "broken" has errors and cannot start; fix them first',
    );

    const clean = await connect(['--workspace', workspace()], tempDir('kp-mcp-home-'));
    expect((await clean.call('validate_playbooks')).text).toBe('[]\n');
  }, 30_000);
});

describe('kairoku-playbook mcp --step-agent', () => {
  it("masks a run's secret in what a step agent's server stores, though that process never had the value", async () => {
    const secret = 'sk-live-7f3a9c2e41d0';
    const home = tempDir('kp-mcp-home-');
    const ws = workspace({
      '.kairoku/playbooks/deploy.yml': [
        'version: 1',
        'title: Deploy',
        'inputs:',
        '  api_key: { type: string, secret: true }',
        'steps:',
        '  plan:',
        '    role: planner',
        '    prompt: Plan the deploy.',
        '    outputs: { plan: string }',
        '  check:',
        '    needs: [plan]',
        '    run: "true"',
        '    env: { API_KEY: "${{ inputs.api_key }}" }',
        '',
      ].join('\n'),
    });
    const m = await connect(['--workspace', ws, '--agents', 'external'], home);
    const { run } = await m.call('start_playbook', { playbook: 'deploy', inputs: { api_key: secret } });
    const { started } = await m.call('start_step', { run, step: 'plan' });
    const agent = await connect([], home, started.stepAgent);
    // An agent that saw the key in its environment writes it back in its report.
    await agent.call('report_step_result', {
      outcome: 'done',
      summary: `deployed with ${secret}`,
      outputs: { plan: `use ${secret} twice: ${secret}` },
    });
    const seen = await m.call('get_run', { run });
    expect(JSON.stringify(seen)).not.toContain(secret);
    for (const file of readdirSync(home, { recursive: true, withFileTypes: true })) {
      if (!file.isFile()) continue;
      const path = join(file.parentPath, file.name);
      expect(readFileSync(path, 'utf8'), path).not.toContain(secret);
    }
  }, 60_000);

  it('exposes exactly report_step_result, bound to its run, step and attempt', async () => {
    const home = tempDir('kp-mcp-home-');
    const m = await connect(['--workspace', workspace(), '--agents', 'external'], home);
    expect(await m.tools()).toEqual(MANAGER_TOOLS);
    const { run } = await m.call('start_playbook', { playbook: 'pr', inputs: { task: 'x' } });
    const { started } = await m.call('start_step', { run, step: 'plan', brief: 'keep it small' });
    const launch = started.stepAgent as { command: string; args: string[]; env: Json };
    expect(launch.command).toBe(process.execPath);
    expect(launch.args).toEqual([
      CLI,
      'mcp',
      '--step-agent',
      '--run',
      run,
      '--step',
      'plan',
      '--attempt',
      '1',
    ]);
    // The token is in the environment, not on a command line any user of the machine can read.
    expect(launch.env).toEqual({
      KAIROKU_PLAYBOOK_HOME: home,
      KAIROKU_STEP_TOKEN: expect.stringMatching(/^[0-9a-f]{32}$/),
    });

    const agent = await connect([], home, launch);
    expect(await agent.tools()).toEqual(['report_step_result']);
    expect(await agent.refuse('report_step_result', { step: 'implement', outcome: 'done' })).toContain(
      `this server reports for step "plan" of run ${run} (attempt 1) only`,
    );
    expect(await agent.refuse('report_step_result', { outcome: 'done', outputs: { plan: 1 } })).toContain(
      'output "plan" must be string',
    );
    expect(
      await agent.call('report_step_result', { outcome: 'done', summary: 'small plan', outputs: PLAN }),
    ).toMatchObject({
      recorded: true,
      step: 'plan',
      attempt: 1,
    });

    // The report reached the manager's server through the store.
    const seen = await m.call('get_run', { run });
    expect(seen.reported).toEqual([
      expect.objectContaining({ step: 'plan', outcome: 'done', summary: 'small plan' }),
    ]);
    expect(seen.events).toContain('plan reported done: small plan');
    expect(await m.call('complete_step', { run, step: 'plan', outcome: 'done' })).toMatchObject({
      ready: [{ step: 'implement', kind: 'agent' }],
    });
    // The attempt is over: its server refuses another report.
    expect(await agent.refuse('report_step_result', { outcome: 'done', outputs: PLAN })).toContain(
      'step "plan" is not running (it is completed)',
    );

    // A token made for another attempt does not start a server.
    const forged = launch.args.map((a, i) => (launch.args[i - 1] === '--attempt' ? '2' : a));
    const refused = spawnSync(launch.command, forged, {
      env: { ...process.env, ...launch.env },
      encoding: 'utf8',
      input: '',
    });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('the token does not match');
    // Without a token, the server says where it goes.
    const tokenless = spawnSync(launch.command, launch.args, {
      env: { ...process.env, KAIROKU_PLAYBOOK_HOME: home, KAIROKU_STEP_TOKEN: '' },
      encoding: 'utf8',
      input: '',
    });
    expect(tokenless.status).toBe(2);
    expect(tokenless.stderr).toContain('needs its token in $KAIROKU_STEP_TOKEN');
  }, 60_000);
});
