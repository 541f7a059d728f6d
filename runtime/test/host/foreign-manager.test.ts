/**
 * A run a manager of its own manages (the MCP server's, a manager agent's) is theirs: a host that
 * serves the workspace (serve) shows it and applies an operator's decision to it, but never takes it
 * over — no claim, no autopilot, its manager kept — so the manager still decides what runs next.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { vecToArray } from '@kairoku-playbook/machine';
import type { RunState } from '@kairoku-playbook/machine';
import { RunHost } from '../../src/host/run-host.js';
import { simBackendFor } from '../../src/serve/backends.js';
import { compileFile } from '../helpers.js';
import { tempDir } from '../../../test/kit/index.js';

const PR = compileFile('playbooks/pr.yml');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

const statusOf = (state: RunState, step: string) =>
  vecToArray(state.steps).find((s) => s.name === step)!.status;

function hosts() {
  const home = tempDir('foreign-manager-');
  const workspace = '/work/space';
  const quiet = {
    name: 'sim',
    perform: () => undefined,
    agentExists: () => true,
  };
  const manager = new RunHost({ home, workspace, backend: 'sim' });
  const serve = new RunHost({ home, workspace, backend: 'sim', backendFor: simBackendFor(undefined) });
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  cleanups.push(() => manager.close());
  cleanups.push(() => serve.close());
  const started = manager.startManaged(
    PR,
    { task: 'x' },
    { manager: 'claude (mcp client)' },
    { backend: () => quiet },
    (driver) => driver.send({ type: 'start' }),
  );
  if (!started.ok) throw new Error(started.refusal.message);
  return { home, serve, id: started.value.state.id };
}

describe("a run another manager manages, operated by serve's host", () => {
  it('is paused and resumed in place: not claimed, not driven, its manager kept, nothing started', () => {
    const { home, serve, id } = hosts();
    expect(serve.recover().adopted).toEqual([]);
    const paused = serve.operate(id, { type: 'pause' });
    expect(paused.ok && paused.value.status).toBe('paused');
    const resumed = serve.operate(id, { type: 'resume' });
    if (!resumed.ok) throw new Error(resumed.refusal.message);
    expect(resumed.value).toMatchObject({ status: 'running', manager: 'claude (mcp client)' });
    // Autopilot would have started plan; the manager starts it (start_step), so it is still ready.
    expect(statusOf(resumed.value, 'plan')).toBe('ready');
    expect(serve.active).not.toContain(id);
    expect(existsSync(join(home, 'runs', `${id}.owner`))).toBe(false);
  });

  it('is canceled in place', () => {
    const { serve, id } = hosts();
    const canceled = serve.operate(id, { type: 'cancel', reason: 'from the panel' });
    if (!canceled.ok) throw new Error(canceled.refusal.message);
    expect(canceled.value).toMatchObject({ status: 'canceled', manager: 'claude (mcp client)' });
    expect(serve.active).not.toContain(id);
  });

  it('is restarted in place once ended, archived or not: its manager kept, no longer archived, not claimed', () => {
    const { serve, id } = hosts();
    expect(serve.operate(id, { type: 'cancel', reason: 'from the panel' }).ok).toBe(true);
    expect(serve.operate(id, { type: 'archive' }).ok).toBe(true);
    const restarted = serve.operate(id, { type: 'restart', step: 'plan' });
    if (!restarted.ok) throw new Error(restarted.refusal.message);
    expect(restarted.value).toMatchObject({ status: 'running', manager: 'claude (mcp client)' });
    expect(restarted.value.archivedAt).toBeUndefined();
    expect(statusOf(restarted.value, 'plan')).toBe('ready');
    expect(serve.active).not.toContain(id);
  });
});
