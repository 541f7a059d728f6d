import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { vecToArray } from '@kairoku-playbook/machine';
import type { RunState } from '@kairoku-playbook/machine';
import { recoverRuns } from '../../src/store/recover.js';
import { lockStore } from '../../src/store/lock.js';
import { RunStore } from '../../src/store/run-store.js';
import { repo } from '../helpers.js';
import { prng } from '../../../test/support/random.js';
import { CLI, tempDir } from '../../../test/kit/index.js';

/**
 * Kills a real `kairoku-playbook run` process with SIGKILL at random moments of its run and checks the
 * store afterwards (SPEC §6, runtime/README "The store"): every run file is whole JSON, recovery applies
 * the lost-agent rule, and the run can be taken to the end the playbook says.
 */

const KILLS = 50;
const PARALLEL = 3;
const DELAY_MS = 10;
const SECRET = 'sk-secret-value-1234';
const cli = CLI;
const playbook = join(repo, 'playbooks/pr.yml');
const SCENARIO = `inputs: { task: add a flag, strict: true, api_key: ${SECRET} }
steps:
  implement: [{ outcome: done, outputs: { branch: feat/kill } }]
  qa: [{ outcome: fail, summary: red }, { outcome: fail, summary: red }, { outcome: pass }]
  review: [{ outcome: changes_requested, summary: rename }, { outcome: approved, outputs: { verdict: approve } }]
gates:
  ship: [{ choice: revise, comment: smaller }, { choice: approve }]
`;

let scenario: string;
/** wall time of a whole run, and of the process until its first run file appears */
let total = 0;
let startup = 0;
/** history entries of a whole run: kills inside the run are placed by its progress, not by the clock */
let events = 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function cliArgs(home: string): { args: string[]; env: NodeJS.ProcessEnv } {
  return {
    args: [cli, 'run', playbook, '--scenario', scenario, '--json', '--sim-delay', String(DELAY_MS)],
    env: { ...process.env, KAIROKU_PLAYBOOK_HOME: home },
  };
}

function runFiles(home: string): string[] {
  try {
    return readdirSync(join(home, 'runs'));
  } catch {
    return [];
  }
}

beforeAll(async () => {
  if (
    !existsSync(cli) ||
    !/sim-delay/.test(readFileSync(join(repo, 'cli/dist/kairoku-playbook.bundle.cjs'), 'utf8'))
  ) {
    const built = spawnSync('sh', ['-c', 'npx tsc -b && node cli/build.mjs'], {
      cwd: repo,
      encoding: 'utf8',
    });
    if (built.status !== 0) throw new Error(`build failed:\n${built.stdout}\n${built.stderr}`);
  }
  const dir = tempDir('kp-kill-');
  scenario = join(dir, 'scenario.yml');
  writeFileSync(scenario, SCENARIO);
  // One whole run: how long it takes, and that it completes as the scenario says.
  const home = tempDir('kp-kill-home-');
  const { args, env } = cliArgs(home);
  const begun = Date.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  const watching = (async () => {
    while (!runFiles(home).some((n) => n.endsWith('.json'))) await sleep(1);
    startup = Date.now() - begun;
  })();
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  total = Date.now() - begun;
  await watching;
  expect(code).toBe(0);
  events = historyLength(home);
  expect(events).toBeGreaterThan(20);
  expect(JSON.parse(stdout)).toMatchObject({ status: 'completed', outputs: { branch: 'feat/kill' } });
}, 120_000);

/** How many history entries the run file of `home` holds (0 before it is written). */
function historyLength(home: string): number {
  const file = runFiles(home).find((n) => n.endsWith('.json') && !n.startsWith('.'));
  if (!file) return 0;
  try {
    return (JSON.parse(readFileSync(join(home, 'runs', file), 'utf8')) as { history: unknown[] }).history
      .length;
  } catch {
    return 0; // replaced while it was read: the next look sees it whole
  }
}

/** What the run file said when the process died: the phase the kill hit. */
function phase(state: RunState | undefined): string {
  if (!state) return 'before the first write';
  if (state.status !== 'running') {
    const after = state.after.filter((a) => a.status === 'running').map((a) => `after.${a.name}`);
    return `run ${state.status}${after.length ? `, ${after.join(', ')} running` : ''}`;
  }
  const active = vecToArray(state.steps).filter(
    (s) => !['pending', 'completed', 'skipped'].includes(s.status),
  );
  if (!active.length) return state.startedAt ? 'between steps' : 'created, not started';
  return active.map((s) => `${s.name} ${s.status}`).join(', ');
}

interface Trial {
  seed: number;
  killAt: number;
  phase: string;
  stray: string[];
  lost: string[];
  continued: string;
  afterTaskLeftRunning: boolean;
}

/**
 * A CLI command run to its end without blocking the event loop: the other trial, running at the same
 * time, places its kill by polling its run file, which a synchronous spawn would hold up.
 */
function runCli(
  argv: string[],
  home: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...argv], {
      cwd: repo,
      env: { ...process.env, KAIROKU_PLAYBOOK_HOME: home },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

async function trial(seed: number): Promise<Trial> {
  const random = prng(seed);
  const home = tempDir('kp-kill-home-');
  const { args, env } = cliArgs(home);
  const begun = Date.now();
  const child = spawn(process.execPath, args, { env, stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  // One kill in ten at any moment of the process's life (start-up included); the others spread
  // over the run itself: after a random number of its events have been written (the run's own
  // progress, so a slow machine moves the kills with it), then within one sim agent's turn.
  let killAt: number;
  if (random() < 0.1) {
    killAt = Math.floor(random() * total);
    await sleep(killAt);
  } else {
    const target = 1 + Math.floor(random() * (events - 1));
    let done = false;
    // `exited` never rejects; the loop below reads the flag it sets.
    void exited.then(() => (done = true));
    while (!done && historyLength(home) < target && Date.now() - begun < 60_000) await sleep(2);
    await sleep(random() * DELAY_MS);
    killAt = Date.now() - begun;
  }
  child.kill('SIGKILL');
  await exited;

  // 1. Every file under runs/ is whole: *.json parse; temp files are dot-files that are not *.json.
  const names = runFiles(home);
  // `run` claims the run it drives (`<id>.owner`): a killed one leaves its claim, which counts for
  // nothing once its process is gone (checked below).
  const claims = names.filter((n) => /^pr-[0-9a-f]{6}\.owner$/.test(n));
  // A kill inside one of the store's locked moments (creating the run, recovery at start) leaves the
  // store's lock: its process is gone, so the next process takes it over (lockStore), as below.
  const lock: string[] = names.filter((n) => n === '.lock');
  const stray = names.filter(
    (n) => (!n.endsWith('.json') || n.startsWith('.')) && !claims.includes(n) && !lock.includes(n),
  );
  for (const name of stray) expect(name, `seed ${seed}`).toMatch(/^\.pr-[0-9a-f]{6}\.json\.\d+\.\d+\.tmp$/);
  const runs = names.filter((n) => n.endsWith('.json') && !n.startsWith('.'));
  expect(runs.length, `seed ${seed}`).toBeLessThanOrEqual(1);
  for (const name of names) {
    const text = readFileSync(join(home, 'runs', name), 'utf8');
    expect(text, `seed ${seed}: ${name}`).not.toContain(SECRET);
    // (the lock holds its maker's pid, or nothing when the kill came between making and writing it)
    if (lock.includes(name)) expect(text, `seed ${seed}: ${name}`).toMatch(/^(\d+\n)?$/);
    else if (!stray.includes(name)) expect(() => JSON.parse(text), `seed ${seed}: ${name}`).not.toThrow();
  }
  const store = new RunStore(home);
  if (lock.length)
    expect(
      lockStore(store.folder, () => 'taken over', { waitMs: 2000 }),
      `seed ${seed}`,
    ).toBe('taken over');
  for (const claim of claims)
    expect(store.owner(claim.slice(0, -'.owner'.length)), `seed ${seed}`).toBeUndefined();
  const loaded = store.loadAll();
  expect(loaded.problems, `seed ${seed}`).toEqual([]);
  const before = loaded.runs[0];
  const result: Trial = {
    seed,
    killAt,
    phase: phase(before),
    stray,
    lost: [],
    continued: 'nothing to continue',
    afterTaskLeftRunning: false,
  };
  if (!before) return result;

  // 2. Recovery: running steps' agents are gone (sim agents never outlive their process).
  const recovery = recoverRuns(store, { backend: 'sim', agentExists: () => false, now: Date.now() });
  const state = recovery.runs[0]!;
  const wasRunning = vecToArray(before.steps).filter((s) => s.status === 'running');
  const lost = recovery.recovered.flatMap((r) => r.lost);
  // After-tasks whose agents died are lost too, whatever the run's status; they never change it.
  const wasRunningAfter = before.after.filter((a) => a.status === 'running').map((a) => `after.${a.name}`);
  result.lost = lost.filter((name) => !name.startsWith('after.'));
  expect(result.lost, `seed ${seed}`).toEqual(
    before.status === 'running' || before.status === 'paused' ? wasRunning.map((s) => s.name) : [],
  );
  expect(
    lost.filter((name) => name.startsWith('after.')),
    `seed ${seed}`,
  ).toEqual(wasRunningAfter);
  expect(
    vecToArray(state.steps).filter((s) => s.status === 'running'),
    `seed ${seed}`,
  ).toEqual([]);
  for (const name of result.lost) {
    const run = vecToArray(state.steps).find((s) => s.name === name)!;
    // pr.yml gives no retries: the attempt ends lost, so does the step, and the run fails (README "Lost").
    expect(run.attempts.at(-1)?.ended, `seed ${seed}`).toBe('lost');
    expect(run.status).toBe('lost');
    expect(state.status).toBe('failed');
  }
  expect(store.load(state.id), `seed ${seed}`).toEqual(state);
  result.afterTaskLeftRunning = state.after.some((a) => a.status === 'running');
  expect(result.afterTaskLeftRunning, `seed ${seed}: recovery leaves no after-task running`).toBe(false);

  // 3. Continue: a run still going is canceled (nothing else drives a sim run), then restarted from
  // the first step whose needs completed; it ends as the scenario says.
  if (state.status === 'completed') {
    result.continued = 'already completed';
    return result;
  }
  if (state.status === 'running' || state.status === 'paused') {
    const canceled = await runCli(['runs', 'cancel', state.id, '--reason', 'killed'], home);
    expect(canceled.status, `seed ${seed}: ${canceled.stderr}`).toBe(0);
  }
  const current = store.load(state.id)!;
  expect(current.status, `seed ${seed}`).toMatch(/failed|canceled/);
  // A run killed between creation and start restarts from its first step like any other.
  const neverStarted = current.startedAt === null;
  const steps = vecToArray(current.steps);
  const from = current.ir.steps.find(
    (s, i) =>
      steps[i]!.status !== 'completed' &&
      s.needs.every((n) => ['completed', 'skipped'].includes(steps[n]!.status)),
  )!;
  const restarted = await runCli(
    ['runs', 'restart', state.id, '--from', from.name, '--scenario', scenario, '--json'],
    home,
  );
  expect(restarted.status, `seed ${seed}: ${restarted.stderr}`).toBe(0);
  expect(JSON.parse(restarted.stdout), `seed ${seed}`).toMatchObject({
    id: state.id,
    status: 'completed',
    outputs: { branch: 'feat/kill' },
  });
  result.continued = `${current.status}${neverStarted ? ' (never started)' : ''} → restart --from ${from.name} → completed`;
  expect(readFileSync(store.path(state.id), 'utf8')).not.toContain(SECRET);
  return result;
}

describe('SIGKILL at random moments of a run', () => {
  it(`${KILLS} kills: whole files, recovery, and the run ends as the playbook says`, async () => {
    const seeds = Array.from({ length: KILLS }, (_, i) => 0x5eed + i * 7919);
    const trials: Trial[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < seeds.length) trials.push(await trial(seeds[next++]!));
      }),
    );
    expect(trials).toHaveLength(KILLS);
    const tally = new Map<string, number>();
    for (const t of trials) tally.set(t.phase, (tally.get(t.phase) ?? 0) + 1);
    const continued = new Map<string, number>();
    for (const t of trials) continued.set(t.continued, (continued.get(t.continued) ?? 0) + 1);
    console.log(
      [
        `kill test: ${KILLS} kills; a whole run takes ${total} ms (${startup} ms to its first write)`,
        `kill moments (ms): ${trials
          .map((t) => t.killAt)
          .sort((a, b) => a - b)
          .join(' ')}`,
        'phases hit:',
        ...[...tally].sort((a, b) => b[1] - a[1]).map(([p, n]) => `  ${n} × ${p}`),
        'continued:',
        ...[...continued].sort((a, b) => b[1] - a[1]).map(([p, n]) => `  ${n} × ${p}`),
        `stray temp files: ${trials.reduce((n, t) => n + t.stray.length, 0)}`,
        `after-tasks left running after recovery: ${trials.filter((t) => t.afterTaskLeftRunning).length}`,
      ].join('\n'),
    );
    // The kills reached the run itself, not only start-up.
    expect(trials.filter((t) => t.lost.length).length).toBeGreaterThan(KILLS / 5);
  }, 300_000);
});
