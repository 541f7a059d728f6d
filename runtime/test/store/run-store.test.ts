import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readScenario } from '../../src/backends/scenario.js';
import { MASK, stepRun, vecToArray } from '@kairoku-playbook/machine';
import { runSim } from '../../src/testing/sim-run.js';
import { recoverRuns } from '../../src/store/recover.js';
import { RunStore, defaultHome, deserializeRun, serializeRun } from '../../src/store/run-store.js';
import { Run, compileFile } from '../helpers.js';
import { tempDir } from '../../../test/kit/index.js';

const pr = compileFile('playbooks/pr.yml');
const home = () => tempDir('kp-home-');

describe('the run store', () => {
  it('removes temp files that killed processes left mid-write, and keeps those of live ones', () => {
    const store = new RunStore(home());
    const run = new Run(pr, { task: 'x' });
    store.save(run.state);
    const folder = join(store.path(run.state.id), '..');
    const dead = `.${run.state.id}.json.999999999.0.tmp`;
    const live = `.${run.state.id}.json.${process.pid}.7.tmp`;
    writeFileSync(join(folder, dead), '{"partial":');
    writeFileSync(join(folder, live), '{"partial":');
    expect(store.loadAll().problems).toEqual([]);
    const left = readdirSync(folder);
    expect(left).not.toContain(dead);
    expect(left).toContain(live);
  });

  it('lives in $KAIROKU_PLAYBOOK_HOME, else ~/.kairoku-playbook', () => {
    expect(defaultHome({ KAIROKU_PLAYBOOK_HOME: '/x/y' })).toBe('/x/y');
    expect(defaultHome({})).toMatch(/\.kairoku-playbook$/);
  });

  it('writes one JSON file per run under runs/ and reads it back equal', () => {
    const store = new RunStore(home());
    const run = new Run(pr, { task: 'x' });
    run.send({ type: 'start' });
    run.pass('plan', 'done', { plan: 'p', files: ['a'] });
    store.save(run.state);
    expect(readdirSync(store.folder)).toEqual(['run-1.json']);
    const text = readFileSync(join(store.folder, 'run-1.json'), 'utf8');
    // The file holds plain arrays of steps and history, for people and other tools.
    const record = JSON.parse(text);
    expect(record.steps.map((s: { name: string }) => s.name)).toEqual([
      'plan',
      'implement',
      'qa',
      'review',
      'ship',
    ]);
    expect(record.history[0]).toMatchObject({ kind: 'run-started' });
    const loaded = store.load('run-1')!;
    expect(serializeRun(loaded)).toBe(text);
    expect(vecToArray(loaded.steps)).toEqual(vecToArray(run.state.steps));
    // A loaded run goes on where it stopped.
    run.state = loaded;
    run.pass('implement', 'done', { branch: 'b' });
    expect(run.status('qa')).toBe('ready');
  });

  it('loads every run, and reports a file that does not read instead of failing', () => {
    const store = new RunStore(home());
    const a = new Run(pr, { task: 'x' });
    store.save(a.state);
    writeFileSync(join(store.folder, 'broken.json'), '{"version": 1, "ir": {"ir": 9}}');
    const { runs, problems } = store.loadAll();
    expect(runs.map((r) => r.id)).toEqual(['run-1']);
    expect(problems).toEqual([
      {
        file: join(store.folder, 'broken.json'),
        message:
          'its IR snapshot is invalid: unsupported IR version 9: this runtime reads IR version 1; recompile the playbook with this toolchain',
      },
    ]);
    expect(() => deserializeRun('{"version": 7}')).toThrow(
      'unsupported run state version 7 (this runtime reads 1)',
    );
    expect(() => store.path('../etc/passwd')).toThrow('invalid run id');
  });

  it('on start, also marks after-tasks of an ended run lost when their agents are gone', () => {
    const store = new RunStore(home());
    const run = new Run(pr, { task: 'x', strict: true });
    run.send({ type: 'start' });
    run.pass('plan', 'done', { plan: 'p', files: [] });
    run.pass('implement', 'done', { branch: 'b' });
    run.pass('qa', 'pass');
    run.pass('review', 'approved', { verdict: 'approve' });
    run.send({ type: 'request-gate', step: 'ship' });
    run.send({ type: 'gate-decided', step: 'ship', choice: 'approve' });
    expect(run.state.status).toBe('completed');
    run.send({ type: 'start-step', step: 'after.summarize' });
    run.send({ type: 'step-started', step: 'after.summarize', attempt: 1, agent: 'agent-9' });
    store.save(run.state);
    const { recovered } = recoverRuns(store, { backend: 'sim', agentExists: () => false, now: 0 });
    expect(recovered.map((r) => r.lost)).toEqual([['after.summarize']]);
    const saved = store.load(run.state.id)!;
    expect(saved.status).toBe('completed');
    expect(saved.after.find((a) => a.name === 'summarize')!.status).not.toBe('running');
  });

  it('on start, marks running steps whose agents no longer exist lost, and tells the manager', () => {
    const store = new RunStore(home());
    const run = new Run(pr, { task: 'x' });
    run.send({ type: 'start' });
    run.send({ type: 'start-step', step: 'plan' });
    run.send({ type: 'step-started', step: 'plan', attempt: 1, agent: 'agent-1' });
    store.save(run.state);
    // The agent still exists: nothing changes.
    expect(
      recoverRuns(store, { backend: 'sim', agentExists: (a) => a === 'agent-1', now: 0 }).recovered,
    ).toEqual([]);
    const { recovered } = recoverRuns(store, {
      backend: 'sim',
      agentExists: () => false,
      now: Date.UTC(2025, 0, 2),
    });
    expect(recovered).toHaveLength(1);
    expect(recovered[0]!.lost).toEqual(['plan']);
    expect(recovered[0]!.effects).toContainEqual({
      type: 'wake-manager',
      wakeups: [
        expect.objectContaining({ kind: 'lost', step: 'plan' }),
        expect.objectContaining({ kind: 'run-ended' }),
      ],
    });
    const saved = store.load('run-1')!;
    expect(stepRun(saved, 'plan')).toMatchObject({ status: 'lost', attempts: [{ ended: 'lost' }] });
    expect(saved.status).toBe('failed');
    // Runs of other backends are theirs to check.
    expect(recoverRuns(store, { backend: 'paseo', agentExists: () => false, now: 0 }).recovered).toEqual([]);
  });

  it('never holds a secret: grep the whole home folder after a run', () => {
    const folder = home();
    const store = new RunStore(folder);
    const SECRET = 'sk-live-do-not-leak-42';
    const { scenario } = readScenario(
      {
        inputs: { task: 'x', api_key: SECRET },
        steps: { qa: [{ outcome: 'fail', summary: `token ${SECRET} rejected` }, { outcome: 'pass' }] },
      },
      pr,
    );
    const result = runSim({ ir: pr, scenario, id: 'pr-secret', persist: (s) => store.save(s) });
    expect(result.ok && result.state.status).toBe('completed');
    const everything = grepAll(folder);
    expect(everything).toContain('pr-secret');
    expect(everything).not.toContain(SECRET);
    expect(everything).toContain(MASK);
  });
});

function grepAll(folder: string): string {
  let text = '';
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += readFileSync(join(entry.parentPath, entry.name), 'utf8');
  }
  return text;
}

describe('a run driven by another process', () => {
  it('is claimed, asked to cancel through a request file, and released', () => {
    const store = new RunStore(tempDir('kp-owner-'));
    // This process's own claim is not "another process".
    store.claim('r-1');
    expect(store.owner('r-1')).toBeUndefined();
    // A claim by a live process (our parent) counts; one by a dead pid does not.
    writeFileSync(join(store.folder, 'r-1.owner'), JSON.stringify({ pid: process.ppid }));
    expect(store.owner('r-1')).toBe(process.ppid);
    writeFileSync(join(store.folder, 'r-1.owner'), JSON.stringify({ pid: 2 ** 22 + 12345 }));
    expect(store.owner('r-1')).toBeUndefined();
    writeFileSync(join(store.folder, 'r-1.owner'), 'garbage');
    expect(store.owner('r-1')).toBeUndefined();

    expect(store.takeRequests('r-1')).toEqual([]);
    store.request('r-1', { type: 'pause' });
    store.requestCancel('r-1', 'not today');
    // Another run's requests are its own, also for an id that starts the same.
    store.request('r-10', { type: 'resume' });
    writeFileSync(join(store.folder, 'r-1.request-0-0-0'), 'garbage');
    expect(store.takeRequests('r-1')).toEqual([{ type: 'pause' }, { type: 'cancel', reason: 'not today' }]);
    expect(store.takeRequests('r-1')).toEqual([]);
    expect(store.takeRequests('r-10')).toEqual([{ type: 'resume' }]);
    store.requestCancel('r-1', undefined);
    store.release('r-1');
    expect(readdirSync(store.folder)).toEqual([]);
    expect(store.loadAll().runs).toEqual([]);
  });
});
