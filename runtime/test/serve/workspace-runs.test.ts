/**
 * Runs belong to a workspace (issue 27 item 5): the run store under one home is shared by every
 * workspace, and a serve lists, streams and answers only its own workspace's runs.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunHost } from '../../src/host/run-host.js';
import { simBackendFor } from '../../src/serve/backends.js';
import { compileFile } from '../helpers.js';
import { RunStore } from '../../src/store/run-store.js';
import { openEvents, prWorkspace, serveOnSim, tempDir } from '../../../test/kit/index.js';

const elsewhereStore = (home: string) => new RunStore(home);

const ws = prWorkspace();
const other = tempDir('serve-other-ws-');
mkdirSync(join(other, 'playbooks'));
afterAll(() => {
  ws.cleanup();
  rmSync(other, { recursive: true, force: true });
});

describe("a serve and another workspace's runs in the same home", () => {
  it('neither lists, streams nor answers them', async () => {
    const { api, serve, close } = await serveOnSim(ws.root, ws.home);
    const stream = openEvents(serve.url, serve.token);
    try {
      await stream.ready;
      const elsewhere = new RunHost({
        home: ws.home,
        workspace: other,
        backend: 'sim',
        backendFor: simBackendFor(undefined),
      });
      const started = elsewhere.start(compileFile('playbooks/pr.yml'), { task: 'x' });
      if (!started.ok) throw new Error(started.refusal.message);
      const foreign = started.value.state.id;
      // (ended, so pr.yml's limits.concurrency leaves room for a run of it here)
      expect(elsewhere.operate(foreign, { type: 'cancel' }).ok).toBe(true);
      elsewhere.close();
      const detail = await api(`/api/v1/runs/${foreign}`);
      expect(detail.status).toBe(404);
      expect(detail.body.refusal.code).toBe('unknown-run');
      expect((await api(`/api/v1/runs/${foreign}/cancel`, { body: {} })).status).toBe(404);
      expect((await api('/api/v1/runs')).body.runs.map((r) => r.id)).not.toContain(foreign);
      // Its own run's write is streamed; the other workspace's writes before it were not.
      const own = await api('/api/v1/runs', {
        body: { playbook: 'playbooks/pr.yml', inputs: { task: 'y' } },
      });
      expect(own.status).toBe(201);
      const [first] = await stream.next(1);
      expect(first!.data.id).toBe(own.body.run.id);
      expect(stream.events.map((e) => e.data.id)).not.toContain(foreign);
      await api(`/api/v1/runs/${own.body.run.id}/cancel`, { body: {} });

      // A run an older version made records no workspace: listed only when asked, opened, never operated.
      const stored = elsewhereStore(ws.home).load(foreign)!;
      const { workspace: _none, ...older } = stored;
      elsewhereStore(ws.home).save({ ...older, id: 'older-1' });
      expect((await api('/api/v1/runs')).body.runs.map((r) => r.id)).not.toContain('older-1');
      const listed = (await api('/api/v1/runs?unowned=1')).body.runs.find((r) => r.id === 'older-1');
      expect(listed).toMatchObject({ id: 'older-1', unowned: true });
      expect((await api('/api/v1/runs/older-1')).status).toBe(200);
      expect((await api('/api/v1/runs/older-1/archive', { body: {} })).status).toBe(404);
    } finally {
      stream.close();
      await close();
    }
  });
});
