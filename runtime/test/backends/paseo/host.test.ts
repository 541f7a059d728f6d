/**
 * `kairoku-playbook mcp --agents paseo`: a Playbook Manager that is itself a Paseo agent, driving runs
 * through the SDK's real MCP client over stdio streams (`serveMcp` in process), with its step agents
 * made as its subagents on the fake Paseo daemon. Reports arrive while no tool call is in flight and
 * land in the stored run; the manager agent is woken, only while idle, with merged wake-ups; a
 * restarted server takes the run up again.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Readable, Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PaseoClient } from '../../../src/backends/paseo/client.js';
import { advance, createRun, REMINDER, stepRun, vecToArray } from '@kairoku-playbook/machine';
import type { RunState } from '@kairoku-playbook/machine';
import { StoreBackedContext } from '../../../src/backends/paseo/store-context.js';
import { serveMcp } from '../../../src/mcp/server.js';
import type { RunningServer } from '../../../src/mcp/server.js';
import { RunHost } from '../../../src/host/run-host.js';
import { RunStore } from '../../../src/store/run-store.js';
import {
  FakePaseoDaemon,
  gitRepo,
  removeDir,
  runsUntilCanceled,
  silent,
  tempDir,
} from '../../../../test/kit/index.js';
import type { AgentScript, FakeAgent, Scripts } from '../../../../test/kit/index.js';
import { playbook } from '../../helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The client side of stdio over two in-process streams (the server's stdout and stdin). */
class StreamTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {}

  start(): Promise<void> {
    this.input.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage())
        this.onmessage?.(message);
    });
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.output.write(serializeMessage(message));
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.output.end();
    this.onclose?.();
    return Promise.resolve();
  }
}

interface Manager {
  running: RunningServer;
  client: Client;
  call(name: string, args?: Json): Promise<Json>;
  refuse(name: string, args?: Json): Promise<string>;
  /** what the server logged (stderr) */
  warnings: string[];
  /** the client goes (stdin ends); resolves once the server has let go of its runs */
  stop(): Promise<void>;
}

let root: string;
let repo: string;
let home: string;
const cleanup: (() => Promise<void> | void)[] = [];

beforeEach(() => {
  root = tempDir('kp-paseo-');
  repo = gitRepo({ dir: join(root, 'repo') });
  home = tempDir('kp-mcp-paseo-home-');
  cleanup.push(() => rmSync(home, { recursive: true, force: true }));
});

afterEach(async () => {
  for (const done of cleanup.splice(0).reverse()) await done();
  removeDir(root);
});

/** The playbook `duo` (and `pair`) in the repository's playbooks/ folder. */
function writePlaybooks(): void {
  mkdirSync(join(repo, 'playbooks'), { recursive: true });
  writeFileSync(
    join(repo, 'playbooks', 'duo.yml'),
    `version: 1
id: duo
title: Two steps and a quiet one
inputs:
  task: { type: string }
steps:
  first:
    role: implementer
    prompt: Do the first part of \${{ inputs.task }}.
    outputs:
      note: string
  second:
    needs: [first]
    role: implementer
    prompt: Do the second part, after \${{ steps.first.outputs.note }}.
    outputs:
      note: string
  quiet:
    needs: [second]
    role: implementer
    prompt: Look over the work.
`,
  );
  writeFileSync(
    join(repo, 'playbooks', 'pair.yml'),
    `version: 1
id: pair
title: Two steps side by side
steps:
  left:
    role: implementer
    retries: 1
    prompt: Do the left part.
  right:
    role: implementer
    retries: 1
    prompt: Do the right part.
`,
  );
  writeFileSync(
    join(repo, 'playbooks', 'slow.yml'),
    `version: 1
id: slow
title: A check, then a step that takes too long
steps:
  look:
    run: [git status --short]
  wait:
    needs: [look]
    role: implementer
    timeout: 1s
    prompt: Take your time.
`,
  );
}

async function daemon(scripts: Scripts): Promise<FakePaseoDaemon> {
  const fake = await FakePaseoDaemon.start({ home: root, scripts });
  cleanup.push(() => fake.close());
  return fake;
}

/** The manager agent on the fake daemon: idle, no labels (its turns are scripted under the key ''). */
async function managerAgent(fake: FakePaseoDaemon): Promise<FakeAgent> {
  const client = await PaseoClient.connect({ host: fake.host, reconnect: false, log: () => undefined });
  try {
    const answer = await client.request('create_agent_request', {
      config: { provider: 'claude', cwd: repo, title: 'Playbook Manager' },
    });
    return fake.agents.get(String(answer.agentId))!;
  } finally {
    await client.close();
  }
}

/** Sends an agent a message on the daemon, as a person in Paseo's app would. */
async function say(fake: FakePaseoDaemon, agentId: string, text: string): Promise<void> {
  const client = await PaseoClient.connect({ host: fake.host, reconnect: false, log: () => undefined });
  try {
    await client.request('send_agent_message_request', { agentId, text });
  } finally {
    await client.close();
  }
}

async function archive(fake: FakePaseoDaemon, agentId: string): Promise<void> {
  const client = await PaseoClient.connect({ host: fake.host, reconnect: false, log: () => undefined });
  try {
    await client.request('archive_agent_request', { agentId });
  } finally {
    await client.close();
  }
}

async function serve(fake: FakePaseoDaemon, manager: string, managerWatchMs?: number): Promise<Manager> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const warnings: string[] = [];
  const running = await serveMcp({
    version: '0.0.0-test',
    workspace: repo,
    home,
    agents: 'paseo',
    paseo: {
      host: fake.host,
      managerAgent: manager,
      connection: { reconnect: { initialDelayMs: 10, maxDelayMs: 100 }, requestTimeoutMs: 10_000 },
      tickMs: 100,
      ...(managerWatchMs !== undefined ? { managerWatchMs } : {}),
    },
    stdin,
    stdout,
    log: (line) => warnings.push(line),
  });
  const client = new Client({ name: 'paseo-manager', version: '1.0.0' });
  await client.connect(new StreamTransport(stdout, stdin));
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await client.close();
    await running.closed;
  };
  cleanup.push(async () => {
    await stop();
    expect(warnings).toEqual([]);
  });
  const text = async (name: string, args: Json, error: boolean) => {
    const result = await client.callTool({ name, arguments: args });
    const body = (result.content as { text: string }[]).map((c) => c.text).join('\n');
    if (Boolean(result.isError) !== error)
      throw new Error(
        `${name} ${JSON.stringify(args)} ${error ? 'was not refused' : 'was refused'}: ${body}`,
      );
    return body;
  };
  return {
    running,
    client,
    call: async (name, args = {}) => JSON.parse(await text(name, args, false)) as Json,
    refuse: (name, args = {}) => text(name, args, true),
    warnings,
    stop,
  };
}

/** The run as stored: what every process sees. */
function stored(id: string): RunState {
  return new RunStore(home).load(id)!;
}

async function until<T>(what: () => T | undefined | false, timeout = 15_000): Promise<T> {
  return vi.waitFor(
    () => {
      const value = what();
      if (value === undefined || value === false) throw new Error('not yet');
      return value;
    },
    { timeout, interval: 10 },
  );
}

function status(id: string, step: string): string | undefined {
  return stepRun(stored(id), step)?.status;
}

/** Holds its turn until the test releases it, then reports. */
function reportsWhenReleased(
  outcome: string,
  outputs: Record<string, unknown>,
  summary: string,
): AgentScript {
  return { turns: [{ hold: true, reports: [{ outcome, outputs, summary }] }] };
}

describe('kairoku-playbook mcp --agents paseo: the manager is a Paseo agent', () => {
  it('makes step agents its subagents, applies their reports while idle, and wakes it with merged wake-ups', async () => {
    writePlaybooks();
    const fake = await daemon({
      first: [reportsWhenReleased('done', { note: 'n1' }, 'the first part is done')],
      second: [reportsWhenReleased('done', { note: 'n2' }, 'the second part is done')],
      quiet: [silent()],
      // The manager: its first wake-up ends at once; its second turn (a person's message) holds.
      '': [{ turns: [{}, { hold: true }] }],
    });
    const manager = await managerAgent(fake);
    const session = await serve(fake, manager.id);
    const waker = session.running.paseo!.waker!;
    await until(() => waker.status === 'idle');

    const started = await session.call('start_playbook', { playbook: 'duo', inputs: { task: 'the flag' } });
    const run = started.run as string;
    expect(stored(run).backend).toBe('paseo');
    expect(stored(run).manager).toContain(`Paseo agent ${manager.id}`);

    // start_step creates the step's agent as a subagent of the manager, in the run's workspace.
    const first = await session.call('start_step', { run, step: 'first', brief: 'keep it small' });
    expect(first.started).toMatchObject({ step: 'first', attempt: 1, kind: 'agent' });
    expect(first.started.paseo.what).toContain(manager.id);
    const agent = await until(() => fake.agentOf('first'));
    expect(agent.labels).toEqual({
      'kairoku.run': run,
      'kairoku.playbook': 'duo',
      'kairoku.step': 'first',
      'kairoku.attempt': '1',
      'kairoku.report-port': expect.stringMatching(/^\d+$/),
      'paseo.parent-agent-id': manager.id,
    });
    expect(agent.cwd).toBe(repo);
    expect(agent.initialPrompt).toContain('keep it small');
    // Its id becomes the attempt's handle, written to the store by the server on its own.
    await until(() => stepRun(stored(run), 'first')!.attempts[0]!.agent === agent.id);

    // The agent reports through the endpoint while no tool call is in flight: the stored run has it.
    fake.release(agent.id);
    await until(() => status(run, 'first') === 'reported');
    expect(stepRun(stored(run), 'first')!.attempts[0]).toMatchObject({
      outcome: 'done',
      summary: 'the first part is done',
      outputs: { note: 'n1' },
    });
    const view = await session.call('get_run', { run });
    expect(view.steps.find((s: Json) => s.name === 'first')).toMatchObject({ status: 'reported' });
    expect(view.events.join('\n')).toContain('first reported done');

    // The manager, idle, is sent one wake-up.
    await until(() => manager.followUps.length === 1);
    expect(manager.followUps[0]).toContain(`Playbook run ${run}:`);
    expect(manager.followUps[0]).toContain('first reported done: the first part is done');
    await until(() => manager.turns === 1 && manager.status === 'idle' && waker.status === 'idle');

    const completed = await session.call('complete_step', { run, step: 'first', outcome: 'done' });
    expect(completed.ready).toEqual([{ step: 'second', kind: 'agent' }]);
    await session.call('start_step', { run, step: 'second' });
    const second = await until(() => fake.agentOf('second'));
    await until(() => stepRun(stored(run), 'second')!.attempts[0]!.agent === second.id);

    // A person talks to the manager: its turn runs, so a report meanwhile is queued, not sent.
    await say(fake, manager.id, 'How is the run going?');
    await until(() => waker.status === 'running' && manager.turns === 2);
    fake.release(second.id);
    await until(() => status(run, 'second') === 'reported');
    await until(() => waker.queued === 1);
    expect(manager.followUps).toHaveLength(2);
    expect(manager.followUps[1]).toBe('How is the run going?');

    // The end of the manager's turn lets the queued wake-up go.
    fake.release(manager.id);
    await until(() => manager.followUps.length === 3);
    expect(manager.followUps[2]).toContain('second reported done: the second part is done');
    expect(waker.queued).toBe(0);
    await until(() => manager.status === 'idle' && waker.status === 'idle');

    // A silent agent is reminded, then lost; the manager hears both the loss and the run's end at once.
    await session.call('complete_step', { run, step: 'second', outcome: 'done' });
    await session.call('start_step', { run, step: 'quiet' });
    const quiet = await until(() => fake.agentOf('quiet'));
    await until(() => status(run, 'quiet') === 'lost');
    expect(quiet.followUps).toEqual([REMINDER]);
    await until(() => manager.followUps.length === 4);
    expect(manager.followUps[3]).toContain('quiet lost (attempt 1)');
    expect(manager.followUps[3]).toContain(`run ${run} failed`);
    const end = await session.call('get_run', { run });
    expect(end.status).toBe('failed');
    expect(end.steps.find((s: Json) => s.name === 'quiet')).toMatchObject({ status: 'lost' });

    // Nothing was started twice; the run was let go once it ended.
    expect(fake.received('create_agent_request')).toHaveLength(4); // the manager and three steps
    await until(() => session.running.paseo!.hosted.length === 0);
  });

  it('keeps the run after the server stops, and a new server takes it up: gone agents are lost', async () => {
    writePlaybooks();
    const fake = await daemon({
      left: [runsUntilCanceled()],
      right: [runsUntilCanceled({ outcome: 'done', summary: 'too late' })],
      '': [{ turns: [{ hold: true }] }],
    });
    const manager = await managerAgent(fake);
    const before = await serve(fake, manager.id);
    const { run } = await before.call('start_playbook', { playbook: 'pair' });
    await before.call('start_step', { run, step: 'left' });
    await before.call('start_step', { run, step: 'right' });
    const left = await until(() => fake.agentOf('left'));
    const right = await until(() => fake.agentOf('right'));
    await until(() => stepRun(stored(run), 'left')!.attempts[0]!.agent === left.id);
    await until(() => stepRun(stored(run), 'right')!.attempts[0]!.agent === right.id);

    // The client goes: the server lets go of the run; the agents stay and keep working.
    await before.stop();
    expect(status(run, 'left')).toBe('running');
    expect(status(run, 'right')).toBe('running');
    expect(left.turn).toBeDefined();
    expect(right.turn).toBeDefined();

    // Meanwhile one agent is archived in Paseo, and a person keeps the manager busy.
    await archive(fake, left.id);
    await say(fake, manager.id, 'Wait for me.');

    const after = await serve(fake, manager.id);
    const waker = after.running.paseo!.waker!;
    // Taken up at start: the archived agent's attempt is lost; the busy manager's wake-up waits.
    await until(() => stepRun(stored(run), 'left')!.attempts[0]!.ended === 'lost');
    expect(status(run, 'left')).toBe('ready');
    await until(() => waker.queued === 1);
    expect(waker.status).toBe('running');

    // The other agent is adopted: its report token died with the old server, so when its turn ends
    // it is lost too, and its step can be started again from the new server.
    expect(status(run, 'right')).toBe('running');
    fake.release(right.id);
    await until(() => stepRun(stored(run), 'right')!.attempts[0]!.ended === 'lost');
    await until(() => waker.queued === 2);
    expect(manager.followUps).toEqual(['Wait for me.']);

    // Its turn over, the manager gets both losses in one prompt.
    fake.release(manager.id);
    await until(() => manager.followUps.length === 2);
    const woken = manager.followUps[1]!;
    expect(woken).toContain('left lost (attempt 1)');
    expect(woken).toContain(`Paseo agent ${left.id} was archived (found when the run was taken up again)`);
    expect(woken).toContain('right lost (attempt 1)');
    expect(woken.match(/Playbook run /g)).toHaveLength(1);
    const view = await after.call('get_run', { run });
    expect(view.status).toBe('running');
    expect(view.ready).toEqual(
      expect.arrayContaining([
        { step: 'left', kind: 'agent' },
        { step: 'right', kind: 'agent' },
      ]),
    );
    expect(view.history.map((h: Json) => h.text).join('\n')).toContain('outlived a restart of the runtime');
    await after.call('start_step', { run, step: 'left' });
    const again = await until(() => fake.agentOf('left', 2));
    expect(again.labels['paseo.parent-agent-id']).toBe(manager.id);
    expect(vecToArray(stored(run).history).some((h) => h.kind === 'refused')).toBe(false);
  });

  it("runs check steps in the workspace, and times a step out from the server's timer", async () => {
    writePlaybooks();
    const fake = await daemon({ wait: [runsUntilCanceled()], '': [{ turns: [{ hold: true }] }] });
    const manager = await managerAgent(fake);
    const session = await serve(fake, manager.id);
    const waker = session.running.paseo!.waker!;
    const { run } = await session.call('start_playbook', { playbook: 'slow' });
    // The manager is in a turn (a person's message) while the check runs.
    await say(fake, manager.id, 'Go on.');
    await until(() => waker.status === 'running');

    const look = await session.call('start_step', { run, step: 'look' });
    expect(look.started).toMatchObject({ step: 'look', kind: 'check', commands: ['git status --short'] });
    await until(() => status(run, 'look') === 'reported');
    // The check's step-started came during start_step's own change, and joined it.
    expect(stepRun(stored(run), 'look')!.attempts[0]!.agent).toMatch(/^check:/);
    await until(() => waker.queued === 1);
    // The manager reads the report in a tool result during its turn: the queued wake-up is dropped.
    const seen = await session.call('get_run', { run });
    expect(seen.events.join('\n')).toContain('look reported pass');
    expect(waker.queued).toBe(0);
    await session.call('complete_step', { run, step: 'look', outcome: 'pass' });
    fake.release(manager.id);
    await until(() => waker.status === 'idle');

    await session.call('start_step', { run, step: 'wait' });
    const wait = await until(() => fake.agentOf('wait'));
    // Nobody calls a tool: the server's timer applies the timeout, stops the agent, wakes the manager.
    await until(() => status(run, 'wait') === 'failed');
    expect(stepRun(stored(run), 'wait')!.attempts[0]!.ended).toBe('timeout');
    await until(() => fake.received('cancel_agent_request').some((r) => r.agentId === wait.id));
    await until(() => manager.followUps.length === 2);
    expect(manager.followUps[0]).toBe('Go on.');
    expect(manager.followUps[1]).toContain('wait timed out after 1s (attempt 1)');
    expect(manager.followUps[1]).toContain(`run ${run} failed`);
    expect(stored(run).status).toBe('failed');
  });
});

describe('the store-backed context of a run', () => {
  it('applies events to the stored run, with events fed in while applying joining the same change', () => {
    const ir = playbook('  work:\n    role: implementer\n    prompt: Work.\n');
    let state = createRun(ir, { id: 't-1', inputs: {}, now: 0, backend: 'paseo' });
    for (const event of [
      { type: 'start' },
      { type: 'start-step', step: 'work' },
      { type: 'step-started', step: 'work', attempt: 1, agent: 'agent-1' },
    ] as const)
      state = advance(state, event, 0).state;
    const store = new RunStore(home);
    store.save(state);
    const performed: string[] = [];
    const logs: string[] = [];
    const host = new RunHost({ home, workspace: root, backend: 'paseo' });
    const written: string[] = [];
    host.subscribe(({ state: saved }) => written.push(saved.status));
    const context = new StoreBackedContext({
      runId: 't-1',
      host,
      clock: Date.now,
      perform: (effect, own) => {
        performed.push(effect.type);
        // An agent that ends its reminded turn at once, reported from inside the reminder's effect.
        if (effect.type === 'remind-agent')
          own.emit({ type: 'agent-stopped', step: effect.step, attempt: effect.attempt });
      },
      log: (line) => logs.push(line),
    });
    // A refused report answers at once and lands in the history.
    expect(context.submit({ type: 'report', step: 'work', attempt: 1, outcome: 'nope' })).toMatch(/nope/);
    expect(vecToArray(store.load('t-1')!.history).some((h) => h.kind === 'refused')).toBe(true);

    context.emit({ type: 'agent-stopped', step: 'work', attempt: 1 });
    expect(performed).toEqual(['remind-agent', 'wake-manager']);
    const after = store.load('t-1')!;
    expect(stepRun(after, 'work')!.status).toBe('lost');
    expect(after.status).toBe('failed');
    expect(context.state().status).toBe('failed');
    expect(logs).toEqual([]);
    // Written through the host: its subscribers were told of each change (the refused report; the turn's
    // end, written before the reminder is sent — write first, then act; the loss the reminder's answer brought).
    expect(written).toEqual(['running', 'running', 'failed']);
    // A run that is gone is nothing to apply to.
    expect(
      new StoreBackedContext({
        runId: 't-gone',
        host,
        clock: Date.now,
        perform: () => undefined,
        log: (line) => logs.push(line),
      }).update(() => 'applied'),
    ).toBeUndefined();
  });
});

describe('the manager woken on the daemon\u2019s real idle and busy signals (issue 12)', () => {
  it('wakes a manager the daemon did not know yet when its server started', async () => {
    // An ACP manager starts its MCP servers during session/new, before the daemon registers it: the
    // server's first fetch_agent_request answers "Agent not found". That is not a manager gone.
    writePlaybooks();
    const fake = await daemon({
      first: [reportsWhenReleased('done', { note: 'n1' }, 'the first part is done')],
      '': [{ turns: [{}] }],
    });
    const manager = await managerAgent(fake);
    fake.registering.add(manager.id);
    const session = await serve(fake, manager.id, 200);
    const waker = session.running.paseo!.waker!;
    expect(waker.status).toBe('unknown');
    fake.registering.delete(manager.id);
    await until(() => waker.status === 'idle');

    const { run } = await session.call('start_playbook', { playbook: 'duo', inputs: { task: 'x' } });
    await session.call('start_step', { run, step: 'first' });
    const agent = await until(() => fake.agentOf('first'));
    fake.release(agent.id);
    await until(() => manager.followUps.length === 1);
    expect(manager.followUps[0]).toContain('first reported done: the first part is done');
    expect(stored(run as string).status).toBe('running');
    expect(session.warnings.splice(0)).toEqual([
      `warning: the Paseo daemon does not know the manager agent ${manager.id} yet; asking again until it does`,
    ]);
  });

  it('takes a wake-up answered accepted: false after the manager\u2019s failed turn as delivered, once', async () => {
    writePlaybooks();
    const fake = await daemon({
      first: [reportsWhenReleased('done', { note: 'n1' }, 'the first part is done')],
      // The manager's first turn (a person's message) fails; the wake-up's turn then holds.
      '': [{ turns: [{ fail: 'the model is overloaded' }, { hold: true }] }],
    });
    const manager = await managerAgent(fake);
    const session = await serve(fake, manager.id);
    const waker = session.running.paseo!.waker!;
    await say(fake, manager.id, 'Start the duo playbook.');
    await until(() => manager.status === 'error' && waker.status === 'idle');

    const { run } = await session.call('start_playbook', { playbook: 'duo', inputs: { task: 'x' } });
    await session.call('start_step', { run, step: 'first' });
    const agent = await until(() => fake.agentOf('first'));
    fake.release(agent.id);
    // The daemon says accepted: false ("failed to start") but starts the turn: sent once, not again.
    await until(() => manager.followUps.length === 2 && waker.status === 'running');
    expect(manager.followUps[1]).toContain('first reported done');
    expect(waker.queued).toBe(0);
    fake.release(manager.id);
    await until(() => waker.status === 'idle');
    expect(manager.followUps).toHaveLength(2);
    expect(session.warnings.splice(0)).toEqual([]);
  });
});

describe('the manager agent archived during a run (seed 000)', () => {
  it('fails the run and stops its running step agents', async () => {
    writePlaybooks();
    const fake = await daemon({ first: [runsUntilCanceled()] });
    const manager = await managerAgent(fake);
    const server = await serve(fake, manager.id, 200);
    const { run } = await server.call('start_playbook', { playbook: 'duo', inputs: { task: 'x' } });
    await server.call('start_step', { run, step: 'first' });
    const worker = await until(() =>
      [...fake.agents.values()].find((a) => a.labels['kairoku.step'] === 'first'),
    );
    await archive(fake, manager.id);
    const failed = await until(() =>
      stored(run as string).status === 'failed' ? stored(run as string) : false,
    );
    expect(failed.reason).toContain(`its manager agent ${manager.id} is gone`);
    expect(stepRun(failed, 'first')!.status).toBe('canceled');
    await until(() => fake.received('cancel_agent_request').some((r) => r.agentId === worker.id));
    // Said once in the server's log; nothing else went wrong.
    expect(server.warnings.splice(0)).toEqual([
      expect.stringContaining(`the manager agent ${manager.id} is not on the Paseo daemon`),
    ]);
  });
});

describe('decisions another process writes (serve applying the panel in place) wake the manager (seed 000)', () => {
  it('wakes it with a gate decided and with a cancel, and not with what it did itself', async () => {
    mkdirSync(join(repo, 'playbooks'), { recursive: true });
    writeFileSync(
      join(repo, 'playbooks', 'gated.yml'),
      `version: 1
id: gated
title: Gated
steps:
  first:
    role: implementer
    prompt: Do it.
  ship:
    needs: [first]
    gate:
      title: Ship it?
      choices: { approve: next, reject: fail }
`,
    );
    writeFileSync(
      join(repo, 'playbooks', 'held.yml'),
      `version: 1
id: held
title: Held
steps:
  slow:
    role: implementer
    prompt: Take your time.
`,
    );
    const fake = await daemon({
      first: [runsUntilCanceled({ outcome: 'done' })],
      slow: [runsUntilCanceled()],
    });
    const manager = await managerAgent(fake);
    const session = await serve(fake, manager.id);
    const waker = session.running.paseo!.waker!;
    await until(() => waker.status === 'idle');
    // serve's host: the panel's decisions on a run another manager manages are applied in place.
    const panel = new RunHost({ home, workspace: repo, backend: 'paseo' });
    cleanup.push(() => panel.close());

    const run = (await session.call('start_playbook', { playbook: 'gated' })).run as string;
    await session.call('start_step', { run, step: 'first' });
    const first = await until(() =>
      fake.agentOf('first')?.status === 'running' ? fake.agentOf('first') : undefined,
    );
    await until(() => stepRun(stored(run), 'first')?.attempts[0]?.agent === first!.id);
    // Paused in the panel, the run holds the report's wake-up; resumed in the panel, the manager gets it.
    expect(panel.operate(run, { type: 'pause' }).ok).toBe(true);
    await until(() => waker.status === 'idle' && waker.queued === 0);
    const paused = manager.followUps.length;
    fake.release(first!.id);
    await until(() => status(run, 'first') === 'reported');
    await until(() => stored(run).wakeups.length > 0);
    expect(manager.followUps.length).toBe(paused);
    expect(panel.operate(run, { type: 'resume' }).ok).toBe(true);
    const released = await until(() => manager.followUps.slice(paused).join('\n') || undefined);
    expect(released).toContain('first reported done');
    await session.call('complete_step', { run, step: 'first', outcome: 'done' });
    await session.call('request_gate', { run, step: 'ship', summary: 'ready' });
    await until(() => waker.status === 'idle' && waker.queued === 0);
    const before = manager.followUps.length;
    const decided = panel.operate(run, { type: 'decide', step: 'ship', choice: 'approve' });
    expect(decided.ok && decided.value.status).toBe('completed');
    const woken = await until(() => manager.followUps.slice(before).join('\n') || undefined);
    expect(woken).toContain(`Playbook run ${run}`);
    expect(woken).toMatch(/ship.*approve/);
    // Its own calls (request_gate, complete_step) were not sent again.
    expect(woken).not.toContain('reported');

    const again = (await session.call('start_playbook', { playbook: 'held' })).run as string;
    await session.call('start_step', { run: again, step: 'slow' });
    const slow = await until(() =>
      fake.agentOf('slow')?.status === 'running' ? fake.agentOf('slow') : undefined,
    );
    await until(() => stepRun(stored(again), 'slow')?.attempts[0]?.agent === slow!.id);
    await session.call('get_run', { run: again });
    // A nudge from the panel reaches the step's agent through the manager's server.
    const nudged = panel.operate(again, { type: 'nudge', step: 'slow', message: 'mind the tests' });
    expect(nudged.ok).toBe(true);
    await until(() => slow!.followUps.includes('mind the tests'));
    await until(() => waker.status === 'idle' && waker.queued === 0);
    const then = manager.followUps.length;
    const canceled = panel.operate(again, { type: 'cancel', reason: 'from the panel' });
    expect(canceled.ok && canceled.value.status).toBe('canceled');
    const told = await until(() => manager.followUps.slice(then).join('\n') || undefined);
    expect(told).toContain(`Playbook run ${again}`);
    expect(told).toContain('canceled');
    expect(stored(again).manager).toContain(`Paseo agent ${manager.id}`);
    // The cancel's effects were performed by nobody in the panel's process: the manager's server stops the agent.
    await until(() =>
      fake.requests.some((r) => r.type === 'cancel_agent_request' && r.message.agentId === slow!.id),
    );
  });
});
