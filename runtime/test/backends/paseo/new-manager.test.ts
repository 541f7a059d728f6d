/**
 * serve's "Start on a new agent" when the daemon is slow (issue 25 item 3): the Start is answered at
 * once, the manager agent is made in the background, and a create that times out is looked up by the
 * run's labels — adopted when the daemon made it after all, the run failed when it did not, and an
 * agent made later still is archived by serve's watch, never left behind.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PaseoClient } from '../../../src/backends/paseo/client.js';
import { MANAGER_BEING_MADE, startWithNewManager } from '../../../src/backends/paseo/manager-agent.js';
import type { NewManagerRequest } from '../../../src/backends/paseo/manager-agent.js';
import { PaseoRunWatch } from '../../../src/backends/paseo/run-watch.js';
import { RunHost } from '../../../src/host/run-host.js';
import { FakePaseoDaemon, tempDir } from '../../../../test/kit/index.js';
import type { FakePaseoOptions } from '../../../../test/kit/index.js';
import { playbook } from '../../helpers.js';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(options: FakePaseoOptions) {
  const fake = await FakePaseoDaemon.start(options);
  const home = tempDir('kp-new-manager-');
  const workspace = tempDir('kp-new-manager-ws-');
  const host = new RunHost({ home, workspace, backend: 'paseo' });
  const client = await PaseoClient.connect({ host: fake.host, log: () => undefined });
  cleanups.push(
    () => fake.close(),
    () => rmSync(home, { recursive: true, force: true }),
    () => rmSync(workspace, { recursive: true, force: true }),
    () => host.close(),
    () => client.close(),
  );
  const request: NewManagerRequest = {
    host,
    ir: playbook('  plan:\n    role: implementer\n    prompt: Plan.\n'),
    inputs: {},
    options: {},
    provider: 'claude',
    mcpServer: () => ({ command: 'true', args: [], env: {} }),
    client: () => Promise.resolve(client),
    createTimeoutMs: 300,
  };
  return { fake, host, client, request };
}

const managers = (fake: FakePaseoDaemon) =>
  [...fake.agents.values()].filter((a) => a.labels['kairoku.role'] === 'manager');

describe('a manager agent made in the background', () => {
  it('answers at once with the manager being made, and adopts an agent whose create answer came too late', async () => {
    const { fake, host, request } = await setUp({ createAnswerDelayMs: 5_000 });
    const started = await startWithNewManager(request);
    expect(started.ok).toBe(true);
    if (!started.ok) return;
    expect(started.value.state.manager).toBe(MANAGER_BEING_MADE);
    await started.done;
    const [manager] = managers(fake);
    // Its own tools pre-approved, as seed 000 says, through the daemon's Claude options.
    expect(manager!.config.extra).toEqual({
      claude: {
        allowedTools: expect.arrayContaining([
          'mcp__kairoku-playbook__start_step',
          'mcp__kairoku-playbook__complete_step',
        ]),
      },
    });
    const run = host.get(started.value.state.id);
    expect(run.ok && run.value).toMatchObject({
      status: 'running',
      manager: expect.stringContaining(manager!.id),
    });
  });

  it('fails the run when the daemon made nothing in time, and archives the agent it makes later', async () => {
    const { fake, host, client, request } = await setUp({ holdCreates: true });
    const watch = new PaseoRunWatch({ client, host, keepAgents: false, log: () => undefined, settleMs: 10 });
    cleanups.push(() => watch.close());
    await watch.start([], []);
    const started = await startWithNewManager(request);
    if (!started.ok) throw new Error(started.refusal.message);
    await started.done;
    const run = host.get(started.value.state.id);
    expect(run.ok && run.value).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining('Paseo did not make its manager agent'),
    });
    // The daemon makes it after all: an idle manager of an ended run is archived.
    fake.releaseCreates();
    await vi.waitFor(() => expect(managers(fake)).toHaveLength(1), { timeout: 5_000 });
    const [late] = managers(fake);
    await fake.quiet();
    await vi.waitFor(() => expect(late!.archivedAt).not.toBeNull(), { timeout: 10_000, interval: 50 });
  });
});
