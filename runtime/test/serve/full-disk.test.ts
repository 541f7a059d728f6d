/**
 * Write first, then act, on a real full disk (issue 27 item 3): the home on a small tmpfs, filled while a
 * gate waits. The approval answers 507 and starts nothing; the run stays as its file says; serve stays
 * up, answers, and its tick survives; once space returns the same approval goes through and the next
 * step's agent is started exactly once. Needs root (mount); skipped, saying so, where it cannot mount.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackendContext, BackendEffect } from '../../src/driver/backend.js';
import { RunHost } from '../../src/host/run-host.js';
import { startServe } from '../../src/serve/server.js';
import type { RunningServe } from '../../src/serve/server.js';
import { tempDir } from '../../../test/kit/index.js';

const SHIP = `version: 1
id: ship
title: Ship
steps:
  build:
    role: implementer
    prompt: Build it
  ship:
    needs: [build]
    gate:
      title: Ship?
      choices:
        approve: next
        reject: fail
  land:
    needs: [ship]
    role: implementer
    prompt: Land it
`;

const scratch = tempDir('full-disk-');
const home = join(scratch, 'home');
let mounted = false;

beforeAll(() => {
  mkdirSync(home);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', home], { stdio: 'ignore' });
    mounted = true;
  } catch {
    mounted = false;
  }
});

afterAll(() => {
  if (mounted) execFileSync('umount', [home]);
  rmSync(scratch, { recursive: true, force: true });
});

/** A backend whose agents live elsewhere (not in memory): it records every start it is asked for. */
function agents() {
  const started: string[] = [];
  let context: BackendContext | undefined;
  return {
    started,
    report: (step: string) => context!.emit({ type: 'report', step, attempt: 1, outcome: 'done' }),
    backend: {
      name: 'far',
      perform(effect: BackendEffect, ctx: BackendContext) {
        context = ctx;
        if (effect.type !== 'start-agent') return;
        started.push(`${effect.step}#${effect.attempt}`);
        ctx.emit({ type: 'step-started', step: effect.step, attempt: effect.attempt, agent: effect.step });
      },
      agentExists: () => true,
    },
  };
}

/** Fills the tmpfs but for `leave` bytes. */
function fill(leave: number): string {
  const filler = join(home, 'filler');
  const free = Number(
    execFileSync('df', ['--output=avail', '-B1', home], { encoding: 'utf8' }).split('\n')[1],
  );
  writeFileSync(filler, Buffer.alloc(Math.max(0, free - leave)));
  return filler;
}

describe('a full disk', () => {
  it('starts nothing it could not write; the same approval goes through once space returns', async (test) => {
    if (!mounted) test.skip(); // mount needs root: CI runs as root on this machine
    const workspace = tempDir('ws-', scratch);
    mkdirSync(join(workspace, 'playbooks'));
    writeFileSync(join(workspace, 'playbooks', 'ship.yml'), SHIP);
    const far = agents();
    const host = new RunHost({ home, workspace, backend: 'far', backendFor: () => far.backend, tickMs: 50 });
    const serve: RunningServe = await startServe({
      host,
      listen: { host: '127.0.0.1', port: 0 },
      watchPlaybooks: false,
    });
    const api = async (path: string, body?: unknown) => {
      const answer = await fetch(`${serve.url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { Authorization: `Bearer ${serve.token}`, 'Content-Type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads the fields it asked for
      const read = (await answer.json()) as Record<string, any>;
      return { status: answer.status, body: read };
    };
    try {
      const started = await api('/api/v1/runs', { playbook: 'playbooks/ship.yml', inputs: {} });
      expect(started.status).toBe(201);
      const id = started.body.run.id as string;
      far.report('build');
      expect((await api(`/api/v1/runs/${id}`)).body.steps[1].status).toBe('waiting');

      // Room for the store's lock file (one page), none for the run file: the write of the decision fails.
      const filler = fill(4096);
      const refused = await api(`/api/v1/runs/${id}/gates/ship`, { choice: 'approve' });
      expect(refused.status).toBe(507);
      expect(refused.body.refusal.code).toBe('write-failed');
      expect(refused.body.refusal.message).toMatch(
        /^nothing was done: run .* could not be written: the disk is full/,
      );
      expect(far.started).toEqual(['build#1']); // `land` was not started
      // serve answers, and the run is as its file says: the gate still waits.
      await new Promise((resolve) => setTimeout(resolve, 200)); // a few ticks on the full disk
      const meanwhile = await api(`/api/v1/runs/${id}`);
      expect(meanwhile.status).toBe(200);
      expect(meanwhile.body.steps[1].status).toBe('waiting');

      rmSync(filler);
      const approved = await api(`/api/v1/runs/${id}/gates/ship`, { choice: 'approve' });
      expect(approved.status).toBe(200);
      expect(far.started).toEqual(['build#1', 'land#1']);
      expect(host.store.load(id)!.steps).toBeDefined();
    } finally {
      await serve.close();
      host.close();
    }
  });
});
