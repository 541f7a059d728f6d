/**
 * Nothing outside the run can grow its history without bound (issue 11: 300 refused Kairoku updates
 * naming a dispatch took the history from 14 to 314 entries). Every outsider's entry is a `note`
 * (a backend's fault, a refused backend event, a refused report, a runner's tool denial): a repeat is
 * counted on the entry it repeats, and past `NOTE_LIMITS.entries` notes are counted in one entry.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Dispatch, KairokuBackend } from '../../src/backends/kairoku/index.js';
import { advance, createRun, NOTE_LIMITS, recordDenial } from '@kairoku-playbook/machine';
import type { RunState } from '@kairoku-playbook/machine';
import { serializeRun } from '../../src/store/run-store.js';
import { HandRunner, history, startApp, startRun, waitFor } from '../../../test/kit/index.js';
import { playbook } from '../helpers.js';

const REPO = '/srv/repo-a';
const ONE_AGENT = playbook(
  `  work:
    role: implementer
    prompt: Do the work
    outputs: { branch: string }
`,
);

function started(): RunState {
  const state = createRun(ONE_AGENT, { id: 'r', inputs: {}, now: 0 });
  return advance(advance(state, { type: 'start' }, 0).state, { type: 'start-step', step: 'work' }, 0).state;
}

describe('notes in the history', () => {
  it('counts a repeated note on its entry instead of adding one', () => {
    let state = started();
    const before = state.history.size;
    for (let i = 0; i < 300; i++)
      state = advance(
        state,
        { type: 'note', kind: 'backend', step: 'work', attempt: 1, text: 'refused an update: not held' },
        1000 + i,
      ).state;
    expect(state.history.size).toBe(before + 1);
    expect(history(state).at(-1)).toMatchObject({
      kind: 'backend',
      step: 'work',
      attempt: 1,
      text: 'refused an update: not held',
      count: 300,
      at: new Date(1000).toISOString(),
      lastAt: new Date(1299).toISOString(),
    });
  });

  it('keeps at most NOTE_LIMITS.entries notes and counts the rest in one entry', () => {
    let state = started();
    const before = state.history.size;
    const sizes: number[] = [];
    for (let i = 0; i < 3000; i++) {
      state = advance(state, { type: 'note', kind: 'refused', text: `request ${i} refused` }, i).state;
      if (i === 1000 || i === 2999) sizes.push(serializeRun(state).length);
    }
    expect(state.history.size).toBe(before + NOTE_LIMITS.entries + 1);
    expect(history(state).at(-1)).toMatchObject({
      kind: 'notes-dropped',
      text: `${3000 - NOTE_LIMITS.entries} more notes were not recorded: a run keeps at most ${NOTE_LIMITS.entries} (the last: refused)`,
    });
    // The run file stops growing once the limit is reached (but for the count's digits and lastAt).
    expect(sizes[1]! - sizes[0]!).toBeLessThan(64);
    // The run's own entries are still recorded past the limit.
    state = advance(state, { type: 'cancel', reason: 'enough' }, 5000).state;
    expect(history(state).at(-1)!.kind).not.toBe('notes-dropped');
    expect(state.status).toBe('canceled');
  });

  it('cuts a long note and scrubs secrets from it', () => {
    const state = advance(
      started(),
      { type: 'note', kind: 'backend', text: `token hunter22 ${'x'.repeat(5000)}` },
      1,
      { secrets: { token: 'hunter22' } },
    ).state;
    const text = history(state).at(-1)!.text;
    expect(text).not.toContain('hunter22');
    expect(text.length).toBeLessThan(NOTE_LIMITS.text + 20);
  });

  it('recordDenial (a runner’s tool denial) is a note with the same bounds', () => {
    let state = started();
    const before = state.history.size;
    const denial = {
      step: 'work',
      attempt: 1,
      call: { tool: 'run', command: 'rm -rf /' },
      reason: 'not allowed',
    } as const;
    for (let i = 0; i < 200; i++) state = recordDenial(state, denial, i);
    for (let i = 0; i < 2000; i++)
      state = recordDenial(state, { ...denial, call: { tool: 'run', command: `rm ${i}` } }, i);
    expect(state.history.size).toBe(before + NOTE_LIMITS.entries + 1);
    expect(history(state)[before]).toMatchObject({ kind: 'tool-denied', count: 200 });
  });

  it('a backend’s refused events are counted too (the driver’s refusal notes)', async () => {
    const app = await startApp(REPO, { heartbeatIntervalMs: 60_000 });
    try {
      const driver = startRun(app.backend, ONE_AGENT);
      const before = driver.state.history.size;
      for (let i = 0; i < 300; i++) driver.context.emit({ type: 'report', step: 'nope', outcome: 'done' });
      expect(driver.state.history.size).toBe(before + 1);
      expect(history(driver.state).at(-1)).toMatchObject({ kind: 'refused', count: 300 });
    } finally {
      await app.backend.close();
    }
  });
});

describe('outsiders of a Kairoku run', { timeout: 60_000 }, () => {
  let app: { backend: KairokuBackend; url: string; faults: string[] } | undefined;
  afterEach(async () => {
    await app?.backend.close();
    app = undefined;
  });

  async function claimed() {
    app = await startApp(REPO, { heartbeatIntervalMs: 60_000 });
    const driver = startRun(app.backend, ONE_AGENT);
    const holder = new HandRunner(app.url, 'holder', [REPO]);
    await holder.heartbeat();
    const [dispatch] = await holder.claim();
    return { driver, holder, dispatch: dispatch! };
  }

  it('300 updates from a runner that does not hold the dispatch add one entry (the issue’s case)', async () => {
    const { driver, dispatch } = await claimed();
    const intruder = new HandRunner(app!.url, 'intruder', [REPO]);
    await intruder.heartbeat();
    const before = driver.state.history.size;
    for (let i = 0; i < 300; i++) expect((await intruder.update(dispatch.id)).status).toBe(409);
    expect(driver.state.history.size).toBe(before + 1);
    expect(history(driver.state).at(-1)).toMatchObject({ kind: 'backend', count: 300 });
  });

  it('updates after the dispatch ended, and tool denials, stay bounded', async () => {
    const { driver, holder, dispatch } = await claimed();
    const at = new Date().toISOString();
    const denials = Array.from({ length: 50 }, (_, i) => ({ at, kind: 'denial', text: `run "rm ${i}"` }));
    for (let i = 0; i < 30; i++) await holder.update(dispatch.id, { events: denials.slice(0, 10) });
    const afterRepeats = driver.state.history.size;
    expect(history(driver.state).filter((h) => h.kind === 'tool-denied')).toHaveLength(10);
    await holder.update(dispatch.id, { terminal: { status: 'failed', reason: 'crashed' } });
    await waitFor('the attempt ended', () => driver.state.history.size > afterRepeats);
    const before = driver.state.history.size;
    for (let i = 0; i < 100; i++) expect((await holder.update(dispatch.id)).status).toBe(409);
    expect(driver.state.history.size).toBe(before + 1);
  });

  it('refused report_step_result calls over MCP add one entry', async () => {
    const { driver, dispatch } = await claimed();
    const before = driver.state.history.size;
    for (let i = 0; i < 20; i++)
      expect((await report(dispatch, { outcome: 'not-an-outcome' })).ok).toBe(false);
    expect(driver.state.history.size).toBe(before + 1);
    expect(history(driver.state).at(-1)).toMatchObject({ kind: 'refused', count: 20 });
  });
});

async function report(dispatch: Dispatch, args: Record<string, unknown>) {
  const client = new Client({ name: 'test-agent', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(dispatch.agent!.report.url), {
    requestInit: { headers: { Authorization: `Bearer ${dispatch.agent!.report.token}` } },
  });
  try {
    await client.connect(transport);
    const result = await client.callTool({ name: 'report_step_result', arguments: args });
    return { ok: !result.isError };
  } finally {
    await client.close().catch(() => undefined);
  }
}
