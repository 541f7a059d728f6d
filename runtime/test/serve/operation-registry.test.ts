/**
 * Adding an operator's operation is one registration (issue 22): a fake operation registered in
 * `host/operations.ts` is routed by serve's API and applied by `RunHost.operate` wherever the run is
 * (here in place, its effects carried), with nothing else edited.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { registerOperation } from '../../src/host/operations.js';
import type { Operation } from '../../src/host/operations.js';
import { RunHost } from '../../src/host/run-host.js';
import { prWorkspace, serveOnSim } from '../../../test/kit/index.js';

// "hold": pause, with a note of why, at POST /api/v1/runs/ID/steps/STEP/hold (a made-up operation).
registerOperation({
  type: 'hold',
  route: 'steps/:step/hold',
  body: 'empty',
  read: ({ step }) => ({ type: 'hold', step }) as unknown as Operation,
  apply: () => ({ event: { type: 'pause' } }),
});

const ws = prWorkspace();
afterAll(() => ws.cleanup());

describe('an operation registered once', () => {
  it("is routed by serve's API and applied to the hosted run", async () => {
    const { api, close } = await serveOnSim(ws.root, ws.home);
    try {
      const started = await api('/api/v1/runs', {
        body: { playbook: 'playbooks/pr.yml', inputs: { task: 'x' } },
      });
      const id = started.body.run.id;
      const held = await api(`/api/v1/runs/${id}/steps/plan/hold`, { body: {} });
      expect(held.status).toBe(200);
      expect(held.body.run.status).toBe('paused');
      // A route it does not declare is still no route.
      expect((await api(`/api/v1/runs/${id}/steps/plan/hold/now`, { body: {} })).status).toBe(404);
      await api(`/api/v1/runs/${id}/cancel`, { body: {} });
    } finally {
      await close();
    }
  });

  it('is applied in place, like every other, by a host that drives nothing of its own', () => {
    const host = new RunHost({ home: ws.home, workspace: ws.root, backend: 'sim' });
    try {
      const run = host.list().runs[0]!;
      const resumed = host.operate(run.id, { type: 'restart', step: 'plan' });
      expect(resumed.ok).toBe(true);
      const held = host.operate(run.id, { type: 'hold' } as unknown as Operation);
      expect(held.ok && held.value.status).toBe('paused');
      expect(host.operate(run.id, { type: 'no-such' } as unknown as Operation)).toMatchObject({
        ok: false,
        refusal: { code: 'unknown-operation' },
      });
    } finally {
      host.close();
    }
  });
});
