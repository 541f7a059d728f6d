import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain as run } from './in-process.js';
import { tempDir } from '../../test/kit/index.js';

let home: string;
let previousHome: string | undefined;
let scenarioDir: string;

beforeAll(() => {
  previousHome = process.env.KAIROKU_PLAYBOOK_HOME;
  home = tempDir('kp-runs-home-');
  process.env.KAIROKU_PLAYBOOK_HOME = home;
  scenarioDir = tempDir('kp-runs-');
  writeFileSync(
    join(scenarioDir, 'fails.yml'),
    `inputs: { task: t }\nsteps:\n  implement: [{ outcome: done, outputs: { branch: feat/x } }]\n  qa: [{ outcome: fail }, { outcome: fail }, { outcome: fail }, { outcome: fail }, { outcome: pass }]\ngates:\n  ship: [{ choice: approve }]\n`,
  );
  writeFileSync(
    join(scenarioDir, 'passes.yml'),
    `inputs: { task: t }\nsteps:\n  implement: [{ outcome: done, outputs: { branch: feat/x } }]\n  qa: [{ outcome: pass }]\ngates:\n  ship: [{ choice: approve }]\n`,
  );
});
afterAll(() => {
  if (previousHome === undefined) delete process.env.KAIROKU_PLAYBOOK_HOME;
  else process.env.KAIROKU_PLAYBOOK_HOME = previousHome;
});

/** Starts a sim run of pr.yml with a scenario and returns its id and final status. */
function start(scenario: string): { id: string; status: string } {
  const result = run(['run', 'playbooks/pr.yml', '--scenario', join(scenarioDir, scenario), '--json']);
  const summary = JSON.parse(result.stdout);
  return { id: summary.id, status: summary.status };
}

const file = (id: string) => JSON.parse(readFileSync(join(home, 'runs', `${id}.json`), 'utf8'));

describe('kairoku-playbook runs', () => {
  it('--help, and is listed in the main help', () => {
    const help = run(['runs', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: kairoku-playbook runs \[list\] \[--all\] \[--json\]/);
    expect(help.stdout).toContain('runs restart ID --from STEP');
    expect(run(['--help']).stdout).toContain(
      'runs [list|show|cancel|pause|resume|restart|decide|archive|prune]',
    );
  });

  it('refuses unknown subcommands, options and runs as usage errors (exit 2)', () => {
    expect(run(['runs', 'lst'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/did you mean "list"/),
    });
    expect(run(['runs', 'show'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/one run id/) });
    expect(run(['runs', 'show', 'pr-nope'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/no run "pr-nope"/),
    });
    expect(run(['runs', 'list', '--from', 'x'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/takes no --from/),
    });
    expect(run(['runs', 'restart', 'x'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/needs --from/),
    });
  });

  it('list shows id, playbook, status, start and steps done/total; --json too', () => {
    const done = start('passes.yml');
    const failed = start('fails.yml');
    expect(done.status).toBe('completed');
    expect(failed.status).toBe('failed');
    const text = run(['runs', 'list']);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toMatch(/^ID\s+PLAYBOOK\s+STATUS\s+STARTED\s+STEPS$/);
    expect(text.stdout).toMatch(new RegExp(`${done.id}\\s+pr\\s+completed\\s+\\S+Z\\s+5/5`));
    expect(text.stdout).toMatch(new RegExp(`${failed.id}\\s+pr\\s+failed\\s+\\S+Z\\s+2/5`));
    const listed = JSON.parse(run(['runs', '--json']).stdout);
    expect(listed.find((r: { id: string }) => r.id === done.id)).toMatchObject({
      playbook: 'pr',
      status: 'completed',
      steps: { done: 5, total: 5 },
      startedAt: expect.any(String),
    });
  });

  it("list reads the store's index, rebuilt from the run files when it is gone", () => {
    const done = start('passes.yml');
    const before = JSON.parse(run(['runs', 'list', '--json']).stdout);
    expect(readFileSync(join(home, 'run-index.jsonl'), 'utf8')).toContain(`"id":"${done.id}"`);
    rmSync(join(home, 'run-index.jsonl'));
    expect(JSON.parse(run(['runs', 'list', '--json']).stdout)).toEqual(before);
  });

  it('show prints the SPEC §8 summary with --json, a readable listing without', () => {
    const failed = start('fails.yml');
    const json = JSON.parse(run(['runs', 'show', failed.id, '--json']).stdout);
    expect(json).toMatchObject({
      id: failed.id,
      playbook: 'pr',
      status: 'failed',
      steps: {
        qa: {
          status: 'failed',
          attempts: [{ outcome: 'fail' }, { outcome: 'fail' }, { outcome: 'fail' }, { outcome: 'fail' }],
        },
      },
      loops: { 'qa.fail': 3 },
    });
    const text = run(['runs', 'show', failed.id]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`run ${failed.id}: pr (Implement, review and land a change)`);
    expect(text.stdout).toMatch(/status: failed/);
    expect(text.stdout).toMatch(/ {2}qa\s+failed\s+4 attempts: fail, fail, fail, fail/);
    expect(text.stdout).toMatch(/ {2}implement\s+completed\s+4 attempts: done, done, done, done/);
    expect(text.stdout).toContain('loops: qa.fail=3');
    expect(text.stdout).toMatch(/history \(last 15 of \d+\):/);
    expect(text.stdout).toMatch(/✗ .*run/);
  });

  it('restart --from continues the run on the sim backend; refused when needs have not completed', () => {
    const failed = start('fails.yml');
    const refused = run(['runs', 'restart', failed.id, '--from', 'review']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('step "review" cannot restart');
    expect(refused.stderr).toMatch(/cannot restart: its needs have not completed \(qa is failed\)/);
    expect(file(failed.id).status).toBe('failed');
    expect(run(['runs', 'restart', failed.id, '--from', 'qax']).stderr).toMatch(/did you mean "qa"/);

    // qa's 5th attempt passes in the scenario: the restarted run completes.
    const restarted = run([
      'runs',
      'restart',
      failed.id,
      '--from',
      'qa',
      '--scenario',
      join(scenarioDir, 'fails.yml'),
      '--json',
    ]);
    expect(restarted.stderr).toBe('');
    expect(restarted.code).toBe(0);
    expect(JSON.parse(restarted.stdout)).toMatchObject({
      id: failed.id,
      status: 'completed',
      steps: { qa: { status: 'completed' } },
      outputs: { branch: 'feat/x' },
    });
    expect(file(failed.id).status).toBe('completed');
    // Without a scenario, --gate decides the gate (a sim run takes --gate too).
    expect(run(['runs', 'restart', failed.id, '--from', 'plan', '--gate', 'ship=approve']).code).toBe(0);
  });

  it("restart leaves alone a sim run another live process drives: its running step is that process's, not lost", async () => {
    const { RunStore, advance, createRun } = await import('@kairoku-playbook/runtime');
    const { compilePlaybook } = await import('@kairoku-playbook/compiler');
    const ir = compilePlaybook(
      't.yml',
      'version: 1\nid: t\ntitle: Test\nsteps:\n  work:\n    role: implementer\n    prompt: Work.\n',
    ).ir!;
    // A run in another workspace whose step's sim agent is at work in another process (a `run`, a serve).
    let claimed = createRun(ir, { id: 't-driven-elsewhere', inputs: {}, now: Date.now(), backend: 'sim' });
    for (const event of [
      { type: 'start' },
      { type: 'start-step', step: 'work' },
      { type: 'step-started', step: 'work', attempt: 1, agent: 'sim:work#1' },
    ] as const)
      claimed = advance(claimed, event, Date.now()).state;
    const store = new RunStore(home);
    store.save({ ...claimed, workspace: tempDir('kp-runs-elsewhere-') });
    // That process: this test's parent, alive for as long as the test runs.
    writeFileSync(join(store.folder, `${claimed.id}.owner`), `${JSON.stringify({ pid: process.ppid })}\n`);
    try {
      const failed = start('fails.yml');
      expect(run(['runs', 'restart', failed.id, '--from', 'plan', '--gate', 'ship=approve']).code).toBe(0);
      const after = file(claimed.id);
      expect(after.status).toBe('running');
      expect(JSON.stringify(after.steps)).not.toContain('lost');
      expect(after.history.map((h: { kind: string }) => h.kind)).not.toContain('step-lost');
    } finally {
      rmSync(join(store.folder, `${claimed.id}.owner`), { force: true });
      rmSync(join(store.folder, `${claimed.id}.json`), { force: true });
    }
  });

  it('cancel applies the core cancel and persists; refused on an ended run with nothing running', () => {
    const done = start('passes.yml');
    // A running run: a copy of the saved file, marked running (a sim run never stays running).
    const record = file(done.id);
    const refused = run(['runs', 'cancel', done.id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/the run has already ended \(completed\) and no after-task is running/);
    record.id = `${done.id}x`;
    record.status = 'running';
    record.endedAt = null;
    writeFileSync(join(home, 'runs', `${record.id}.json`), JSON.stringify(record));
    const canceled = run(['runs', 'cancel', record.id, '--reason', 'not needed']);
    expect(canceled).toMatchObject({ code: 0, stdout: `run ${record.id} canceled\n` });
    const saved = file(record.id);
    expect(saved.status).toBe('canceled');
    expect(saved.reason).toContain('not needed');
    expect(saved.history.at(-1).kind).toBe('run-canceled');
  });

  it("cancel of a run no process drives waits for the store's lock and cancels the run as it is then", async () => {
    const done = start('passes.yml');
    const record = file(done.id);
    record.id = `${done.id}l`;
    record.status = 'running';
    record.endedAt = null;
    const folder = join(home, 'runs');
    writeFileSync(join(folder, `${record.id}.json`), JSON.stringify(record));
    // Another process (an MCP manager's server) holds the store's lock while it changes the run: it
    // loads it, and saves its change a moment later.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs');
         const lock = process.env.FOLDER + '/.lock';
         fs.writeFileSync(lock, process.pid + '\\n', { flag: 'wx' });
         const file = process.env.FOLDER + '/' + process.env.RUN + '.json';
         const run = JSON.parse(fs.readFileSync(file, 'utf8'));
         process.stdout.write('locked\\n');
         setTimeout(() => {
           run.manager = 'the other process';
           fs.writeFileSync(file, JSON.stringify(run));
           fs.unlinkSync(lock);
         }, 700);`,
      ],
      { env: { ...process.env, FOLDER: folder, RUN: record.id }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) => holder.on('exit', resolve));
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const canceled = run(['runs', 'cancel', record.id]);
    await exited;
    expect(canceled).toMatchObject({ code: 0, stdout: `run ${record.id} canceled\n` });
    // Neither change is lost: the other process's, then the cancel on top of it.
    const saved = file(record.id);
    expect(saved.status).toBe('canceled');
    expect(saved.manager).toBe('the other process');
  });

  it('prune: archived runs that ended before the date, named; --dry-run deletes nothing', () => {
    const shared = process.env.KAIROKU_PLAYBOOK_HOME;
    const own = tempDir('kp-prune-home-');
    process.env.KAIROKU_PLAYBOOK_HOME = own;
    try {
      const old = start('passes.yml');
      const kept = start('passes.yml');
      expect(run(['runs', 'archive', old.id]).code).toBe(0);
      const files = () =>
        readdirSync(join(own, 'runs'))
          .filter((n) => n.endsWith('.json'))
          .sort();
      const before = files();
      const dry = run(['runs', 'prune', '--ended-before', '2999-01-01', '--dry-run']);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toMatch(
        new RegExp(`^would delete ${old.id} \\(pr, completed, archived, ended \\S+Z\\)$`, 'm'),
      );
      expect(dry.stdout).toMatch(
        /would delete 1 run\(s\) that ended before 2999-01-01T00:00:00.000Z \([\d.]+ MiB\); kept 1 ended run\(s\) that are not archived/,
      );
      expect(files()).toEqual(before);
      // Nothing ended before 2000: nothing goes.
      expect(run(['runs', 'prune', '--ended-before', '2000-01-01']).stdout).toMatch(/^deleted 0 run\(s\)/);
      const done = run(['runs', 'prune', '--ended-before', '2999-01-01']);
      expect(done.stdout).toContain(`deleted ${old.id} (pr, completed, archived`);
      expect(files()).toEqual([`${kept.id}.json`]);
      expect(
        JSON.parse(run(['runs', 'list', '--all', '--json']).stdout).map((r: { id: string }) => r.id),
      ).toEqual([kept.id]);
      expect(run(['runs', 'prune', '--ended-before', '2999-01-01', '--unarchived']).stdout).toContain(
        `deleted ${kept.id}`,
      );
      expect(files()).toEqual([]);
      expect(run(['runs', 'prune'])).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('needs --ended-before DATE'),
      });
      expect(run(['runs', 'prune', '--ended-before', 'last week'])).toMatchObject({ code: 2 });
    } finally {
      process.env.KAIROKU_PLAYBOOK_HOME = shared;
    }
  });

  it('archive: ended runs only; hidden from list unless --all', () => {
    const done = start('passes.yml');
    expect(run(['runs', 'archive', done.id])).toMatchObject({ code: 0, stdout: `run ${done.id} archived\n` });
    expect(file(done.id).archivedAt).toEqual(expect.any(String));
    expect(run(['runs', 'archive', done.id]).stdout).toContain('already archived');
    expect(run(['runs', 'list']).stdout).not.toContain(done.id);
    expect(run(['runs', 'list', '--all']).stdout).toMatch(
      new RegExp(`${done.id}\\s+pr\\s+completed \\(archived\\)`),
    );
    const json = JSON.parse(run(['runs', 'list', '--all', '--json']).stdout);
    expect(json.find((r: { id: string }) => r.id === done.id).archivedAt).toEqual(expect.any(String));

    const record = file(done.id);
    record.id = `${done.id}r`;
    record.status = 'running';
    delete record.archivedAt;
    writeFileSync(join(home, 'runs', `${record.id}.json`), JSON.stringify(record));
    expect(run(['runs', 'archive', record.id])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/is running: only an ended run can be archived/),
    });
    // A restart needs room: the active copy is in the way (this workspace, and pr.yml allows one at once).
    expect(run(['runs', 'restart', done.id, '--from', 'qa', '--gate', 'ship=approve'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        `run "${record.id}" of playbook "pr" is already active in this workspace`,
      ),
    });
    expect(file(done.id).status).toBe('completed');
    expect(run(['runs', 'cancel', record.id]).code).toBe(0);
    // A restart clears archiving.
    expect(run(['runs', 'restart', done.id, '--from', 'qa', '--gate', 'ship=approve']).code).toBe(0);
    expect(file(done.id).archivedAt).toBeUndefined();
  });
});
