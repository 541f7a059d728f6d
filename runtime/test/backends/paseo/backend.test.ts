import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { realpathSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PaseoBackend } from '../../../src/backends/paseo/backend.js';
import { startSharedReportEndpoint } from '../../../src/backends/report-endpoint.js';
import {
  createRun,
  prepareInputs,
  REMINDER,
  stepRun,
  summarize,
  vecToArray,
} from '@kairoku-playbook/machine';
import type { RunState } from '@kairoku-playbook/machine';
import { Driver } from '../../../src/driver/driver.js';
import { LiveRun } from '../../../src/host/live-run.js';
import {
  FakePaseoDaemon,
  gitRepo,
  PaseoRun,
  removeDir,
  reports,
  reportsWhenReminded,
  runsUntilCanceled,
  scriptedChecks,
  silent,
  tempDir,
  triesReports,
  writesThenReports,
} from '../../../../test/kit/index.js';
import type { FakeAgent } from '../../../../test/kit/index.js';
import { compileFile, playbook } from '../../helpers.js';

let root: string;
let repo: string;
const cleanup: (() => Promise<void> | void)[] = [];

beforeEach(() => {
  root = tempDir('kp-paseo-');
  repo = gitRepo({ dir: join(root, 'repo') });
});

afterEach(async () => {
  for (const done of cleanup.splice(0).reverse()) await done();
  removeDir(root);
});

async function daemon(options: Parameters<typeof FakePaseoDaemon.start>[0] = {}): Promise<FakePaseoDaemon> {
  const fake = await FakePaseoDaemon.start({ home: root, ...options });
  cleanup.push(() => fake.close());
  return fake;
}

async function start(options: Parameters<typeof PaseoRun.start>[0]): Promise<PaseoRun> {
  const run = await PaseoRun.start(options);
  cleanup.push(async () => {
    await run.close();
    // Nothing failed in the backend's callbacks.
    expect(run.logs.filter((l) => l.level === 'error')).toEqual([]);
  });
  return run;
}

function history(state: RunState, kind: string): string[] {
  return vecToArray(state.history)
    .filter((h) => h.kind === kind)
    .map((h) => h.text);
}

/** One agent step `work` (an implementer) with an integer output. */
const WORK = playbook(
  `  work:
    role: implementer
    retries: 1
    prompt: Count the files for \${{ inputs.task }}.
    outputs:
      count: integer
`,
  `inputs:\n  task: { type: string }\noutputs:\n  count: \${{ steps.work.outputs.count }}\n`,
);

describe('a whole run of playbooks/pr.yml on the paseo backend', { timeout: 30_000 }, () => {
  it('takes the qa loop twice and the review loop once, in a worktree of its own, and completes', async () => {
    const fake = await daemon({
      scripts: {
        plan: [reports('done', { plan: 'add the flag', files: ['cli.ts'] })],
        implement: [writesThenReports('cli.ts', 'done', { branch: 'feat/json' })],
        review: [
          reports('changes_requested', { verdict: 'changes' }, 'rename the flag'),
          reports('approved', { verdict: 'approve' }),
        ],
        'after.summarize': [reports('done')],
      },
    });
    const checks = scriptedChecks({ qa: ['fail', 'fail', 'pass'] });
    const run = await start({
      ir: compileFile('playbooks/pr.yml'),
      daemon: fake,
      cwd: repo,
      inputs: { task: 'add a --json flag', strict: true },
      checks: checks.make,
    });
    const state = await run.settled();
    expect(summarize(state)).toEqual({
      id: 'pr-3a9c1f',
      playbook: 'pr',
      status: 'completed',
      steps: {
        plan: { status: 'completed', attempts: [{ outcome: 'done' }] },
        implement: {
          status: 'completed',
          attempts: [{ outcome: 'done' }, { outcome: 'done' }, { outcome: 'done' }, { outcome: 'done' }],
        },
        qa: {
          status: 'completed',
          attempts: [{ outcome: 'fail' }, { outcome: 'fail' }, { outcome: 'pass' }, { outcome: 'pass' }],
        },
        review: {
          status: 'completed',
          attempts: [{ outcome: 'changes_requested' }, { outcome: 'approved' }],
        },
        ship: { status: 'completed', attempts: [{ outcome: 'approve' }] },
      },
      after: { summarize: { status: 'completed', attempts: [{ outcome: 'done' }] } },
      loops: { 'qa.fail': 2, 'review.changes_requested': 1 },
      outputs: { branch: 'feat/json' },
    });

    // The run's worktree: one Paseo worktree, on the run's branch; every agent and check works there.
    const worktree = run.backend.worktree;
    expect(fake.worktrees).toEqual([worktree]);
    expect(fake.received('create_paseo_worktree_request')).toEqual([
      expect.objectContaining({
        cwd: repo,
        worktreeSlug: 'pr-3a9c1f',
        action: 'checkout',
        refName: 'playbooks/pr-3a9c1f',
      }),
    ]);
    // A checkout worktree is not renamed after its first agent's first message (a branch-off one is).
    expect(fake.autoRenamed).toEqual([]);
    const branch = spawnSync('git', ['-C', worktree, 'rev-parse', '--abbrev-ref', 'HEAD'], {
      encoding: 'utf8',
    });
    expect(branch.stdout.trim()).toBe('playbooks/pr-3a9c1f');
    expect(run.backend.branch).toBe('playbooks/pr-3a9c1f');
    const agents = [...fake.agents.values()];
    expect(agents).toHaveLength(1 + 4 + 2 + 1);
    expect(new Set(agents.map((a) => realpathSync(a.cwd)))).toEqual(new Set([realpathSync(worktree)]));
    expect(checks.folders).toEqual([worktree]);
    expect(checks.started.map((c) => `${c.step}#${c.attempt}`)).toEqual(['qa#1', 'qa#2', 'qa#3', 'qa#4']);

    // Each attempt is its own agent, labelled with run, step and attempt; its handle is the agent id.
    const implement = stepRun(state, 'implement')!;
    implement.attempts.forEach((attempt, index) => {
      const agent = fake.agentOf('implement', index + 1)!;
      expect(attempt.agent).toBe(agent.id);
      expect(agent.labels).toEqual({
        'kairoku.run': 'pr-3a9c1f',
        'kairoku.playbook': 'pr',
        'kairoku.step': 'implement',
        'kairoku.attempt': String(index + 1),
        // The port its report endpoint listens on: whether a restarted runtime answers there.
        'kairoku.report-port': new URL(run.backend.endpoint.url).port,
      });
    });
    // The loops' feedback reaches the next attempt's first message.
    expect(fake.agentOf('implement', 2)!.initialPrompt).toContain(
      '## Feedback (this step looped back once)\n\nTests failed:',
    );
    expect(fake.agentOf('implement', 4)!.initialPrompt).toContain('rename the flag');

    // Agents and the worktree stay when the run ends: nothing is archived or canceled.
    expect(fake.received('archive_agent_request')).toEqual([]);
    expect(fake.received('paseo_worktree_archive_request')).toEqual([]);
    expect(fake.received('cancel_agent_request')).toEqual([]);
    expect(agents.every((a) => a.archivedAt === null)).toBe(true);
    expect(run.driver.refusals).toEqual([]);
    await fake.quiet();
    expect(fake.reports.every((r) => !r.refused)).toBe(true);
  });
});

describe('the paseo backend under the host', () => {
  it('drives a run to its end under LiveRun, the host the CLI uses', async () => {
    const fake = await daemon({ scripts: { work: [reportsWhenReminded('done', { count: 6 })] } });
    const backend = await PaseoBackend.connect({
      host: fake.host,
      cwd: repo,
      workspace: 'current',
      runId: 't-live01',
      playbook: 't',
      log: () => {},
    });
    cleanup.push(() => backend.close());
    const prepared = prepareInputs(WORK, { task: 'x' });
    if (!prepared.ok) throw new Error(prepared.errors.join('; '));
    const state = createRun(WORK, {
      id: 't-live01',
      inputs: prepared.inputs,
      now: Date.now(),
      backend: 'paseo',
    });
    const live = new LiveRun({ backend, state });
    cleanup.push(() => live.close());
    expect(live.begin()).toBeUndefined();
    const end = await live.done;
    expect(summarize(end)).toMatchObject({ status: 'completed', outputs: { count: 6 } });
    expect(live.refusals).toEqual([]);
  });
});

describe('check steps on the paseo backend', () => {
  it('runs them with the runtime\u2019s check runner, in the run\u2019s worktree', async () => {
    const ir = playbook(
      `  build:
    role: implementer
    prompt: Make the file.
  verify:
    needs: [build]
    run: [test -f made.txt]
`,
      'workspace: new-worktree\n',
    );
    const fake = await daemon({ scripts: { build: [writesThenReports('made.txt', 'done')] } });
    const run = await start({ ir, daemon: fake, cwd: repo });
    const state = await run.settled();
    expect(summarize(state)).toMatchObject({
      status: 'completed',
      steps: {
        build: { status: 'completed' },
        verify: { status: 'completed', attempts: [{ outcome: 'pass' }] },
      },
    });
    expect(stepRun(state, 'verify')!.attempts[0]!.agent).toBe('check:t-3a9c1f:verify:1');
    expect(stepRun(state, 'verify')!.outputs).toMatchObject({ exit_code: 0 });
  });
});

describe('step agents on the paseo backend', () => {
  it('creates each agent with the role, the title, the labels, the first message and only the report endpoint', async () => {
    const fake = await daemon({ scripts: { work: [reports('done', { count: 3 })] } });
    const run = await start({
      ir: WORK,
      daemon: fake,
      cwd: repo,
      inputs: { task: 'the docs' },
      backend: { parentAgentId: 'manager-agent-1', defaultProvider: 'codex' },
    });
    const state = await run.settled();
    expect(state.status).toBe('completed');
    expect(state.outputs).toEqual({ count: 3 });
    const [created] = fake.received('create_agent_request');
    expect(created).toEqual({
      type: 'create_agent_request',
      requestId: expect.any(String),
      config: {
        provider: 'codex',
        cwd: repo,
        title: 'work',
        mcpServers: {
          'kairoku-playbook': {
            type: 'http',
            url: run.backend.endpoint.url,
            headers: { Authorization: expect.stringMatching(/^Bearer \S{20,}$/) },
          },
        },
      },
      initialPrompt: [
        'Count the files for the docs.',
        '',
        '## Inputs',
        '',
        '### `inputs.task` (an input of the run)',
        '',
        '```',
        'the docs',
        '```',
        '',
        '## Reporting',
        '',
        'When your work is done, call the `report_step_result` tool of the `kairoku-playbook` MCP server once, then end your turn.',
        '- outcome: one of `done`, `failed`',
        '- outputs: `count: integer`',
        '- summary: what you did and found, in a few sentences, for the manager',
        '',
      ].join('\n'),
      labels: {
        'kairoku.run': 't-3a9c1f',
        'kairoku.playbook': 't',
        'kairoku.step': 'work',
        'kairoku.attempt': '1',
        'kairoku.report-port': new URL(run.backend.endpoint.url).port,
        'paseo.parent-agent-id': 'manager-agent-1',
      },
    });
    // The token was revoked once its report was taken.
    expect(run.backend.endpoint.liveTokens()).toBe(0);
    expect(stepRun(state, 'work')!.attempts[0]!.agent).toBe(fake.agentOf('work')!.id);
  });

  it('gives the role instructions in the first message to a provider that ignores the system prompt (ACP)', async () => {
    const ir = playbook(
      `  plan:
    role: planner2
    prompt: Plan it.
  work:
    role: coder
    needs: [plan]
    prompt: Do it.
`,
      `roles:\n  planner2:\n    base: planner\n    instructions: Plan in three bullets.\n    provider: copilot\n  coder:\n    base: implementer\n    instructions: Keep the build green.\n`,
    );
    const fake = await daemon({ scripts: { plan: [reports('done')], work: [reports('done')] } });
    const run = await start({ ir, daemon: fake, cwd: repo });
    expect((await run.settled()).status).toBe('completed');
    const plan = fake.agentOf('plan')!;
    const work = fake.agentOf('work')!;
    // copilot speaks ACP: the daemon drops systemPrompt, so the instructions open the first message.
    expect(plan.provider).toBe('copilot');
    expect(plan.systemPrompt).toBeNull();
    expect(plan.initialPrompt).toMatch(/^## Your role: planner2\n\nPlan in three bullets\.\n\nPlan it\./);
    // claude honours the system prompt: the instructions are there, and not repeated in the message.
    expect(work.provider).toBe('claude');
    expect(work.systemPrompt).toBe('Keep the build green.');
    expect(work.initialPrompt).not.toContain('Keep the build green.');
  });

  it('sends steps that name no provider or model to the defaults, and maps a named provider', async () => {
    const ir = playbook(
      `  plan:
    role: planner
    prompt: Plan it.
  work:
    role: coder
    needs: [plan]
    prompt: Do it.
`,
      `roles:\n  coder:\n    base: implementer\n    provider: claude\n    model: sonnet\n`,
    );
    const fake = await daemon({ scripts: { plan: [reports('done')], work: [reports('done')] } });
    const run = await start({
      ir,
      daemon: fake,
      cwd: repo,
      backend: { defaultProvider: 'opencode', defaultModel: 'big-model', providerMap: { claude: 'codex' } },
    });
    expect((await run.settled()).status).toBe('completed');
    expect(fake.agentOf('plan')!).toMatchObject({ provider: 'opencode', model: 'big-model' });
    expect(fake.agentOf('work')!).toMatchObject({ provider: 'codex', model: 'sonnet' });
  });

  it('refuses a replayed report (its token was revoked) and writes the refusal into the run’s history', async () => {
    const fake = await daemon({ scripts: { work: [reports('done', { count: 3 })] } });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    expect((await run.settled()).status).toBe('completed');
    const [created] = fake.received('create_agent_request');
    const server = (
      created!.config as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> }
    ).mcpServers['kairoku-playbook']!;
    const client = new Client({ name: 'replay', version: '1' });
    await expect(
      client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } }),
      ),
    ).rejects.toThrow(/revoked/);
    expect(vecToArray(run.driver.state.history).at(-1)).toMatchObject({
      kind: 'refused',
      step: 'work',
      attempt: 1,
      text: expect.stringContaining('this token was revoked'),
    });
  });

  it('says in the history when a step agent waits for a permission', async () => {
    const fake = await daemon({
      scripts: {
        work: [
          { turns: [{ asksPermission: 'Bash', reports: [{ outcome: 'done', outputs: { count: 1 } }] }] },
        ],
      },
    });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    const state = await run.settled();
    expect(state.status).toBe('completed');
    expect(history(state, 'backend')).toContain(
      'the agent is waiting for a permission (Bash): answer it in Paseo',
    );
  });

  it('refuses a report whose outputs do not fit, and takes the corrected one', async () => {
    const fake = await daemon({
      scripts: {
        work: [
          triesReports(
            { outcome: 'done', outputs: { count: 'many' } },
            { outcome: 'done', outputs: { count: 7 } },
          ),
        ],
      },
    });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    const state = await run.settled();
    expect(state.status).toBe('completed');
    expect(stepRun(state, 'work')!.outputs).toEqual({ count: 7 });
    await fake.quiet();
    expect(fake.reports.map((r) => r.refused)).toEqual([true, false]);
    expect(fake.reports[0]!.text).toMatch(
      /^refused: the report of step "work" does not fit its outputs: .*count/,
    );
    expect(fake.reports[1]!.text).toMatch(/^Recorded done for step "work"/);
    // The run saw the refused report too (so it can record it).
    expect(run.driver.refusals.map((r) => r.event.type)).toEqual(['report']);
  });

  it('reminds an agent whose turn ends without a report, which then reports', async () => {
    const fake = await daemon({ scripts: { work: [reportsWhenReminded('done', { count: 1 })] } });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    const state = await run.settled();
    expect(state.status).toBe('completed');
    const agent = fake.agentOf('work')!;
    expect(agent.followUps).toEqual([REMINDER]);
    expect(stepRun(state, 'work')!.attempts).toEqual([
      expect.objectContaining({ reminded: true, outcome: 'done' }),
    ]);
  });

  it('takes the reminder after a failed turn as delivered when the daemon says accepted: false but starts the turn', async () => {
    const fake = await daemon({
      scripts: {
        work: [
          {
            turns: [
              { fail: 'the model is overloaded' },
              { reports: [{ outcome: 'done', outputs: { count: 2 } }] },
            ],
          },
          // A second attempt would make a second agent: there must be none.
          reports('done', { count: 3 }),
        ],
      },
    });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    const state = await run.settled();
    expect(state.status).toBe('completed');
    const agent = fake.agentOf('work')!;
    expect(agent.followUps).toEqual([REMINDER]);
    expect(agent.turns).toBe(2);
    expect(fake.agentOf('work', 2)).toBeUndefined();
    expect(stepRun(state, 'work')!.attempts).toEqual([
      expect.objectContaining({ reminded: true, outcome: 'done' }),
    ]);
    expect(history(state, 'agent-lost')).toEqual([]);
  });

  it('loses the attempt whose reminder the daemon refuses and whose agent did not start a turn', async () => {
    // Deleted from the daemon as its turn ends: the reminder finds no agent.
    const fake = await daemon({
      scripts: { work: [{ turns: [{ deleted: true }] }, reports('done', { count: 3 })] },
    });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    const state = await run.settled();
    const agent = stepRun(state, 'work')!.attempts[0]!.agent;
    expect(state.status).toBe('completed');
    expect(history(state, 'agent-lost')).toEqual([
      `work lost: its reminder could not be delivered to Paseo agent ${agent}: Agent not found`,
    ]);
  });

  it.each([
    ['a reminder sent while the archive is under way', 300],
    ['the archive done before the reminder goes out', 0],
  ])(
    'loses an agent archived in Paseo while its step runs, and does not bring it back (%s)',
    async (_case, archiveDelayMs) => {
      // On the daemon, archiving a running agent cancels its turn (turn_canceled), then marks it
      // archived and closes it about a second later; a message to an archived agent un-archives it
      // and runs it. The reminder for the canceled turn must neither hang the run on a turn the close
      // ends silently nor bring the archived agent back.
      const fake = await daemon({
        archiveDelayMs,
        scripts: { work: [{ turns: [{ hold: true }, { hold: true }] }, reports('done', { count: 4 })] },
      });
      const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
      await run.until((s) => stepRun(s, 'work')!.attempts[0]?.agent !== undefined);
      const first = fake.agentOf('work', 1)!;
      await fake.archive(first.id);
      const state = await run.settled();
      expect(state.status).toBe('completed');
      expect(history(state, 'agent-lost')).toEqual([`work lost: Paseo agent ${first.id} was archived`]);
      expect(first.archivedAt).toBeTruthy();
      expect(stepRun(state, 'work')!.attempts.map((a) => a.outcome)).toEqual([undefined, 'done']);
    },
  );

  it('watches an agent whose create_agent_request answers after its timeout, found by its labels', async () => {
    // Under load the daemon took more than the request's timeout to answer, while the agent it made
    // worked and reported with a token the backend had already revoked.
    const fake = await daemon({
      createAnswerDelayMs: 4000,
      scripts: { work: [{ turns: [{ hold: true, reports: [{ outcome: 'done', outputs: { count: 6 } }] }] }] },
    });
    const run = await start({
      ir: WORK,
      daemon: fake,
      cwd: repo,
      inputs: { task: 'x' },
      backend: { createTimeoutMs: 1000, connection: { requestTimeoutMs: 1000 } },
    });
    await run.until((s) => stepRun(s, 'work')!.attempts[0]?.agent !== undefined);
    const agent = fake.agentOf('work')!;
    fake.release(agent.id);
    const state = await run.settled();
    expect(state.status).toBe('completed');
    expect(history(state, 'agent-lost')).toEqual([]);
    expect(stepRun(state, 'work')!.attempts).toEqual([
      expect.objectContaining({ agent: agent.id, outcome: 'done' }),
    ]);
    expect(fake.received('create_agent_request')).toHaveLength(1);
  });

  it('takes a turn end that comes before the answer to create_agent_request', async () => {
    const fake = await daemon({
      answerCreateLate: true,
      scripts: { work: [reportsWhenReminded('done', { count: 8 })] },
    });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    const state = await run.settled();
    expect(state.status).toBe('completed');
    expect(fake.agentOf('work')!.followUps).toEqual([REMINDER]);
    expect(stepRun(state, 'work')!.attempts[0]).toMatchObject({
      agent: fake.agentOf('work')!.id,
      reminded: true,
    });
  });

  it('loses an agent that stays silent after its reminder too, and retries the step with a new agent', async () => {
    const fake = await daemon({ scripts: { work: [silent(), reports('done', { count: 2 })] } });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    const state = await run.settled();
    expect(state.status).toBe('completed');
    const work = stepRun(state, 'work')!;
    expect(work.attempts.map((a) => ({ outcome: a.outcome, ended: a.ended, reminded: a.reminded }))).toEqual([
      { outcome: undefined, ended: 'lost', reminded: true },
      { outcome: 'done', ended: undefined, reminded: undefined },
    ]);
    expect(fake.agentOf('work', 1)!.followUps).toEqual([REMINDER]);
    expect(fake.agentOf('work', 2)!.followUps).toEqual([]);
    expect(history(state, 'agent-lost')).toEqual([
      'work lost: its agent ended its turn again without a report',
    ]);
  });

  it('fails the run when the step is out of retries and its agent is lost', async () => {
    const fake = await daemon({ scripts: { work: [silent()] } });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    const state = await run.settled();
    expect(summarize(state)).toMatchObject({
      status: 'failed',
      steps: { work: { status: 'lost', attempts: [{ ended: 'lost' }, { ended: 'lost' }] } },
    });
  });

  it('cancels the running turn when the run is canceled, and leaves the agent in place', async () => {
    const fake = await daemon({ scripts: { work: [runsUntilCanceled()] } });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    await run.until((s) => stepRun(s, 'work')!.attempts[0]?.agent !== undefined);
    const agent = fake.agentOf('work')!;
    expect(agent.status).toBe('running');
    expect(run.driver.dispatch({ type: 'cancel', reason: 'the operator canceled it' })).toBeUndefined();
    await vi.waitFor(() => expect(fake.received('cancel_agent_request')).toHaveLength(1), { interval: 5 });
    expect(fake.received('cancel_agent_request')[0]).toMatchObject({ agentId: agent.id });
    await vi.waitFor(() => expect(agent.status).toBe('idle'), { interval: 5 });
    const state = await run.settled();
    expect(summarize(state)).toMatchObject({
      status: 'canceled',
      reason: 'the operator canceled it',
      steps: { work: { status: 'canceled', attempts: [{ ended: 'canceled' }] } },
    });
    // The turn_canceled that answers the cancel is not taken for a silent turn: no reminder.
    expect(agent.followUps).toEqual([]);
    expect(fake.agents.get(agent.id)!.archivedAt).toBeNull();
    expect(run.backend.endpoint.liveTokens()).toBe(0);
  });

  it('stops an agent whose slow creation answers after the run was canceled and the backend closed', async () => {
    const fake = await daemon({ holdCreates: true, scripts: { work: [runsUntilCanceled()] } });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    await vi.waitFor(() => expect(fake.heldCreates).toBe(1), { interval: 5 });
    expect(run.driver.dispatch({ type: 'cancel', reason: 'Ctrl-C' })).toBeUndefined();
    // The run process exits: it closes the backend while the creation is still under way.
    const closing = run.backend.close();
    fake.releaseCreates();
    await closing;
    const agent = fake.agentOf('work')!;
    expect(fake.received('cancel_agent_request')).toEqual([expect.objectContaining({ agentId: agent.id })]);
    expect(agent.status).toBe('idle');
    expect(agent.turn).toBeUndefined();
  });

  it('stops an agent whose slow creation answers after the backend closed, canceled or not', async () => {
    const fake = await daemon({ holdCreates: true, scripts: { work: [runsUntilCanceled()] } });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    await vi.waitFor(() => expect(fake.heldCreates).toBe(1), { interval: 5 });
    const closing = run.backend.close();
    fake.releaseCreates();
    await closing;
    const agent = fake.agentOf('work')!;
    expect(fake.received('cancel_agent_request')).toEqual([expect.objectContaining({ agentId: agent.id })]);
    expect(agent.status).toBe('idle');
  });

  it('fails the attempt of a read-only role that changed the worktree, whatever it reports', async () => {
    const ir = playbook(
      `  review:
    role: rev
    prompt: Review.
`,
      `roles:\n  rev:\n    base: reviewer\n`,
    );
    const fake = await daemon({ scripts: { review: [writesThenReports('notes.txt', 'done')] } });
    const run = await start({ ir, daemon: fake, cwd: repo });
    const state = await run.settled();
    expect(summarize(state)).toMatchObject({
      status: 'failed',
      steps: { review: { status: 'failed', attempts: [{ ended: 'read-only' }] } },
    });
    expect(stepRun(state, 'review')!.reason).toContain('notes.txt');
    // The report was taken by the endpoint, then dropped for the violation.
    await fake.quiet();
    expect(fake.reports.map((r) => r.refused)).toEqual([false]);
    expect(fake.agentOf('review')!.initialPrompt).toContain('Your role is read-only');
  });

  it('feeds a read-only role its clean report when its turn ends', async () => {
    const ir = playbook(
      `  review:
    role: rev
    prompt: Review.
`,
      `roles:\n  rev:\n    base: reviewer\n    instructions: Look for bugs only.\n`,
    );
    const fake = await daemon({ scripts: { review: [reports('done')] } });
    const run = await start({ ir, daemon: fake, cwd: repo });
    const state = await run.settled();
    expect(state.status).toBe('completed');
    expect(fake.received('create_agent_request')[0]).toMatchObject({
      config: { systemPrompt: 'Look for bugs only.' },
    });
  });

  it('loses a step whose agent Paseo cannot create, with the daemon\u2019s reason', async () => {
    const ir = playbook(
      `  work:
    role: odd
    prompt: Work.
`,
      `roles:\n  odd:\n    base: implementer\n    provider: nosuchprovider\n`,
    );
    const fake = await daemon();
    const run = await start({ ir, daemon: fake, cwd: repo });
    const state = await run.settled();
    expect(state.status).toBe('failed');
    expect(history(state, 'agent-lost')).toEqual([
      'work lost: Paseo could not create its agent: Unknown provider "nosuchprovider"',
    ]);
  });
});

describe('the paseo backend when the daemon goes away', () => {
  it('loses the running agents of a daemon that restarted without them, and retries on the new one', async () => {
    const fake = await daemon({ scripts: { work: [runsUntilCanceled(), reports('done', { count: 5 })] } });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    await run.until((s) => stepRun(s, 'work')!.attempts[0]?.agent !== undefined);
    const first = fake.agentOf('work', 1)!.id;
    fake.restart();
    const state = await run.settled();
    expect(state.status).toBe('completed');
    const work = stepRun(state, 'work')!;
    expect(work.attempts.map((a) => a.ended ?? a.outcome)).toEqual(['lost', 'done']);
    expect(history(state, 'agent-lost')).toEqual([
      `work lost: the Paseo daemon no longer has agent ${first} (it restarted without it)`,
    ]);
    expect(fake.hellos).toHaveLength(2);
    expect(run.backend.agentExists(first)).toBe(false);
    expect(run.backend.agentExists(work.attempts[1]!.agent)).toBe(true);
  });

  it('says an agent archived while the connection was down was archived (the daemon lists it only when asked)', async () => {
    const fake = await daemon({ scripts: { work: [runsUntilCanceled(), reports('done', { count: 5 })] } });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    await run.until((s) => stepRun(s, 'work')!.attempts[0]?.agent !== undefined);
    const first = fake.agentOf('work', 1)!;
    fake.setOffline(true);
    first.archivedAt = new Date().toISOString();
    fake.setOffline(false);
    const state = await run.settled();
    expect(state.status).toBe('completed');
    expect(history(state, 'agent-lost')).toEqual([`work lost: Paseo agent ${first.id} was archived`]);
    expect(
      fake
        .received('fetch_agents_request')
        .every((r) => (r.filter as { includeArchived?: boolean }).includeArchived),
    ).toBe(true);
    expect(run.backend.agentExists(first.id)).toBe(false);
    expect(run.backend.agentGone(first.id)).toBe(`Paseo agent ${first.id} was archived`);
  });

  it('finds on reconnection a turn that ended while the connection was down', async () => {
    // The agent's turn is held; it ends without a report while the daemon refuses connections, so
    // its turn_completed reaches nobody. The reminder comes once the connection is back.
    const fake = await daemon({
      scripts: {
        work: [{ turns: [{ hold: true }, { reports: [{ outcome: 'done', outputs: { count: 9 } }] }] }],
      },
    });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    await run.until((s) => stepRun(s, 'work')!.attempts[0]?.agent !== undefined);
    const agent = fake.agentOf('work')!;
    fake.setOffline(true);
    fake.release(agent.id);
    await vi.waitFor(() => expect(agent.status).toBe('idle'), { interval: 5 });
    fake.setOffline(false);
    const state = await run.settled();
    expect(state.status).toBe('completed');
    expect(agent.followUps).toEqual([REMINDER]);
    expect(stepRun(state, 'work')!.attempts[0]).toMatchObject({ reminded: true, outcome: 'done' });
    expect(run.backend.client.connections).toBe(2);
  });

  it('carries on through garbage frames mid-run', async () => {
    const fake = await daemon({
      scripts: { work: [runsUntilCanceled({ outcome: 'done', outputs: { count: 4 } })] },
    });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    await run.until((s) => stepRun(s, 'work')!.attempts[0]?.agent !== undefined);
    fake.sendGarbage();
    fake.release(fake.agentOf('work')!.id);
    const state = await run.settled();
    expect(state.status).toBe('completed');
    expect(run.logs.filter((l) => l.level === 'warn').length).toBeGreaterThanOrEqual(5);
    expect(run.backend.client.connections).toBe(1);
  });

  it('says clearly that a daemon that is down at connect cannot be reached', async () => {
    const fake = await FakePaseoDaemon.start();
    const host = fake.host;
    await fake.close();
    await expect(
      PaseoBackend.connect({ host, cwd: repo, workspace: 'current', runId: 'r-1', playbook: 't' }),
    ).rejects.toThrow(/cannot reach the Paseo daemon at ws:\/\/127\.0\.0\.1:\d+\/ws: .*ECONNREFUSED/);
  });

  it('refuses to start on a protected daemon without the password', async () => {
    const fake = await daemon({ password: 'pw' });
    await expect(
      PaseoBackend.connect({ host: fake.host, cwd: repo, workspace: 'current', runId: 'r-1', playbook: 't' }),
    ).rejects.toThrow(/close code 4401/);
    const backend = await PaseoBackend.connect({
      host: fake.host,
      password: 'pw',
      cwd: repo,
      workspace: 'current',
      runId: 'r-1',
      playbook: 't',
    });
    await backend.close();
  });

  it('takes up the agents of a restarted runtime: one that ends its turn is lost, and the step retries', async () => {
    const fake = await daemon({
      scripts: {
        work: [runsUntilCanceled({ outcome: 'done', outputs: { count: 1 } }), reports('done', { count: 2 })],
      },
    });
    const first = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' } });
    await first.until((s) => stepRun(s, 'work')!.attempts[0]?.agent !== undefined);
    const agent = stepRun(first.state, 'work')!.attempts[0]!.agent!;
    // The runtime goes away; its agent works on. A new process takes the run up.
    await first.close();
    const backend = await PaseoBackend.connect({
      host: fake.host,
      cwd: repo,
      workspace: 'current',
      runId: first.state.id,
      playbook: 't',
      log: () => {},
    });
    cleanup.push(() => backend.close());
    expect(backend.agentExists(agent)).toBe(true);
    const driver = new Driver(first.state, { backend });
    backend.adopt(driver.context);
    // Its turn ends (its report goes to the old process's endpoint, which is gone): lost, retried.
    fake.release(agent);
    await vi.waitFor(() => expect(driver.state.status).toBe('completed'), { timeout: 10_000, interval: 10 });
    const work = stepRun(driver.state, 'work')!;
    expect(work.attempts.map((a) => a.ended ?? a.outcome)).toEqual(['lost', 'done']);
    expect(history(driver.state, 'agent-lost')[0]).toContain(
      `Paseo agent ${agent} outlived a restart of the runtime, and with it the token it reports with`,
    );
    await fake.quiet();
    expect(fake.reports[0]).toMatchObject({ attempt: 1, refused: true });
  });

  describe('with serve\u2019s persistent report endpoint', () => {
    const tokenOf = (agent: FakeAgent) =>
      (agent.config.mcpServers as Record<string, { headers: { Authorization: string } }>)['kairoku-playbook']!
        .headers.Authorization;
    const urlOf = (agent: FakeAgent) =>
      (agent.config.mcpServers as Record<string, { url: string }>)['kairoku-playbook']!.url;

    /** The first process: a run on a shared endpoint kept in a home, until its step's agent works. */
    async function firstProcess(fake: FakePaseoDaemon, home: string, until: (s: RunState) => boolean) {
      const reports = await startSharedReportEndpoint({ home, portFile: join(home, 'reports.json') });
      reports.open();
      const run = await start({
        ir: WORK,
        daemon: fake,
        cwd: repo,
        inputs: { task: 'x' },
        backend: { reports },
      });
      await run.until(until);
      return { run, reports };
    }

    /** The next process: the endpoint started again from the home, the run taken up, then opened. */
    async function nextProcess(fake: FakePaseoDaemon, home: string, state: RunState) {
      const reports = await startSharedReportEndpoint({ home, portFile: join(home, 'reports.json') });
      cleanup.push(() => reports.close());
      const backend = await PaseoBackend.connect({
        host: fake.host,
        cwd: repo,
        workspace: 'current',
        runId: state.id,
        playbook: 't',
        reports,
        log: () => {},
      });
      cleanup.push(() => backend.close());
      const driver = new Driver(state, { backend });
      backend.adopt(driver.context);
      reports.open();
      return { reports, backend, driver };
    }

    it('an adopted agent reports through the address and token it was given; an ended attempt\u2019s token stays refused', async () => {
      const home = join(root, 'home');
      const fake = await daemon({
        scripts: { work: [silent(), runsUntilCanceled({ outcome: 'done', outputs: { count: 2 } })] },
      });
      // Attempt 1 is silent (reminded, then lost); attempt 2 works when the runtime goes away.
      const first = await firstProcess(
        fake,
        home,
        (s) => stepRun(s, 'work')!.attempts[1]?.agent !== undefined,
      );
      const ended = fake.agentOf('work', 1)!;
      const agent = fake.agentOf('work', 2)!;
      expect(agent.labels['kairoku.report-port']).toBe(new URL(first.reports.url).port);
      await first.run.close();
      await first.reports.close();

      const next = await nextProcess(fake, home, first.run.state);
      expect(next.reports.url).toBe(urlOf(agent));
      expect(next.reports.liveTokens()).toBe(1);
      const refused = await fetch(next.reports.url, {
        method: 'POST',
        headers: { authorization: tokenOf(ended), 'content-type': 'application/json', connection: 'close' },
        body: '{}',
      });
      expect(refused.status).toBe(401);
      fake.release(agent.id);
      await vi.waitFor(() => expect(next.driver.state.status).toBe('completed'), {
        timeout: 10_000,
        interval: 10,
      });
      const work = stepRun(next.driver.state, 'work')!;
      expect(work.attempts.map((a) => a.ended ?? a.outcome)).toEqual(['lost', 'done']);
      expect(next.driver.state.outputs).toEqual({ count: 2 });
      // No third agent: the adopted one's report was taken.
      expect(fake.agentOf('work', 3)).toBeUndefined();
      await fake.quiet();
      expect(fake.reports.filter((r) => r.attempt === 2)).toMatchObject([{ refused: false }]);
      expect(next.reports.liveTokens()).toBe(0);
    });

    it('an agent whose turn ended while no runtime watched is reminded, and its report then lands', async () => {
      const home = join(root, 'home');
      const fake = await daemon({
        scripts: {
          work: [{ turns: [{ hold: true }, { reports: [{ outcome: 'done', outputs: { count: 5 } }] }] }],
        },
      });
      const first = await firstProcess(
        fake,
        home,
        (s) => stepRun(s, 'work')!.attempts[0]?.agent !== undefined,
      );
      const agent = fake.agentOf('work', 1)!;
      await first.run.close();
      await first.reports.close();
      // Its turn ends while the runtime is down.
      fake.release(agent.id);
      await vi.waitFor(() => expect(fake.agentOf('work', 1)!.status).toBe('idle'), { timeout: 10_000 });

      const next = await nextProcess(fake, home, first.run.state);
      await vi.waitFor(() => expect(next.driver.state.status).toBe('completed'), {
        timeout: 10_000,
        interval: 10,
      });
      expect(stepRun(next.driver.state, 'work')!.attempts.map((a) => a.ended ?? a.outcome)).toEqual(['done']);
      expect(fake.agentOf('work', 1)!.followUps).toHaveLength(1);
      expect(fake.agentOf('work', 2)).toBeUndefined();
    });

    it('an agent given a port the restarted endpoint could not take again is lost, with that reason', async () => {
      const home = join(root, 'home');
      const fake = await daemon({
        scripts: {
          work: [
            runsUntilCanceled({ outcome: 'done', outputs: { count: 1 } }),
            reports('done', { count: 2 }),
          ],
        },
      });
      const first = await firstProcess(
        fake,
        home,
        (s) => stepRun(s, 'work')!.attempts[0]?.agent !== undefined,
      );
      const agent = fake.agentOf('work', 1)!;
      const port = Number(new URL(first.reports.url).port);
      await first.run.close();
      await first.reports.close();
      // Another program took the port since: it hangs up on the agent's report.
      const squatter = createNetServer((socket) => socket.destroy());
      await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
      cleanup.push(() => new Promise<void>((resolve) => squatter.close(() => resolve())));

      const next = await nextProcess(fake, home, first.run.state);
      expect(next.reports.movedFrom).toBe(port);
      fake.release(agent.id);
      await vi.waitFor(() => expect(next.driver.state.status).toBe('completed'), {
        timeout: 10_000,
        interval: 10,
      });
      expect(stepRun(next.driver.state, 'work')!.attempts.map((a) => a.ended ?? a.outcome)).toEqual([
        'lost',
        'done',
      ]);
      expect(history(next.driver.state, 'agent-lost')[0]).toContain(
        `Paseo agent ${agent.id} outlived a restart of the runtime: it reports to port ${port}, and the report endpoint listens on ${new URL(next.reports.url).port} now`,
      );
    });
  });

  it('knows after a restart of the runtime which of the run\u2019s agents still exist', async () => {
    const fake = await daemon({ scripts: { work: [runsUntilCanceled()] } });
    const run = await start({ ir: WORK, daemon: fake, cwd: repo, inputs: { task: 'x' }, runId: 't-000001' });
    await run.until((s) => stepRun(s, 'work')!.attempts[0]?.agent !== undefined);
    const agent = stepRun(run.state, 'work')!.attempts[0]!.agent!;
    await run.close();
    const options = {
      host: fake.host,
      cwd: repo,
      workspace: 'current' as const,
      playbook: 't',
      log: () => {},
    };
    const again = await PaseoBackend.connect({ ...options, runId: 't-000001' });
    cleanup.push(() => again.close());
    expect(again.agentExists(agent)).toBe(true);
    expect(again.agentExists('some-other-agent')).toBe(false);
    expect(again.agentExists(undefined)).toBe(false);
    const otherRun = await PaseoBackend.connect({ ...options, runId: 't-000002' });
    cleanup.push(() => otherRun.close());
    expect(otherRun.agentExists(agent)).toBe(false);
    fake.restart();
    const afterRestart = await PaseoBackend.connect({ ...options, runId: 't-000001' });
    cleanup.push(() => afterRestart.close());
    expect(afterRestart.agentExists(agent)).toBe(false);
  });
});

describe('the run\u2019s branch and Paseo\u2019s first-agent branch auto-name', { timeout: 30_000 }, () => {
  const WORKTREE = playbook(
    `  work:
    role: implementer
    prompt: Do \${{ inputs.task }}.
`,
    'inputs:\n  task: { type: string }\nworkspace: new-worktree\n',
  );
  const branchOf = (dir: string) =>
    spawnSync('git', ['-C', dir, 'rev-parse', '--abbrev-ref', 'HEAD'], { encoding: 'utf8' }).stdout.trim();

  it('keeps playbooks/<playbook>-<id> after the first agent, and a second run of the same task runs', async () => {
    const fake = await daemon({ scripts: { work: [reports('done')] } });
    const first = await start({ ir: WORKTREE, daemon: fake, cwd: repo, inputs: { task: 'add a flag' } });
    expect((await first.settled()).status).toBe('completed');
    expect(branchOf(first.backend.worktree)).toBe('playbooks/t-3a9c1f');
    const second = await start({
      ir: WORKTREE,
      daemon: fake,
      cwd: repo,
      inputs: { task: 'add a flag' },
      runId: 't-77aa01',
    });
    expect((await second.settled()).status).toBe('completed');
    expect(branchOf(second.backend.worktree)).toBe('playbooks/t-77aa01');
    expect(fake.autoRenamed).toEqual([]);
    expect(fake.received('create_agent_request')).toHaveLength(2);
  });

  it('names the branch back when the daemon renamed it after the first agent anyway', async () => {
    const fake = await daemon({ scripts: { work: [reports('done')] }, autoNameCheckouts: true });
    const run = await start({ ir: WORKTREE, daemon: fake, cwd: repo, inputs: { task: 'add a flag' } });
    expect((await run.settled()).status).toBe('completed');
    expect(fake.autoRenamed).toEqual([
      { worktree: run.backend.worktree, branch: expect.stringMatching(/^do-add-a-flag/) },
    ]);
    const renamed = fake.autoRenamed[0]!.branch;
    expect(branchOf(run.backend.worktree)).toBe('playbooks/t-3a9c1f');
    expect(run.logs.map((l) => l.message)).toContainEqual(
      expect.stringContaining(`was on branch ${renamed}; it is on playbooks/t-3a9c1f again`),
    );
  });
});
