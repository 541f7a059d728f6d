import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunHost } from '../../src/host/run-host.js';
import { RunStore } from '../../src/store/run-store.js';
import { simBackendFor } from '../../src/serve/backends.js';
import { CONTENT_SECURITY_POLICY, startServe } from '../../src/serve/server.js';
import { BROKEN, openEvents, prWorkspace, serveOnSim } from '../../../test/kit/index.js';
import type { Answer, Served } from '../../../test/kit/index.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(scenario?: unknown): Promise<Served & { root: string; home: string }> {
  const ws = prWorkspace();
  cleanups.push(ws.cleanup);
  const s = await serveOnSim(ws.root, ws.home, {}, scenario);
  cleanups.push(s.close);
  return { ...s, root: ws.root, home: ws.home };
}

/** A raw request, with headers fetch would not let a test set (Host). */
function raw(
  url: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: Answer; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, body: JSON.parse(text || '{}') as Answer, headers: res.headers }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serve: security', () => {
  it('refuses requests without the session, logs a browser in with the login URL, and puts a CSP on every answer', async () => {
    const { serve, api } = await setup();
    const anonymous = await fetch(`${serve.url}/api/v1/runs`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as Answer).refusal.code).toBe('unauthorized');
    expect(anonymous.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline/);

    const wrong = await fetch(`${serve.url}/?login=nope`, { redirect: 'manual' });
    expect(wrong.status).toBe(401);
    const login = await fetch(serve.loginUrl, { redirect: 'manual' });
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/');
    const cookie = login.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^kairoku_[0-9a-f]{12}=[^;]+; HttpOnly; SameSite=Strict; Path=\//);
    expect(cookie).not.toContain(serve.token);
    const page = await fetch(`${serve.url}/`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(await page.text()).not.toMatch(/<script(?![^>]*src=)/);

    const bearer = await api('/api/v1/runs');
    expect(bearer.status).toBe(200);
    expect(bearer.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    const bad = await api('/api/v1/runs', { headers: { Authorization: 'Bearer wrong' } });
    expect(bad.status).toBe(401);
  });

  it('checks the Host and Origin headers (DNS rebinding, other sites)', async () => {
    const { serve } = await setup();
    const auth = { Authorization: `Bearer ${serve.token}` };
    expect((await raw(serve.url, '/api/v1/runs', { ...auth, Host: `127.0.0.1:${serve.port}` })).status).toBe(
      200,
    );
    expect((await raw(serve.url, '/api/v1/runs', { ...auth, Host: `localhost:${serve.port}` })).status).toBe(
      200,
    );
    const rebound = await raw(serve.url, '/api/v1/runs', { ...auth, Host: `evil.example:${serve.port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.body.refusal.code).toBe('bad-host');
    const foreign = await raw(serve.url, '/api/v1/runs', { ...auth, Origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body.refusal.code).toBe('bad-origin');
    const same = await raw(serve.url, '/api/v1/runs', { ...auth, Origin: serve.url });
    expect(same.status).toBe(200);
  });

  it('refuses to listen where other machines could reach it (there is no TLS)', async () => {
    const ws = prWorkspace();
    cleanups.push(ws.cleanup);
    const host = new RunHost({
      home: ws.home,
      workspace: ws.root,
      backend: 'sim',
      backendFor: simBackendFor(undefined),
    });
    cleanups.push(() => host.close());
    await expect(startServe({ host, listen: { host: '0.0.0.0', port: 0 } })).rejects.toThrow(/wildcard/);
    await expect(startServe({ host, listen: { host: '192.0.2.1', port: 0 } })).rejects.toThrow(
      /loopback only/,
    );
  });

  it('refuses bodies over the limit, bodies that are not JSON, and bodies of the wrong shape', async () => {
    const { api } = await setup();
    const big = await api('/api/v1/runs', { body: { playbook: 'x', inputs: { task: 'x'.repeat(300_000) } } });
    expect(big.status).toBe(413);
    const notJson = await api('/api/v1/runs', {
      body: undefined,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    const shape = await api('/api/v1/runs', { body: { playbook: 'playbooks/pr.yml', inputs: {}, extra: 1 } });
    expect(shape.status).toBe(400);
    expect(shape.body.refusal).toMatchObject({ code: 'bad-request', field: '/extra' });
  });
});

describe('serve: the API', () => {
  it('lists playbooks with their diagnostics and typed inputs; a secret input shows no default', async () => {
    const { api } = await setup();
    const { status, body } = await api('/api/v1/playbooks');
    expect(status).toBe(200);
    const ids = body.playbooks.map((p) => p.id);
    expect(ids).toEqual(['playbooks/broken.yml', 'playbooks/pr.yml']);
    const broken = body.playbooks[0]!;
    const pr = body.playbooks[1]!;
    expect(broken).toMatchObject({ canStart: false, inputs: [] });
    expect(broken.why).toMatch(/error/);
    expect(broken.diagnostics[0]).toMatchObject({ file: 'playbooks/broken.yml', severity: 'error' });
    expect(pr.canStart).toBe(true);
    expect(pr.inputs).toEqual([
      {
        name: 'task',
        type: 'string',
        required: true,
        secret: false,
        description: 'What to build',
        multiline: true,
      },
      { name: 'strict', type: 'boolean', required: false, secret: false, default: false },
      { name: 'reviewers', type: 'integer', required: false, secret: false, default: 1 },
      {
        name: 'target',
        type: 'enum',
        choices: ['main', 'develop'],
        required: false,
        secret: false,
        default: 'main',
      },
      { name: 'api_key', type: 'string', required: false, secret: true },
    ]);
    expect(pr.inputSchema).toMatchObject({ type: 'object' });
  });

  it('starts a run, refuses what does not fit with a typed refusal, decides the gate, and the run completes', async () => {
    const { api } = await setup();
    const badInput = await api('/api/v1/runs', {
      body: { playbook: 'playbooks/pr.yml', inputs: { task: 'x', reviewers: 7 } },
    });
    expect(badInput.status).toBe(422);
    expect(badInput.body.refusal).toMatchObject({ code: 'invalid-input', field: '/inputs/reviewers' });
    const errors = await api('/api/v1/runs', { body: { playbook: 'playbooks/broken.yml', inputs: {} } });
    expect(errors.status).toBe(409);
    expect(errors.body.refusal.code).toBe('playbook-has-errors');
    const unknown = await api('/api/v1/runs', { body: { playbook: 'playbooks/nope.yml', inputs: {} } });
    expect(unknown.status).toBe(404);
    expect((await api('/api/v1/runs')).body.runs).toEqual([]);

    const started = await api('/api/v1/runs', {
      body: { playbook: 'playbooks/pr.yml', inputs: { task: 'Add a flag' } },
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      run: { playbook: 'pr', status: 'running', waiting: 1 },
      warnings: [],
    });
    const id = started.body.run.id as string;
    const busy = await api('/api/v1/runs', {
      body: { playbook: 'playbooks/pr.yml', inputs: { task: 'Add a flag' } },
    });
    expect(busy.status).toBe(409);
    expect(busy.body.refusal.code).toBe('workspace-busy');

    const detail = await api(`/api/v1/runs/${id}`);
    expect(detail.status).toBe(200);
    const ship = detail.body.steps.find((s) => s.name === 'ship')!;
    expect(ship.gate!.choices.map((c) => c.name)).toEqual(['approve', 'reject', 'revise']);
    expect(detail.body.actions).toEqual({
      cancel: true,
      pause: true,
      resume: false,
      archive: false,
      restartFrom: [],
    });
    expect(detail.body.graph.nodes.map((n) => n.name)).toContain('qa');
    expect(detail.body.graph.loops).toContainEqual({
      from: 'qa',
      to: 'implement',
      outcome: 'fail',
      max: 3,
      count: 0,
    });

    const wrongChoice = await api(`/api/v1/runs/${id}/gates/ship`, { body: { choice: 'maybe' } });
    expect(wrongChoice.status).toBe(409);
    expect(wrongChoice.body.refusal.code).toBe('unknown-choice');
    const notGate = await api(`/api/v1/runs/${id}/gates/plan`, { body: { choice: 'approve' } });
    expect(notGate.body.refusal.code).toBe('not-a-gate');
    // A gate the run does not have is not found (docs/serve.md: 404), like a run it does not have.
    const noGate = await api(`/api/v1/runs/${id}/gates/shipp`, { body: { choice: 'approve' } });
    expect(noGate.status).toBe(404);
    expect(noGate.body.refusal).toMatchObject({
      code: 'unknown-step',
      message: expect.stringContaining('did you mean "ship"'),
    });
    const noRun = await api(`/api/v1/runs/nope-000000/pause`, { body: {} });
    expect(noRun.status).toBe(404);

    const decided = await api(`/api/v1/runs/${id}/gates/ship`, {
      body: { choice: 'approve', comment: 'ship it' },
    });
    expect(decided.status).toBe(200);
    expect(decided.body.run.status).toBe('completed');
    expect(decided.body.run.seen).toBe(false);
    expect(decided.body.actions.archive).toBe(true);
    const again = await api(`/api/v1/runs/${id}/gates/ship`, { body: { choice: 'approve' } });
    expect(again.body.refusal.code).toBe('not-waiting');

    // Opening the run marks it seen; archive hides it from the list.
    expect((await api(`/api/v1/runs/${id}`)).body.run.seen).toBe(true);
    expect((await api(`/api/v1/runs/${id}/archive`, { body: {} })).body.run.archived).toBe(true);
    expect((await api('/api/v1/runs')).body.runs).toEqual([]);
    expect((await api('/api/v1/runs?archived=1')).body.runs.map((r) => r.id)).toEqual([id]);

    const restarted = await api(`/api/v1/runs/${id}/restart`, { body: { step: 'ship' } });
    expect(restarted.status).toBe(200);
    expect(restarted.body.run).toMatchObject({ status: 'running', archived: false, waiting: 1 });
    const paused = await api(`/api/v1/runs/${id}/pause`, { body: {} });
    expect(paused.body.actions).toMatchObject({ pause: false, resume: true });
    const canceled = await api(`/api/v1/runs/${id}/cancel`, { body: {} });
    expect(canceled.body.run.status).toBe('canceled');
  });

  it('never shows a secret input’s value: not in answers, events or the run file', async () => {
    const { api, serve, home } = await setup();
    const stream = openEvents(serve.url, serve.token);
    await stream.ready;
    const secret = 'sk-very-secret-value-123';
    const started = await api('/api/v1/runs', {
      body: { playbook: 'playbooks/pr.yml', inputs: { task: 'x', api_key: secret } },
    });
    expect(started.status).toBe(201);
    const id = started.body.run.id as string;
    const detail = await api(`/api/v1/runs/${id}`);
    expect(detail.body.run.inputs.api_key).toMatch(/^•+$/);
    await api(`/api/v1/runs/${id}/gates/ship`, { body: { choice: 'approve' } });
    await stream.next(2);
    stream.close();
    const seen = JSON.stringify([started.body, detail.body, stream.events, (await api('/api/v1/runs')).body]);
    expect(seen).not.toContain(secret);
    for (const name of readdirSync(join(home, 'runs')))
      expect(readFileSync(join(home, 'runs', name), 'utf8')).not.toContain(secret);
  });
});

describe('serve: live updates', () => {
  it('sends the writes of other processes to a run it does not drive', async () => {
    const { api, serve, home } = await setup();
    const started = await api('/api/v1/runs', {
      body: { playbook: 'playbooks/pr.yml', inputs: { task: 'x' } },
    });
    const id = started.body.run.id as string;
    await api(`/api/v1/runs/${id}/cancel`, { body: {} });
    const stream = openEvents(serve.url, serve.token);
    await stream.ready;
    // Another process (a manager agent's MCP server, say) writes the run file serve let go of.
    const elsewhere = new RunStore(home);
    const stored = elsewhere.load(id)!;
    elsewhere.save({ ...stored, archivedAt: new Date().toISOString() });
    const [event] = await stream.next(1);
    expect(event!.event).toBe('run');
    expect(event!.data).toMatchObject({ id, status: 'canceled', archived: true });
    // serve's own writes after it (a restart) follow with later versions.
    const restarted = await api(`/api/v1/runs/${id}/restart`, { body: { step: 'plan' } });
    expect(restarted.status).toBe(200);
    const all = await stream.next(2);
    expect(all[1]!.data.version).toBeGreaterThan(all[0]!.data.version);
    expect(all[1]!.data).toMatchObject({ id, status: 'running' });
    stream.close();
  });

  it('sends every run write to every client, and replays what a reconnecting client missed', async () => {
    const { api, serve } = await setup();
    const one = openEvents(serve.url, serve.token);
    const two = openEvents(serve.url, serve.token);
    await Promise.all([one.ready, two.ready]);
    const started = await api('/api/v1/runs', {
      body: { playbook: 'playbooks/pr.yml', inputs: { task: 'x' } },
    });
    const id = started.body.run.id as string;
    await api(`/api/v1/runs/${id}/steps/ship/nudge`, { body: { message: 'hello' } }).then((r) =>
      expect(r.body.refusal.code).toBe('not-running'),
    );
    await api(`/api/v1/runs/${id}/pause`, { body: {} });
    const [a, b] = await Promise.all([one.next(3), two.next(3)]);
    expect(a).toEqual(b);
    expect(a.every((e) => e.event === 'run' && e.data.id === id)).toBe(true);
    const versions = a.map((e) => e.data.version as number);
    expect([...versions].sort((x, y) => x - y)).toEqual(versions);
    expect(a.at(-1)!.data.status).toBe('paused');
    one.close();

    // Reconnect after the first event: the second and third come again, then new ones.
    const again = openEvents(serve.url, serve.token, a[0]!.id);
    await again.ready;
    expect(await again.next(2)).toEqual(a.slice(1));
    await api(`/api/v1/runs/${id}/resume`, { body: {} });
    const [, , resumed] = await again.next(3);
    expect(resumed!.data.status).toBe('running');
    again.close();
    // Too old to replay: reset.
    const old = openEvents(serve.url, serve.token, '1');
    expect((await old.next(1))[0]!.event).toBe('reset');
    old.close();
    two.close();
  });

  it('says when a playbook changed', async () => {
    const ws = prWorkspace();
    cleanups.push(ws.cleanup);
    const s = await serveOnSim(ws.root, ws.home, { watchPlaybooks: true, watchPlaybooksMs: 50 });
    cleanups.push(s.close);
    const stream = openEvents(s.serve.url, s.serve.token);
    await stream.ready;
    writeFileSync(join(ws.root, 'playbooks', 'new.yml'), BROKEN.replace('broken', 'new'));
    expect((await stream.next(1))[0]!.event).toBe('playbooks');
    stream.close();
  });

  it('takes start options only where the backend has them, checks them, and keeps them in the run file', async () => {
    // The sim backend has none: provider, model and worktree are refused, pointing at the option.
    const sim = await setup();
    const noProvider = await sim.api('/api/v1/runs', {
      body: { playbook: 'playbooks/pr.yml', inputs: { task: 'x' }, options: { provider: 'codex' } },
    });
    expect(noProvider.status).toBe(422);
    expect(noProvider.body.refusal).toMatchObject({ code: 'option-unsupported', field: '/options/provider' });
    // Nor a manager agent of its own (only paseo has one).
    const noAgent = await sim.api('/api/v1/runs', {
      body: { playbook: 'playbooks/pr.yml', inputs: { task: 'x' }, options: { newAgent: true } },
    });
    expect(noAgent.status).toBe(422);
    expect(noAgent.body.refusal).toMatchObject({ code: 'option-unsupported', field: '/options/newAgent' });

    // A host whose backend offers them (as serve --backend paseo does).
    const ws = prWorkspace();
    cleanups.push(ws.cleanup);
    const startOptions = { newAgent: false, worktree: true, agents: { defaultProvider: 'claude' } };
    const s = await serveOnSim(ws.root, ws.home, { startOptions });
    cleanups.push(s.close);
    const cards = await s.api('/api/v1/playbooks');
    expect(cards.body.playbooks.find((p) => p.id === 'playbooks/pr.yml')!.startOptions).toEqual(startOptions);
    for (const [options, field] of [
      [{ provider: 'two words' }, '/options/provider'],
      [{ provider: '' }, '/options/provider'],
      [{ model: 'has space' }, '/options/model'],
      [{ model: 'x'.repeat(201) }, '/options/model'],
      [{ colour: 'red' }, '/options/colour'],
    ] as const) {
      const refused = await s.api('/api/v1/runs', {
        body: { playbook: 'playbooks/pr.yml', inputs: { task: 'x' }, options },
      });
      expect(refused.status, JSON.stringify(options)).toBe(400);
      expect(refused.body.refusal.field, JSON.stringify(options)).toBe(field);
    }
    const started = await s.api('/api/v1/runs', {
      body: {
        playbook: 'playbooks/pr.yml',
        inputs: { task: 'x' },
        options: { provider: 'codex', model: 'gpt-5-codex', worktree: true },
      },
    });
    expect(started.status).toBe(201);
    const id = started.body.run.id as string;
    const stored = JSON.parse(readFileSync(join(ws.home, 'runs', `${id}.json`), 'utf8')) as {
      startOptions: unknown;
      branch: string;
      ir: { workspace: string };
    };
    expect(stored.startOptions).toEqual({ provider: 'codex', model: 'gpt-5-codex' });
    // A worktree of its own: the run's snapshot says new-worktree, and it has its branch.
    expect(stored.ir.workspace).toBe('new-worktree');
    expect(stored.branch).toBe(`playbooks/pr-${id.slice(-6)}`);
  });
});
