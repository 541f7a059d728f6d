/**
 * A stand-in for `kairoku-playbook serve` as panel-api.md describes it, for the page's browser test and
 * its benchmark: node:http on 127.0.0.1, the page from panel/dist, the API under /api/v1 with a small
 * in-memory run that moves one step when the test says so (`advance`), and server-sent events on every
 * change. Its answers follow the contract; its checks of the start request use ajv on the same input
 * schema the page uses. The page against the real `serve` is cli/test/serve-panel.test.ts.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import type {
  CurrentAgentAnswer,
  RunGraphLoop,
  RunGraphNode,
  PlaybookCard,
  Refusal,
  RunDetail,
  RunListItem,
  StepDetail,
} from '@kairoku-playbook/protocol';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
export const TOKEN = 'test-token-0123456789';
export const CSP = "default-src 'self'";

const PR_SCHEMA = {
  type: 'object',
  properties: {
    task: { type: 'string', minLength: 1, description: 'What to build' },
    strict: { type: 'boolean', default: false },
    reviewers: { type: 'integer', minimum: 1, maximum: 3, default: 1 },
    target: { type: 'string', enum: ['main', 'develop'], default: 'main' },
    labels: { type: 'array', items: { type: 'string' } },
    api_key: { type: 'string', writeOnly: true },
  },
  required: ['task'],
  additionalProperties: false,
};

export const PLAYBOOKS: PlaybookCard[] = [
  {
    id: 'playbooks/pr.yml',
    title: 'Open a pull request',
    description: 'Plan, implement, check, review and ship a change.',
    diagnostics: [],
    canStart: true,
    inputs: [
      {
        name: 'task',
        type: 'string',
        description: 'What to build',
        multiline: true,
        required: true,
        secret: false,
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
      { name: 'labels', type: 'list', element: 'string', required: false, secret: false },
      { name: 'api_key', type: 'string', required: false, secret: true },
    ],
    inputSchema: PR_SCHEMA,
    startOptions: { newAgent: false, worktree: true, agents: { defaultProvider: 'claude' } },
  },
  {
    id: 'playbooks/broken.yml',
    title: 'Broken playbook',
    diagnostics: [
      {
        file: 'playbooks/broken.yml',
        line: 7,
        column: 12,
        endLine: 7,
        endColumn: 19,
        severity: 'error',
        code: 'PB2001',
        message: 'Step "build" needs "plan", which is not a step of this playbook.',
      },
    ],
    canStart: false,
    why: 'It has 1 error: fix it, then start it.',
    inputs: [],
    startOptions: { newAgent: false, worktree: false },
  },
];

interface Node extends RunGraphNode {
  /** outcomes the step reports, one per attempt (the last repeats) */
  script: string[];
}

interface FakeRun {
  item: RunListItem;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
  reason?: string;
  manager?: RunDetail['run']['manager'];
  nodes: Node[];
  loops: (RunGraphLoop & { outcomeOf: string })[];
  steps: Map<string, StepDetail>;
  after: StepDetail[];
  version: number;
}

const PR_NODES: Node[] = [
  { name: 'plan', kind: 'agent', needs: [], script: ['done'] },
  { name: 'implement', kind: 'agent', needs: ['plan'], script: ['done'] },
  { name: 'qa', kind: 'check', needs: ['implement'], script: ['passed'] },
  { name: 'review', kind: 'agent', needs: ['qa'], script: ['changes', 'approved'] },
  { name: 'ship', kind: 'gate', needs: ['review'], script: [] },
];

function newStep(node: RunGraphNode): StepDetail {
  return {
    name: node.name,
    kind: node.kind,
    status: 'pending',
    outcome: null,
    summary: null,
    outputs: null,
    reason: null,
    attempts: [],
    inputs: node.needs.map((need) => ({ name: need, source: `steps.${need}.outputs`, value: null })),
    brief: `Do the ${node.name} step of the run.`,
    ...(node.kind === 'agent'
      ? { role: { name: 'implementer', instructions: 'Make the change, run the tests.' } }
      : {}),
    activity: [],
    canNudge: false,
    canRetry: false,
  };
}

export interface FakeApi {
  url: string;
  /** every request the server answered, in order: `POST /api/v1/runs` … */
  requests: string[];
  /** moves a run one step: the running steps report, the ready ones start; false when nothing moved */
  advance(id: string): boolean;
  /** a run started directly, as another page or the CLI would start one */
  addRun(options?: {
    title?: string;
    nodes?: RunGraphNode[];
    loops?: RunGraphLoop[];
    status?: RunListItem['status'];
    /** who manages it, when serve does not drive it (a manager agent, or one being made) */
    manager?: RunDetail['run']['manager'];
  }): string;
  run(id: string): FakeRun | undefined;
  /** ends every event stream, as a restarted server or a dropped network would */
  dropEventStreams(): void;
  /**
   * what a run started from the page's form is made of from now on (addRun's options; by default the PR
   * run): a bench's run that opens at its gate at once, with nothing to advance
   */
  startRunsWith(options: Parameters<FakeApi['addRun']>[0]): void;
  /** every POST body the server received, by path */
  bodies: Map<string, unknown[]>;
  /**
   * serve on Paseo from now on: the first playbook's card offers a new agent and the current agent,
   * which `GET /api/v1/current-agent` answers with this
   */
  offerCurrentAgent(answer: CurrentAgentAnswer): void;
  close(): Promise<void>;
}

/** pr.yml's worst case as `compile` writes it into the IR (serve works it out by running `compile`). */
const PR_BOUNDS = {
  explored: true,
  agentTurns: 17,
  gateDecisions: 3,
  chainTurns: 17,
  longestMs: 14_400_000,
};

function boundsAnswer(playbook: string | null): { status: number; body: unknown } {
  if (playbook === 'playbooks/pr.yml') return { status: 200, body: { playbook, bounds: PR_BOUNDS } };
  if (playbook === 'playbooks/broken.yml')
    return { status: 200, body: { playbook, why: 'the playbook has errors: it has no bound' } };
  const refusal = { code: 'unknown-playbook', message: `there is no playbook "${playbook}"` };
  return { status: 404, body: { refusal } };
}

/** The card as serve on Paseo shows it: a new agent and the current agent offered too. */
function onPaseo(card: PlaybookCard, index: number): PlaybookCard {
  return index === 0
    ? { ...card, startOptions: { ...card.startOptions, newAgent: true, currentAgent: true } }
    : card;
}

export async function startFakeApi(): Promise<FakeApi> {
  let currentAgent: CurrentAgentAnswer | undefined;
  let startedRuns: Parameters<FakeApi['addRun']>[0];
  const runs = new Map<string, FakeRun>();
  const events: { id: number; event: string; data: string }[] = [];
  const clients = new Set<ServerResponse>();
  const requests: string[] = [];
  const bodies = new Map<string, unknown[]>();
  const ajv = new Ajv({ allErrors: false, strict: false });
  const validatePr = ajv.compile(PR_SCHEMA);
  let counter = 0;

  const listItem = (run: FakeRun): RunListItem => ({
    ...run.item,
    waiting: [...run.steps.values()].filter((s) => s.status === 'waiting').length,
  });

  const restartable = (run: FakeRun) =>
    run.item.status === 'running' || run.item.status === 'paused'
      ? []
      : run.nodes
          .filter((node) => node.needs.every((need) => run.steps.get(need)!.status === 'completed'))
          .map((node) => node.name);

  const detailOf = (run: FakeRun): RunDetail => {
    const ended = run.item.status !== 'running' && run.item.status !== 'paused';
    return {
      run: {
        ...listItem(run),
        backend: 'sim',
        inputs: run.inputs,
        outputs: run.outputs,
        ...(run.reason ? { reason: run.reason } : {}),
        ...(run.manager ? { manager: run.manager } : {}),
      },
      graph: {
        nodes: run.nodes.map(({ script: _script, ...node }) => node),
        loops: run.loops.map(({ outcomeOf: _o, ...loop }) => loop),
      },
      steps: [...run.steps.values()],
      after: run.after.map((task) => ({
        ...task,
        startable: ended && task.status === 'pending' && run.item.status === 'completed',
      })),
      actions: {
        cancel: !ended,
        pause: run.item.status === 'running',
        resume: run.item.status === 'paused',
        archive: ended && !run.item.archived,
        restartFrom: restartable(run),
      },
      version: run.version,
    };
  };

  const send = (client: ServerResponse, event: { id: number; event: string; data: string }) =>
    client.write(`id: ${event.id}\nevent: ${event.event}\ndata: ${event.data}\n\n`);

  const written = (run: FakeRun) => {
    run.version += 1;
    const event = {
      id: events.length + 1,
      event: 'run',
      data: JSON.stringify({ ...listItem(run), version: run.version }),
    };
    events.push(event);
    for (const client of clients) send(client, event);
  };

  const startReady = (run: FakeRun) => {
    for (const node of run.nodes) {
      const step = run.steps.get(node.name)!;
      if (step.status !== 'pending') continue;
      if (!node.needs.every((need) => run.steps.get(need)!.status === 'completed')) continue;
      step.attempts.push({ attempt: step.attempts.length + 1, startedAt: new Date().toISOString() });
      if (node.kind === 'gate') {
        step.status = 'waiting';
        step.gate = {
          title: 'Ship the pull request?',
          summary: 'The review approved the change.',
          choices: [
            { name: 'approve', label: 'Approve', comment: 'optional' },
            { name: 'reject', label: 'Reject', comment: 'required' },
          ],
        };
      } else {
        step.status = 'running';
        step.canNudge = node.kind === 'agent';
      }
    }
    if (run.nodes.every((node) => run.steps.get(node.name)!.status === 'completed')) {
      run.item.status = 'completed';
      run.item.endedAt = new Date().toISOString();
      run.item.seen = false;
      run.outputs = { pr: 'https://example.invalid/pull/1' };
    }
  };

  const complete = (run: FakeRun, node: Node) => {
    const step = run.steps.get(node.name)!;
    const attempt = step.attempts[step.attempts.length - 1]!;
    const outcome = node.script[Math.min(step.attempts.length, node.script.length) - 1] ?? 'done';
    attempt.outcome = outcome;
    attempt.summary = `${node.name}: ${outcome} (attempt ${attempt.attempt})`;
    attempt.endedAt = new Date().toISOString();
    step.canNudge = false;
    const loop = run.loops.find((l) => l.from === node.name && l.outcomeOf === outcome && l.count < l.max);
    if (loop) {
      loop.count += 1;
      resetFrom(run, loop.to);
      return;
    }
    step.status = 'completed';
    step.outcome = outcome;
    step.summary = attempt.summary;
    step.outputs = { notes: `${node.name} finished` };
  };

  /** The step and every step that needs it, transitively, back to pending. */
  const resetFrom = (run: FakeRun, name: string) => {
    const reset = new Set([name]);
    for (const node of run.nodes) if (node.needs.some((need) => reset.has(need))) reset.add(node.name);
    for (const stepName of reset) {
      const step = run.steps.get(stepName)!;
      Object.assign(step, {
        status: 'pending',
        outcome: null,
        summary: null,
        outputs: null,
        canNudge: false,
      });
      delete step.gate;
    }
  };

  const addRun: FakeApi['addRun'] = (options = {}) => {
    const id = `run-${String(++counter).padStart(4, '0')}`;
    const nodes: Node[] = options.nodes
      ? options.nodes.map((n) => ({ ...n, script: ['done'] }))
      : PR_NODES.map((n) => ({ ...n, script: [...n.script] }));
    const run: FakeRun = {
      item: {
        id,
        playbook: 'playbooks/pr.yml',
        title: options.title ?? 'Open a pull request',
        status: options.status ?? 'running',
        startedAt: new Date(Date.UTC(2026, 11, 1, 12, 0, counter)).toISOString(),
        archived: false,
        seen: true,
        waiting: 0,
      },
      inputs: {},
      outputs: null,
      nodes,
      loops: options.loops
        ? options.loops.map((l) => ({ ...l, outcomeOf: l.outcome }))
        : [{ from: 'review', to: 'implement', outcome: 'changes', max: 3, count: 0, outcomeOf: 'changes' }],
      steps: new Map(nodes.map((node) => [node.name, newStep(node)])),
      after: options.nodes
        ? []
        : [{ ...newStep({ name: 'summarize', kind: 'agent', needs: [] }), on: ['completed'] }],
      version: 0,
      ...(options.manager ? { manager: options.manager } : {}),
    };
    runs.set(id, run);
    if (run.item.status === 'running') startReady(run);
    written(run);
    return id;
  };

  const advance = (id: string): boolean => {
    const run = runs.get(id);
    if (!run || run.item.status !== 'running') {
      const task = run?.after.find((t) => t.status === 'running');
      if (!run || !task) return false;
      Object.assign(task, { status: 'completed', outcome: 'done', summary: 'Wrote the summary.' });
      task.attempts[task.attempts.length - 1]!.outcome = 'done';
      written(run);
      return true;
    }
    const running = run.nodes.filter((node) => run.steps.get(node.name)!.status === 'running');
    for (const node of running) complete(run, node);
    startReady(run);
    written(run);
    return running.length > 0;
  };

  const refuse = (res: ServerResponse, status: number, refusal: Refusal) => json(res, status, { refusal });
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-security-policy': CSP,
      'cache-control': 'no-store',
    });
    res.end(JSON.stringify(body));
  };
  const readBody = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };

  const asset = (res: ServerResponse, file: string, type: string) => {
    try {
      const body = readFileSync(join(DIST, file));
      res.writeHead(200, { 'content-type': type, 'content-security-policy': CSP });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-security-policy': CSP }).end();
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    requests.push(`${req.method} ${path}`);
    if (req.method === 'GET' && path === '/') {
      if (url.searchParams.get('token') === TOKEN) {
        res.writeHead(303, {
          location: '/',
          'set-cookie': `kairoku_session=${TOKEN}; HttpOnly; SameSite=Strict; Path=/`,
          'content-security-policy': CSP,
        });
        res.end();
        return;
      }
      return asset(res, 'index.html', 'text/html; charset=utf-8');
    }
    const file = /^\/assets\/([a-z-]+\.(js|css|svg))$/.exec(path);
    if (req.method === 'GET' && file)
      return asset(
        res,
        file[1]!,
        { js: 'text/javascript', css: 'text/css', svg: 'image/svg+xml' }[file[2] as 'js'],
      );
    if (!path.startsWith('/api/v1/'))
      return refuse(res, 404, { code: 'not-found', message: `Nothing at ${path}.` });
    const cookie = /(?:^|;\s*)kairoku_session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    if (cookie !== TOKEN && req.headers.authorization !== `Bearer ${TOKEN}`)
      return refuse(res, 401, { code: 'unauthorized', message: 'Open the URL that serve printed.' });

    const route = path.slice('/api/v1'.length);
    if (req.method === 'GET' && route === '/events') {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        'content-security-policy': CSP,
      });
      // A short reconnection delay, so a test of the reconnect does not wait EventSource's default 3 s.
      res.write('retry: 250\n: hello\n\n');
      const last = Number(req.headers['last-event-id'] ?? events.length);
      for (const event of events) if (event.id > last) send(res, event);
      clients.add(res);
      req.on('close', () => clients.delete(res));
      return;
    }
    if (req.method === 'GET' && route === '/playbooks')
      return json(res, 200, { playbooks: currentAgent ? PLAYBOOKS.map(onPaseo) : PLAYBOOKS });
    if (req.method === 'GET' && route === '/bounds') {
      const answer = boundsAnswer(url.searchParams.get('playbook'));
      return json(res, answer.status, answer.body);
    }
    if (req.method === 'GET' && route === '/current-agent')
      return json(res, 200, currentAgent ?? { why: 'the sim backend starts runs on agents of its own' });
    if (req.method === 'GET' && route === '/runs') {
      const archived = url.searchParams.get('archived') === '1';
      const list = [...runs.values()]
        .filter((r) => archived || !r.item.archived)
        .map(listItem)
        .sort((a, b) => b.startedAt.localeCompare(a.startedAt));
      // A page when asked for one, as serve answers (the status filter is left to the page's own).
      const limit = Number(url.searchParams.get('limit') ?? NaN);
      if (!Number.isInteger(limit)) return json(res, 200, { runs: list, total: list.length });
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const more = offset + limit < list.length ? { next: offset + limit } : {};
      return json(res, 200, { runs: list.slice(offset, offset + limit), total: list.length, ...more });
    }
    if (req.method === 'POST' && route === '/runs') {
      const body = await readBody(req);
      bodies.set(path, [...(bodies.get(path) ?? []), body]);
      const options = (body.options ?? {}) as { model?: string };
      // As the paseo backend refuses a model its provider does not have: the page shows it beside the field.
      if (options.model === 'no-such-model')
        return refuse(res, 422, {
          code: 'unknown-model',
          message: 'the provider has no model "no-such-model"',
          field: '/options/model',
        });
      const card = PLAYBOOKS.find((p) => p.id === body.playbook);
      if (!card)
        return refuse(res, 404, {
          code: 'no-such-playbook',
          message: `No playbook ${String(body.playbook)}.`,
        });
      if (!card.canStart)
        return refuse(res, 409, {
          code: 'playbook-has-errors',
          message: card.why ?? 'Fix its errors first.',
        });
      const inputs = (body.inputs ?? {}) as Record<string, unknown>;
      if (!validatePr(inputs)) {
        const error = validatePr.errors![0]!;
        const field = error.instancePath || `/${String(error.params.missingProperty ?? '')}`;
        return refuse(res, 422, {
          code: 'invalid-input',
          message: `${field.slice(1)} ${error.message ?? 'is invalid'}.`,
          field: `/inputs${field}`,
        });
      }
      const id = addRun(startedRuns);
      const run = runs.get(id)!;
      run.inputs = Object.fromEntries(
        Object.entries(inputs).map(([k, v]) => [k, k === 'api_key' ? '••••' : v]),
      );
      return json(res, 201, { run: listItem(run), warnings: [] });
    }
    const match = /^\/runs\/([^/]+)(?:\/(.*))?$/.exec(route);
    const run = match ? runs.get(decodeURIComponent(match[1]!)) : undefined;
    if (!match || !run) return refuse(res, 404, { code: 'no-such-run', message: 'No such run.' });
    const action = match[2] ?? '';
    if (req.method === 'GET' && action === '') {
      if (run.item.status === 'completed' && !run.item.seen) {
        run.item.seen = true;
        written(run);
      }
      return json(res, 200, detailOf(run));
    }
    if (req.method !== 'POST') return refuse(res, 404, { code: 'not-found', message: 'No such route.' });
    const body = await readBody(req);
    bodies.set(path, [...(bodies.get(path) ?? []), body]);
    const ended = run.item.status !== 'running' && run.item.status !== 'paused';
    const notNow = (message: string) => refuse(res, 409, { code: 'not-now', message });
    if (action === 'pause' || action === 'resume' || action === 'cancel') {
      if (ended) return notNow('The run has ended.');
      run.item.status = action === 'pause' ? 'paused' : action === 'resume' ? 'running' : 'canceled';
      if (action === 'cancel') run.item.endedAt = new Date().toISOString();
    } else if (action === 'archive') {
      if (!ended) return notNow('Only an ended run can be archived: cancel it first.');
      run.item.archived = true;
    } else if (action === 'restart') {
      const step = String(body.step ?? '');
      if (!restartable(run).includes(step)) return notNow(`The run cannot restart from ${step}.`);
      resetFrom(run, step);
      Object.assign(run.item, { status: 'running', endedAt: undefined, seen: true });
      run.outputs = null;
      for (const task of run.after) Object.assign(task, { status: 'pending' });
      startReady(run);
    } else if (action.startsWith('gates/')) {
      const step = run.steps.get(decodeURIComponent(action.slice('gates/'.length)));
      if (!step?.gate || step.status !== 'waiting') return notNow('That gate is not waiting for a decision.');
      const choice = step.gate.choices.find((c) => c.name === body.choice);
      if (!choice)
        return refuse(res, 409, { code: 'unknown-choice', message: 'Choose one of the gate’s choices.' });
      if (choice.comment === 'required' && !body.comment)
        return refuse(res, 409, {
          code: 'comment-required',
          message: `${choice.label ?? choice.name} needs a comment.`,
        });
      const attempt = step.attempts[step.attempts.length - 1]!;
      attempt.outcome = choice.name;
      attempt.summary = typeof body.comment === 'string' ? body.comment : undefined;
      delete step.gate;
      step.outcome = choice.name;
      step.summary = attempt.summary ?? null;
      if (choice.name === 'reject') {
        step.status = 'failed';
        Object.assign(run.item, { status: 'failed', endedAt: new Date().toISOString() });
        run.reason = 'ship: rejected';
      } else {
        step.status = 'completed';
        startReady(run);
      }
    } else if (/^steps\/[^/]+\/(nudge|retry)$/.test(action)) {
      // accepted: the fake's agents need no nudging
    } else if (/^after\/[^/]+\/start$/.test(action)) {
      const task = run.after.find((t) => t.name === decodeURIComponent(action.split('/')[1]!));
      if (!task || task.status !== 'pending' || !ended) return notNow('That after-task cannot start now.');
      task.status = 'running';
      task.attempts.push({ attempt: task.attempts.length + 1, startedAt: new Date().toISOString() });
    } else return refuse(res, 404, { code: 'not-found', message: 'No such route.' });
    written(run);
    return json(res, 200, detailOf(run));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      refuse(res, 400, { code: 'bad-request', message: String(error) }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    advance,
    addRun,
    startRunsWith: (options) => {
      startedRuns = options;
    },
    offerCurrentAgent: (answer) => {
      currentAgent = answer;
    },
    run: (id) => runs.get(id),
    bodies,
    dropEventStreams: () => {
      for (const client of clients) client.end();
      clients.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of clients) client.end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
