import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Dispatch, KairokuBackend } from '../../../src/backends/kairoku/index.js';
import { stepRun } from '@kairoku-playbook/machine';
import { APP_TOKEN, HandRunner, history, post, startApp, startRun } from '../../../../test/kit/index.js';
import { playbook } from '../../helpers.js';

const REPO = '/srv/repo-a';
let app: { backend: KairokuBackend; url: string; faults: string[] } | undefined;

afterEach(async () => {
  await app?.backend.close();
  app = undefined;
});

async function open(options: Parameters<typeof startApp>[1] = {}) {
  app = await startApp(REPO, { heartbeatIntervalMs: 60_000, ...options });
  return app;
}

async function report(
  dispatch: Dispatch,
  args: Record<string, unknown>,
  token = dispatch.agent!.report.token,
) {
  const client = new Client({ name: 'test-agent', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(dispatch.agent!.report.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  try {
    await client.connect(transport);
    const result = await client.callTool({ name: 'report_step_result', arguments: args });
    const text = (result.content as { text: string }[]).map((c) => c.text).join(' ');
    return { ok: !result.isError, text };
  } catch (error) {
    return { ok: false, text: (error as Error).message };
  } finally {
    await client.close().catch(() => undefined);
  }
}

const ONE_AGENT = playbook(
  `  work:
    role: implementer
    prompt: Do the work on \${{ inputs.task }}
    outputs: { branch: string }
`,
  'inputs:\n  task: { type: string }\n',
);

describe('the app credential (RF-012)', { timeout: 30_000 }, () => {
  it('answers 401 to a wrong or missing credential on every route, and 404/405 off the routes', async () => {
    const { url, faults } = await open();
    for (const route of ['heartbeat', 'claim', 'update', 'drain-ack']) {
      const wrong = await post(url, route, {}, 'not-the-app-token-at-all');
      expect(wrong.status).toBe(401);
      expect(wrong.body).toMatchObject({ error: { code: 'unauthorized' } });
      const response = await fetch(`${url}/v1/${route}`, { method: 'POST', body: '{}' });
      expect(response.status).toBe(401);
    }
    expect(faults.some((f) => f.includes('a wrong app credential'))).toBe(true);
    expect((await post(url, 'nope', {})).status).toBe(404);
    expect((await fetch(`${url}/v1/claim`)).status).toBe(405);
  });
});

describe('schemas (ajv on every request)', { timeout: 30_000 }, () => {
  it('refuses malformed requests with 400 and the schema findings', async () => {
    const { url } = await open();
    const bad = [
      ['heartbeat', { runner: 'r1' }],
      ['claim', { runner: 'r1', machine: 'box', repositories: [REPO], free: 0 }],
      ['claim', { runner: 'r1', machine: 'box', repositories: [REPO], free: 1, extra: true }],
      [
        'update',
        {
          runner: 'r1',
          dispatch: 'd-1',
          seq: 1,
          events: Array.from({ length: 51 }, () => ({
            at: new Date().toISOString(),
            kind: 'message',
            text: 'x',
          })),
        },
      ],
      ['update', { runner: 'r1', dispatch: 'd-1', seq: 1, events: [], terminal: { status: 'exploded' } }],
      [
        'update',
        {
          runner: 'r1',
          dispatch: 'd-1',
          seq: 1,
          events: [{ at: 'now', kind: 'message', text: 'x'.repeat(1001) }],
        },
      ],
      ['drain-ack', { runner: 'has spaces', held: [] }],
    ] as const;
    for (const [route, body] of bad) {
      const answer = await post(url, route, body);
      expect(answer.status, `${route} ${JSON.stringify(body).slice(0, 80)}`).toBe(400);
      const error = answer.body.error as { code: string; message: string; details: unknown[] };
      expect(error.code).toBe('bad-request');
      expect(error.details.length).toBeGreaterThan(0);
    }
    const notJson = await post(url, 'claim', '{not json');
    expect(notJson.status).toBe(400);
  });
});

describe('the queue', { timeout: 30_000 }, () => {
  it('hands a dispatch only to a runner that fits: its repository, the machine asked for, free room', async () => {
    const { backend, url } = await open();
    const driver = startRun(backend, ONE_AGENT, 'run-fit', { task: 'x' });
    const elsewhere = new HandRunner(url, 'elsewhere', ['/srv/other']);
    const claimFirst = new HandRunner(url, 'unregistered', [REPO]);
    await expect(claimFirst.claim()).rejects.toThrow(/409.*unknown-runner/);
    await elsewhere.heartbeat();
    expect(await elsewhere.claim(4)).toEqual([]);
    const full = new HandRunner(url, 'full', [REPO], 'box', 0);
    await full.heartbeat();
    expect(await full.claim(1)).toEqual([]);
    const fits = new HandRunner(url, 'fits', ['/srv/other', REPO]);
    await fits.heartbeat();
    const [dispatch] = await fits.claim(3);
    expect(dispatch).toMatchObject({
      run: 'run-fit',
      step: 'work',
      attempt: 1,
      kind: 'agent',
      repository: REPO,
      baseBranch: 'main',
      machine: null,
      wallClockMs: 3_600_000,
      agent: { role: 'implementer', playbookRole: 'implementer', readOnly: false },
    });
    expect(dispatch!.agent!.firstMessage).toContain('Do the work on x');
    expect(dispatch!.agent!.firstMessage).toContain('inputs.task: "x"');
    expect(dispatch!.agent!.policy).toEqual({
      read: true,
      edit: true,
      write: true,
      network: false,
      run: true,
      mcp: false,
    });
    expect(dispatch!.agent!.report.token.length).toBeGreaterThanOrEqual(16);
    expect(await fits.claim(3)).toEqual([]);
    expect(stepRun(driver.state, 'work')!.attempts[0]!.agent).toBe(`kairoku:${dispatch!.id}`);
    expect(backend.agentExists(`kairoku:${dispatch!.id}`)).toBe(true);
  });

  it('sends a run that asks for a machine to that machine only', async () => {
    const { backend, url } = await open();
    backend.setTarget('run-m', { repository: REPO, baseBranch: 'main', machine: 'gpu-1' });
    startRun(backend, ONE_AGENT, 'run-m', { task: 'x' });
    const other = new HandRunner(url, 'other', [REPO], 'box');
    await other.heartbeat();
    expect(await other.claim()).toEqual([]);
    const gpu = new HandRunner(url, 'gpu', [REPO], 'gpu-1');
    await gpu.heartbeat();
    expect((await gpu.claim()).map((d) => d.machine)).toEqual(['gpu-1']);
  });

  it('dispatches a custom role as its fixed-table base, never as an undeclared role (RF-009)', async () => {
    const { backend, url } = await open();
    const ir = playbook(
      `  look:
    role: security-reviewer
    prompt: Look
`,
      `roles:
  security-reviewer:
    base: reviewer
    instructions: Security only.
    tools: { run: ["npm test"] }
`,
    );
    startRun(backend, ir, 'run-role');
    const runner = new HandRunner(url, 'r', [REPO]);
    await runner.heartbeat();
    const [dispatch] = await runner.claim();
    expect(dispatch!.agent).toMatchObject({
      role: 'reviewer',
      playbookRole: 'security-reviewer',
      instructions: 'Security only.',
      readOnly: true,
      policy: { read: true, edit: false, write: false, run: ['npm test'], mcp: false },
    });
  });
});

describe('updates and reports', { timeout: 30_000 }, () => {
  it('refuses an update for a dispatch the runner does not hold (409), noted in the run history', async () => {
    const { backend, url, faults } = await open();
    const driver = startRun(backend, ONE_AGENT, 'run-held', { task: 'x' });
    const holder = new HandRunner(url, 'holder', [REPO]);
    const thief = new HandRunner(url, 'thief', [REPO]);
    await holder.heartbeat();
    await thief.heartbeat();
    const [dispatch] = await holder.claim();
    const refused = await thief.update(dispatch!.id, { terminal: { status: 'completed', exitCode: 0 } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'not-held' } });
    expect((refused.body.error as { message: string }).message).toContain('runner thief does not hold');
    expect(
      history(driver.state).some((h) => h.kind === 'backend' && h.text.includes('thief does not hold')),
    ).toBe(true);
    const unknown = await thief.update('d-unknown');
    expect(unknown.status).toBe(409);
    expect(unknown.body).toMatchObject({ error: { code: 'unknown-dispatch' } });
    expect(faults.some((f) => f.includes('d-unknown'))).toBe(true);
    expect(stepRun(driver.state, 'work')!.status).toBe('running');
  });

  it('refuses a report whose outputs do not fit, then takes a good one; a replayed or revoked token is refused', async () => {
    const { backend, url } = await open();
    const driver = startRun(backend, ONE_AGENT, 'run-report', { task: 'x' });
    const runner = new HandRunner(url, 'r', [REPO]);
    await runner.heartbeat();
    const [dispatch] = await runner.claim();
    const bad = await report(dispatch!, { outcome: 'done', outputs: { branch: 42 } });
    expect(bad.ok).toBe(false);
    expect(bad.text).toContain('does not fit');
    expect(history(driver.state).some((h) => h.kind === 'refused' && h.text.includes('does not fit'))).toBe(
      true,
    );
    const good = await report(dispatch!, { outcome: 'done', summary: 'ok', outputs: { branch: 'feat/x' } });
    expect(good).toMatchObject({ ok: true });
    const replay = await report(dispatch!, { outcome: 'done', outputs: { branch: 'feat/x' } });
    expect(replay.ok).toBe(false);
    expect(replay.text).toMatch(/revoked/);
    expect(driver.state.status).toBe('completed');
    // The replay is written into the run's history, on the step and attempt its token was for.
    expect(history(driver.state).at(-1)).toMatchObject({
      kind: 'refused',
      step: 'work',
      attempt: 1,
      text: expect.stringContaining('this token was revoked'),
    });
    // The runner's terminal status after the report changes nothing; the token stays revoked.
    expect(
      (await runner.update(dispatch!.id, { terminal: { status: 'completed', exitCode: 0 } })).status,
    ).toBe(200);
    expect(backend.tokens()).toEqual({ minted: 1, live: 0 });
    expect(backend.reportEndpoint!.liveTokens()).toBe(0);
    // The ended run, with nothing left queued or held, is let go at the next sweep.
    expect(backend.servedRuns).toContain('run-report');
    backend.sweep();
    expect(backend.servedRuns).not.toContain('run-report');
  });

  it('revokes the token when a dispatch ends without a report; the agent is lost and the step retries', async () => {
    const { backend, url } = await open();
    const ir = playbook(`  work:
    role: implementer
    prompt: Work
    retries: 1
`);
    const driver = startRun(backend, ir, 'run-revoke');
    const runner = new HandRunner(url, 'r', [REPO]);
    await runner.heartbeat();
    const [first] = await runner.claim();
    const ended = await runner.update(first!.id, {
      events: [{ at: new Date().toISOString(), kind: 'message', text: 'bye' }],
      terminal: { status: 'failed', exitCode: 1, reason: 'the agent exited with 1' },
    });
    expect(ended.status).toBe(200);
    const late = await report(first!, { outcome: 'done' });
    expect(late.ok).toBe(false);
    expect(late.text).toMatch(/revoked/);
    const work = stepRun(driver.state, 'work')!;
    expect(work.attempts[0]).toMatchObject({ ended: 'lost' });
    expect(work.attempts).toHaveLength(2);
    // The lost-agent rule after a restart asks this: an ended dispatch's agent no longer exists.
    expect(backend.agentExists(`kairoku:${first!.id}`)).toBe(false);
    expect(backend.agentExists('kairoku:d-from-a-previous-process')).toBe(false);
    expect(history(driver.state).some((h) => h.kind === 'agent-lost' && h.text.includes('exit code 1'))).toBe(
      true,
    );
    // The retry is a new dispatch (a new attempt with a new token), not the old one relaunched.
    const [second] = await runner.claim();
    expect(second).toMatchObject({ step: 'work', attempt: 2 });
    expect(second!.id).not.toBe(first!.id);
    expect(second!.agent!.report.token).not.toBe(first!.agent!.report.token);
    // An update for the ended dispatch is refused, and noted.
    const again = await runner.update(first!.id, { terminal: { status: 'completed' } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'dispatch-ended' } });
  });

  it('turns a check dispatch’s terminal counts into the step’s report', async () => {
    const { backend, url } = await open();
    const ir = playbook(
      `  qa:
    run: [npm test]
    env: { API_KEY: "\${{ inputs.key }}" }
`,
      'inputs:\n  key: { type: string, secret: true }\n',
    );
    const driver = startRun(backend, ir, 'run-check', { key: 'sekrit-value' });
    const runner = new HandRunner(url, 'r', [REPO]);
    await runner.heartbeat();
    const [dispatch] = await runner.claim();
    expect(dispatch).toMatchObject({ kind: 'check', check: { commands: ['npm test'], cwd: null } });
    expect(dispatch!.agent).toBeUndefined();
    const check = {
      outcome: 'fail',
      passed: 3,
      failed: 1,
      skipped: 0,
      todo: 2,
      exit_code: 1,
      summary: '1 failed',
    };
    expect(
      (await runner.update(dispatch!.id, { terminal: { status: 'completed', exitCode: 1, check } })).status,
    ).toBe(200);
    const qa = stepRun(driver.state, 'qa')!;
    expect(qa.attempts[0]).toMatchObject({
      outcome: 'fail',
      outputs: { passed: 3, failed: 1, skipped: 0, todo: 2, exit_code: 1 },
    });
    expect(driver.state.status).toBe('failed');
    expect(JSON.stringify(driver.state)).not.toContain('sekrit-value');
  });

  it('holds a read-only role’s report until the runner’s worktree check; a change fails the attempt', async () => {
    const { backend, url } = await open();
    const ir = playbook(`  review:
    role: reviewer
    prompt: Review
    retries: 1
`);
    const driver = startRun(backend, ir, 'run-ro');
    const runner = new HandRunner(url, 'r', [REPO]);
    await runner.heartbeat();
    const [first] = await runner.claim();
    expect((await report(first!, { outcome: 'done' })).ok).toBe(true);
    expect(stepRun(driver.state, 'review')!.status).toBe('running');
    await runner.update(first!.id, {
      terminal: { status: 'completed', exitCode: 0, worktreeChanges: ['src/a.ts'] },
    });
    const review = stepRun(driver.state, 'review')!;
    expect(review.attempts[0]).toMatchObject({ ended: 'read-only' });
    const [second] = await runner.claim();
    expect((await report(second!, { outcome: 'done' })).ok).toBe(true);
    await runner.update(second!.id, { terminal: { status: 'completed', exitCode: 0, worktreeChanges: [] } });
    expect(driver.state.status).toBe('completed');
  });

  it('cancels a held dispatch on stop-agent: the runner learns it on its next heartbeat and update', async () => {
    const { backend, url } = await open();
    const driver = startRun(backend, ONE_AGENT, 'run-cancel', { task: 'x' });
    const runner = new HandRunner(url, 'r', [REPO]);
    await runner.heartbeat();
    const [dispatch] = await runner.claim();
    driver.dispatch({ type: 'cancel', reason: 'operator' });
    expect(driver.state.status).toBe('canceled');
    const beat = await runner.heartbeat([dispatch!.id]);
    expect(beat.body.cancel).toEqual([dispatch!.id]);
    const update = await runner.update(dispatch!.id, { phase: 'tearing-down' });
    expect(update.body).toMatchObject({ accepted: true, cancel: true });
    expect((await report(dispatch!, { outcome: 'done' })).ok).toBe(false);
    await runner.update(dispatch!.id, { terminal: { status: 'canceled' } });
    expect(backend.dispatches('run-cancel')[0]).toMatchObject({ state: 'ended', end: 'canceled' });
    expect(backend.tokens().live).toBe(0);
  });

  it('records a denied tool call from the curated events in the run history (RF-017)', async () => {
    const { backend, url } = await open();
    const driver = startRun(backend, ONE_AGENT, 'run-deny', { task: 'x' });
    const runner = new HandRunner(url, 'r', [REPO]);
    await runner.heartbeat();
    const [dispatch] = await runner.claim();
    const at = new Date().toISOString();
    await runner.update(dispatch!.id, {
      events: [{ at, kind: 'denial', tool: 'write', text: 'write "../x" denied: outside the worktree' }],
    });
    expect(
      history(driver.state).some(
        (h) => h.kind === 'tool-denied' && h.text.includes('tool call denied: write "../x"'),
      ),
    ).toBe(true);
    expect(backend.dispatches('run-deny')[0]!.events).toHaveLength(1);
  });

  it('writes an agent’s messages, phases and statuses to the run history, at most 30 a dispatch (RF-003)', async () => {
    const { backend, url } = await open();
    const driver = startRun(backend, ONE_AGENT, 'run-events', { task: 'x' });
    const runner = new HandRunner(url, 'r', [REPO]);
    await runner.heartbeat();
    const [dispatch] = await runner.claim();
    const at = new Date().toISOString();
    await runner.update(dispatch!.id, {
      events: [
        { at, kind: 'phase', text: 'running' },
        { at, kind: 'tool-call', tool: 'read', text: 'read "a.ts"' },
        { at, kind: 'tool-result', tool: 'read', text: '12 lines' },
        ...Array.from({ length: 40 }, (_, i) => ({ at, kind: 'message' as const, text: `thought ${i}` })),
      ],
    });
    const notes = history(driver.state).filter((h) => h.kind === 'agent');
    expect(notes[0]).toMatchObject({ step: 'work', attempt: 1, text: 'phase: running' });
    expect(notes.some((n) => n.text.includes('read "a.ts"'))).toBe(false);
    expect(notes).toHaveLength(31);
    expect(notes[29]!.text).toBe('message: thought 28');
    expect(notes[30]!.text).toMatch(/further events of dispatch d-.* are in its view and the runner's log/);
    // The dispatch's view keeps them all (up to its own bound).
    expect(backend.dispatches('run-events')[0]!.events).toHaveLength(43);
  });
});

describe('heartbeats (RF-013)', { timeout: 30_000 }, () => {
  it('fails the dispatches of a runner that misses its heartbeats, never relaunching them; the step retries', async () => {
    // The backend's clock is the test's: a runner misses its heartbeats when the test says so.
    let now = Date.now();
    const { backend, url } = await open({ heartbeatIntervalMs: 1000, missLimit: 2, clock: () => now });
    const ir = playbook(`  work:
    role: implementer
    prompt: Work
    retries: 1
`);
    const driver = startRun(backend, ir, 'run-hb');
    const silent = new HandRunner(url, 'silent', [REPO]);
    await silent.heartbeat();
    const [first] = await silent.claim();
    now += 1500;
    backend.sweep();
    expect(backend.dispatches('run-hb')[0]!.state).toBe('held');
    now += 1000;
    backend.sweep();
    expect(backend.dispatches('run-hb').find((d) => d.id === first!.id)).toMatchObject({
      state: 'ended',
      end: 'lost',
    });
    const work = stepRun(driver.state, 'work')!;
    expect(work.attempts[0]).toMatchObject({ ended: 'lost' });
    expect(
      history(driver.state).some((h) => h.kind === 'agent-lost' && h.text.includes('missed its heartbeats')),
    ).toBe(true);
    expect((await report(first!, { outcome: 'done' })).ok).toBe(false);
    // The silent runner comes back: its old dispatch is to be torn down, and its update refused.
    const back = await silent.heartbeat([first!.id]);
    expect(back.body.cancel).toEqual([first!.id]);
    expect((await silent.update(first!.id, { terminal: { status: 'completed' } })).status).toBe(409);
    // Attempt 2 is a new dispatch; with no retries left after it, losing it too fails the run.
    const [second] = await silent.claim();
    expect(second).toMatchObject({ step: 'work', attempt: 2 });
    now += 5000;
    backend.sweep();
    expect(driver.state.status).toBe('failed');
    expect(stepRun(driver.state, 'work')!.attempts).toHaveLength(2);
    expect(backend.tokens().live).toBe(0);
  });

  it('acknowledges a drain only once the runner holds nothing', async () => {
    const { backend, url } = await open();
    startRun(backend, ONE_AGENT, 'run-drain', { task: 'x' });
    const runner = new HandRunner(url, 'r', [REPO]);
    await runner.heartbeat();
    const [dispatch] = await runner.claim();
    expect(backend.drain('r')).toBe(true);
    expect((await runner.heartbeat([dispatch!.id])).body.drain).toBe(true);
    const early = await post(url, 'drain-ack', { runner: 'r', held: [dispatch!.id] });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ error: { code: 'still-holding' } });
    await runner.update(dispatch!.id, { terminal: { status: 'interrupted', reason: 'draining' } });
    expect((await post(url, 'drain-ack', { runner: 'r', held: [] })).status).toBe(200);
    expect(backend.runnerViews()).toEqual([]);
    expect(APP_TOKEN.length).toBeGreaterThan(16);
  });
});
