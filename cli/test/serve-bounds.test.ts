/**
 * serve's bound of a playbook (`GET /api/v1/bounds`, the start form's worst case): the built CLI's serve,
 * which works it out by running its own `compile` in a process of its own, over real HTTP.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, startServe, tempDir } from '../../test/kit/index.js';
import type { ServeProcess } from '../../test/kit/index.js';

let serving: ServeProcess;

beforeAll(async () => {
  const workspace = tempDir('kp-bounds-ws-');
  mkdirSync(join(workspace, 'playbooks'));
  for (const name of ['pr.yml', 'refactor.yml'])
    copyFileSync(join(REPO, 'playbooks', name), join(workspace, 'playbooks', name));
  writeFileSync(join(workspace, 'playbooks', 'broken.yml'), 'version: 1\nid: broken\nsteps: {}\n');
  serving = await startServe({ workspace, home: tempDir('kp-bounds-home-') });
}, 60_000);

afterAll(() => serving?.stop());

async function bounds(playbook: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(
    `${serving.url}/api/v1/bounds?${new URLSearchParams({ playbook }).toString()}`,
    {
      headers: { authorization: `Bearer ${serving.token}` },
    },
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('GET /api/v1/bounds', () => {
  it('answers the worst case of a run as compile writes it into the IR', async () => {
    const { status, body } = await bounds('playbooks/pr.yml');
    expect(status).toBe(200);
    expect(body).toEqual({
      playbook: 'playbooks/pr.yml',
      bounds: {
        explored: true,
        agentTurns: 17,
        gateDecisions: 3,
        chainTurns: expect.any(Number),
        longestMs: 14_400_000,
      },
    });
    // a second ask is answered from what serve kept, the same
    expect(await bounds('playbooks/pr.yml')).toEqual({ status, body });
  }, 60_000);

  it('keeps answering while it works out a bound that takes seconds (the explorer runs in compile, not in serve)', async () => {
    const order: string[] = [];
    // refactor.yml's runs are many: its exploration takes seconds
    const slow = bounds('playbooks/refactor.yml').then((answer) => (order.push('bounds'), answer));
    const list = await fetch(`${serving.url}/api/v1/playbooks`, {
      headers: { authorization: `Bearer ${serving.token}` },
    });
    order.push('playbooks');
    expect(list.status).toBe(200);
    const answer = await slow;
    expect(order).toEqual(['playbooks', 'bounds']);
    expect(answer.body).toMatchObject({ bounds: { explored: true, gateDecisions: 3 } });
  }, 120_000);

  it('says why a playbook with errors has none, and refuses one the workspace does not have', async () => {
    expect(await bounds('playbooks/broken.yml')).toEqual({
      status: 200,
      body: { playbook: 'playbooks/broken.yml', why: 'the playbook has errors: it has no bound' },
    });
    const unknown = await bounds('playbooks/nope.yml');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ refusal: { code: 'unknown-playbook' } });
  }, 60_000);
});
