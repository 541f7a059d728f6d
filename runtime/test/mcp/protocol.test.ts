/**
 * The manager protocol without a transport (`PlaybookProtocol`, one method per tool): scenarios,
 * timeouts, recovery, secrets, the store lock and step agents' tokens. The MCP server around it is
 * tested end to end in server.test.ts.
 */
import { copyFileSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/backends/scenario.js';
import { advance, createRun } from '@kairoku-playbook/machine';
import { PlaybookProtocol } from '../../src/mcp/protocol.js';
import type { StepView } from '../../src/mcp/views.js';
import { busyAsRefusal } from '../../src/mcp/store-lock.js';
import { lockStore } from '../../src/store/lock.js';
import { checkStepAgentToken, stepAgentToken } from '../../src/store/step-token.js';
import { ToolError } from '../../src/mcp/tool-error.js';
import { RunStore } from '../../src/store/run-store.js';
import { compileFile, repo } from '../helpers.js';
import { tempDir } from '../../../test/kit/index.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function setup(options: Partial<ConstructorParameters<typeof PlaybookProtocol>[0]> = {}) {
  const home = tempDir('kp-protocol-home-');
  const workspace = tempDir('kp-protocol-ws-');
  mkdirSync(join(workspace, 'playbooks'));
  copyFileSync(join(repo, 'playbooks', 'pr.yml'), join(workspace, 'playbooks', 'pr.yml'));
  let now = Date.UTC(2025, 0, 1);
  const clock = { advance: (ms: number) => (now += ms) };
  const protocol = new PlaybookProtocol({
    workspace,
    home,
    clock: () => now,
    caller: () => 'tester',
    ...options,
  });
  return { protocol, home, workspace, clock };
}

/** A manager with no judgment: starts what is ready, completes reports as reported, opens gates. */
function manage(protocol: PlaybookProtocol, run: string, limit = 100): Json {
  let view: Json = protocol.getRun({ run });
  for (let turn = 0; turn < limit; turn++) {
    const reported = view.reported[0];
    const ready = view.ready[0];
    if (reported) view = protocol.completeStep({ run, step: reported.step, outcome: reported.outcome });
    else if (ready?.kind === 'gate') view = protocol.requestGate({ run, step: ready.step });
    else if (ready) view = protocol.startStep({ run, step: ready.step });
    else return protocol.getRun({ run });
  }
  throw new Error('the run did not settle');
}

describe('PlaybookProtocol', () => {
  it('drives pr.yml as its playbook test scripts it, gates decided by the scenario', () => {
    const scenario = parseYaml(readFileSync(join(repo, 'playbooks', 'pr.test.yml'), 'utf8'));
    if ('error' in scenario) throw new Error(scenario.error);
    const { protocol } = setup({ scenario: scenario.value });
    const { run } = protocol.startPlaybook({ playbook: 'pr' });
    const final = manage(protocol, run as string);
    expect(final).toMatchObject({
      status: 'completed',
      manager: 'tester',
      loops: { 'qa.fail': 1, 'review.changes_requested': 1, 'ship.revise': 1 },
      outputs: { branch: 'feat/json' },
    });
    const attempts = Object.fromEntries(final.steps.map((s: Json) => [s.name, s.attempts.length]));
    expect(attempts).toEqual({ plan: 1, implement: 4, qa: 4, review: 3, ship: 2 });
    expect(final.after[0]).toMatchObject({ name: 'after.summarize', status: 'completed' });
  });

  it('refuses a scenario that does not fit the playbook', () => {
    const { protocol } = setup({ scenario: { steps: { qa: [{ outcome: 'flaky' }] } } });
    expect(() => protocol.startPlaybook({ playbook: 'pr', inputs: { task: 'x' } })).toThrow(
      /the scenario given to this server does not fit playbook "pr": steps\.qa\[0\]/,
    );
  });

  it('applies due timeouts when the run is next looked at', () => {
    const { protocol, clock } = setup({ agents: 'external' });
    const { run } = protocol.startPlaybook({ playbook: 'pr', inputs: { task: 'x' } }) as { run: string };
    protocol.startStep({ run, step: 'plan' });
    clock.advance(60 * 60 * 1000 - 1);
    expect(protocol.getRun({ run })).toMatchObject({
      status: 'running',
      running: [{ step: 'plan', attempt: 1 }],
    });
    clock.advance(1);
    // (a tool's result is untyped JSON: a run's view, runView's, with its steps)
    const late = protocol.getRun({ run }) as { events: unknown; steps: StepView[] };
    expect(late).toMatchObject({ status: 'failed' });
    expect(late.events).toContain('plan timed out after 1h');
    expect(late.steps[0]).toMatchObject({ name: 'plan', status: 'failed' });
  });

  it('keeps secret inputs out of the run file and out of what it returns', () => {
    const { protocol, home } = setup({ agents: 'external' });
    const started = protocol.startPlaybook({
      playbook: 'pr',
      inputs: { task: 'x', api_key: 'sk-very-secret' },
    });
    const run = started.run as string;
    for (const [name, outputs] of [
      ['plan', { plan: 'p', files: [] }],
      ['implement', { branch: 'b' }],
    ] as const) {
      protocol.startStep({ run, step: name });
      protocol.reportStepResult({ run, step: name, attempt: 1, outcome: 'done', outputs });
      protocol.completeStep({ run, step: name, outcome: 'done' });
    }
    const qa = protocol.startStep({ run, step: 'qa' });
    expect(qa.started).toMatchObject({ kind: 'check', env: ['API_KEY'] });
    expect(JSON.stringify(qa)).not.toContain('sk-very-secret');
    const file = readFileSync(join(home, 'runs', `${run}.json`), 'utf8');
    expect(file).not.toContain('sk-very-secret');
    expect(JSON.parse(file).inputs.api_key).toBe('••••••');
  });

  it('applies the lost-agent rule on start to sim runs a killed server left running', () => {
    const { home, workspace } = setup();
    const store = new RunStore(home);
    const ir = compileFile('playbooks/pr.yml');
    let state = createRun(ir, { id: 'pr-abc123', inputs: { task: 'x' }, now: 0, backend: 'sim' });
    state = advance(state, { type: 'start' }, 1).state;
    state = advance(state, { type: 'start-step', step: 'plan' }, 2).state;
    store.save({ ...state, workspace });
    const protocol = new PlaybookProtocol({ workspace, home });
    expect(protocol.recover()).toEqual([]);
    expect(protocol.getRun({ run: 'pr-abc123' })).toMatchObject({
      status: 'failed',
      steps: [expect.objectContaining({ name: 'plan', status: 'lost' }), ...Array(4).fill(expect.anything())],
    });
  });

  it('lists the workspace playbooks with their inputs and the protocol', () => {
    const { protocol, workspace } = setup();
    writeFileSync(join(workspace, 'playbooks', 'pr.test.yml'), 'not: a playbook');
    const listed = protocol.listPlaybooks();
    expect(listed.protocol).toContain('You are the Playbook Manager');
    expect(listed.playbooks).toEqual([
      expect.objectContaining({
        id: 'pr',
        file: 'playbooks/pr.yml',
        workspace: 'new-worktree',
        concurrency: 1,
        inputs: expect.arrayContaining([
          { name: 'strict', type: 'boolean', required: false, default: false, description: null },
          { name: 'api_key', type: 'string', required: false, description: null, secret: true },
        ]),
      }),
    ]);
  });
});

describe('runs the protocol starts and changes go through the run host', () => {
  it('a subscriber of its host sees start_playbook create the run and each tool call write it', () => {
    const { protocol, workspace } = setup();
    const seen: { id: string; status: string; manager: string | undefined; version: number }[] = [];
    protocol.host.subscribe(({ state, version }) =>
      seen.push({ id: state.id, status: state.status, manager: state.manager, version }),
    );
    const started = protocol.startPlaybook({ playbook: 'pr', inputs: { task: 't' } });
    const run = started.run as string;
    expect(seen).toEqual([{ id: run, status: 'running', manager: 'tester', version: expect.any(Number) }]);
    protocol.startStep({ run, step: 'plan' });
    // Write first, then act: the start is written before the agent is asked for; what the backend
    // answers (the agent started) is a second write.
    expect(seen.length).toBe(3);
    expect(seen[1]!.version).toBeGreaterThan(seen[0]!.version);
    expect(seen[2]!.version).toBeGreaterThan(seen[1]!.version);
    expect(protocol.store.load(run)).toMatchObject({ workspace, manager: 'tester', backend: 'sim' });
  });

  it("refuses a run without room with the host's code, in the protocol's words", () => {
    const { protocol } = setup();
    const first = protocol.startPlaybook({ playbook: 'pr', inputs: { task: 't' } }).run as string;
    let refusal: unknown;
    try {
      protocol.startPlaybook({ playbook: 'pr', inputs: { task: 'u' } });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ToolError);
    expect(refusal).toMatchObject({
      code: 'workspace-busy',
      message: `run "${first}" of playbook "pr" is already active in this workspace (running); one run may be active per workspace: finish it (or cancel it with cancel_run with run "${first}") before starting another`,
    });
    // The same refusal a run host gives any caller (serve's, run's) for that room, but for its words.
    expect(protocol.host.room(compileFile('playbooks/pr.yml'))).toMatchObject({
      code: 'workspace-busy',
      message: (refusal as ToolError).message,
    });
    expect(() => protocol.getRun({ run: 'pr-nope' })).toThrow('unknown run "pr-nope"');
    expect(() => protocol.restartRun({ run: 'pr-nope', step: 'plan' })).toThrow('unknown run "pr-nope"');
  });
});

describe('the store lock', () => {
  it('takes over a lock whose process is gone', () => {
    const folder = tempDir('kp-lock-');
    writeFileSync(join(folder, '.lock'), '999999999\n');
    const past = new Date(Date.now() - 5000);
    utimesSync(join(folder, '.lock'), past, past);
    expect(busyAsRefusal(() => lockStore(folder, () => 'ran'))).toBe('ran');
    expect(() => statSync(join(folder, '.lock'))).toThrow();
  });

  it('takes over a lock left empty (its maker killed between creating it and writing its pid)', () => {
    const folder = tempDir('kp-lock-');
    writeFileSync(join(folder, '.lock'), '');
    const past = new Date(Date.now() - 1500);
    utimesSync(join(folder, '.lock'), past, past);
    expect(lockStore(folder, () => 'ran', { waitMs: 50 })).toBe('ran');
    // a fresh empty lock is its maker's, about to write its pid: waited for, not taken
    writeFileSync(join(folder, '.lock'), '');
    expect(() => lockStore(folder, () => 'ran', { waitMs: 50 })).toThrow('the run store is busy');
  });

  it('waits for a live holder, then says the store is busy: a refusal of the tool call, not a crash', () => {
    const folder = tempDir('kp-lock-');
    writeFileSync(join(folder, '.lock'), `${process.pid}\n`);
    const busy = () => busyAsRefusal(() => lockStore(folder, () => 'ran', { waitMs: 50 }));
    expect(busy).toThrow(ToolError);
    expect(busy).toThrow(`the run store is busy (locked by process ${process.pid}`);
  });
});

describe("step agents' tokens", () => {
  it('bind one run, step and attempt under a key kept in the home', () => {
    const home = tempDir('kp-token-');
    const token = stepAgentToken(home, 'pr-1', 'plan', 1);
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect(stepAgentToken(home, 'pr-1', 'plan', 1)).toBe(token);
    expect(checkStepAgentToken(home, 'pr-1', 'plan', 1, token)).toBe(true);
    expect(checkStepAgentToken(home, 'pr-1', 'plan', 2, token)).toBe(false);
    expect(checkStepAgentToken(home, 'pr-1', 'implement', 1, token)).toBe(false);
    expect(checkStepAgentToken(home, 'pr-1', 'plan', 1, 'short')).toBe(false);
    expect(statSync(join(home, 'mcp.key')).mode & 0o777).toBe(0o600);
  });
});

describe('cancel_run on a run another process is driving', () => {
  it('asks that process through the store instead of writing the run file', () => {
    const { protocol } = setup({ agents: 'external' });
    const run = protocol.startPlaybook({ playbook: 'pr', inputs: { task: 't' } }).run as string;
    const before = readFileSync(protocol.store.path(run), 'utf8');
    // A live process (our parent) holds the run's claim.
    writeFileSync(
      protocol.store.path(run).replace(/\.json$/, '.owner'),
      JSON.stringify({ pid: process.ppid }),
    );
    const answer = protocol.cancelRun({ run, reason: 'stop it' });
    expect(answer).toMatchObject({ asked: true, run });
    expect(readFileSync(protocol.store.path(run), 'utf8')).toBe(before);
    expect(protocol.store.takeRequests(run)).toEqual([{ type: 'cancel', reason: 'stop it' }]);
  });
});
