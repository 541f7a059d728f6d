/**
 * serve's run list from the store's index (issue 29): no ended run's file is read at start, the API
 * answers pages and filters, and other processes' writes and removals reach the list at once.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { RunStore } from '../../src/store/run-store.js';
import { Run, compileFile } from '../helpers.js';
import { openEvents, prWorkspace, serveOnSim } from '../../../test/kit/index.js';

const ws = prWorkspace();
afterAll(() => ws.cleanup());
const pr = compileFile('playbooks/pr.yml');

/** Twelve ended runs of the workspace (r00 oldest), every third one archived; and r12, active (paused). */
function fill(store: RunStore): void {
  for (let i = 0; i <= 12; i++) {
    const run = new Run(pr, { task: `task ${i}` });
    const createdAt = new Date(Date.UTC(2026, 0, 1 + i)).toISOString();
    run.state = { ...run.state, id: `r${String(i).padStart(2, '0')}`, workspace: ws.root, createdAt };
    run.send({ type: 'start' });
    if (i < 12) run.send({ type: 'cancel', reason: 'enough' });
    else run.send({ type: 'pause' });
    const archived = i < 12 && i % 3 === 0 ? { archivedAt: createdAt } : {};
    store.save({ ...run.state, title: i === 7 ? 'The Seventh' : run.state.title, ...archived });
  }
}

describe("serve's run list", () => {
  it('reads no ended run at start, and answers pages and filters', async () => {
    const store = new RunStore(ws.home);
    fill(store);
    const load = vi.spyOn(RunStore.prototype, 'load');
    const { api, close } = await serveOnSim(ws.root, ws.home, {}, { steps: {} });
    try {
      expect(new Set(load.mock.calls.map(([id]) => id))).toEqual(new Set(['r12']));
      load.mockRestore();
      const ids = (body: { runs: { id: string }[] }) => body.runs.map((r) => r.id);
      // Unpaged: every run not archived, newest first (as earlier versions answered).
      const all = await api('/api/v1/runs');
      expect(ids(all.body)).toEqual(['r12', 'r11', 'r10', 'r08', 'r07', 'r05', 'r04', 'r02', 'r01']);
      expect(all.body.total).toBe(9);
      // A page: runs with work going first, then newest first; `next` while there is more.
      const first = await api('/api/v1/runs?limit=4');
      expect(ids(first.body)).toEqual(['r12', 'r11', 'r10', 'r08']);
      expect(first.body.next).toBe(4);
      const last = await api('/api/v1/runs?limit=4&offset=8');
      expect(ids(last.body)).toEqual(['r01']);
      expect(last.body.next).toBeUndefined();
      expect(ids((await api('/api/v1/runs?archived=only')).body)).toEqual(['r09', 'r06', 'r03', 'r00']);
      expect((await api('/api/v1/runs?archived=1')).body.total).toBe(13);
      // (recovery failed r12: its sim agent is gone)
      expect(ids((await api('/api/v1/runs?status=failed')).body)).toEqual(['r12']);
      expect((await api('/api/v1/runs?status=canceled')).body.total).toBe(8);
      expect((await api('/api/v1/runs?status=active')).body.total).toBe(0);
      expect(ids((await api('/api/v1/runs?text=seventh')).body)).toEqual(['r07']);
      expect((await api('/api/v1/runs?playbook=pr')).body.total).toBe(9);
      expect((await api('/api/v1/runs?playbook=other')).body.total).toBe(0);
      const refused = await api('/api/v1/runs?limit=0');
      expect([refused.status, refused.body.refusal.code]).toEqual([422, 'invalid-query']);
    } finally {
      await close();
    }
  });

  it("shows another process's write at once, and drops a removed run with an event", async () => {
    const { api, serve, close } = await serveOnSim(ws.root, ws.home, {}, { steps: {} });
    const stream = openEvents(serve.url, serve.token);
    try {
      await stream.ready;
      const elsewhere = new RunStore(ws.home);
      const changed = elsewhere.load('r11')!;
      elsewhere.save({ ...changed, title: 'Renamed elsewhere' });
      // (the index line is read at the request: no wait for the store's watch)
      const listed = (await api('/api/v1/runs?text=renamed')).body.runs;
      expect(listed.map((r) => r.id)).toEqual(['r11']);
      elsewhere.remove('r10');
      await vi.waitFor(() => expect(stream.events.map((e) => e.event)).toContain('runs-removed'));
      const removed = stream.events.find((e) => e.event === 'runs-removed')!;
      expect(removed.data).toEqual({ ids: ['r10'] });
      expect((await api('/api/v1/runs')).body.runs.map((r) => r.id)).not.toContain('r10');
    } finally {
      stream.close();
      await close();
    }
  });
});

describe('serve --archive-after DAYS', () => {
  it('archives the runs that ended more than DAYS ago, and deletes none', async () => {
    const own = prWorkspace();
    try {
      const store = new RunStore(own.home);
      for (const [id, endedAt] of [
        ['long-ago', '2025-01-01T00:00:00.000Z'],
        ['lately', new Date().toISOString()],
      ] as const) {
        const run = new Run(pr, { task: id });
        run.state = { ...run.state, id, workspace: own.root };
        run.send({ type: 'start' });
        run.send({ type: 'cancel', reason: 'enough' });
        store.save({ ...run.state, endedAt });
      }
      const { api, close } = await serveOnSim(own.root, own.home, { archiveAfterDays: 30 }, { steps: {} });
      try {
        await vi.waitFor(async () =>
          expect((await api('/api/v1/runs?archived=only')).body.runs.map((r) => r.id)).toEqual(['long-ago']),
        );
        expect(store.load('long-ago')!.archivedAt).toEqual(expect.any(String));
        expect(store.load('lately')!.archivedAt).toBeUndefined();
        expect((await api('/api/v1/runs?archived=1')).body.total).toBe(2);
      } finally {
        await close();
      }
    } finally {
      own.cleanup();
    }
  });
});
