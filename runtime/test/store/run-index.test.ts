import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/store/atomic-write.js';
import { RunStore, serializeRun } from '../../src/store/run-store.js';
import { Run, compileFile, repo } from '../helpers.js';
import { tempDir } from '../../../test/kit/index.js';

const pr = compileFile('playbooks/pr.yml');

/** A run of pr.yml: started (running) and, when asked, canceled (an ended run). */
function runOf(id: string, ended = false): Run {
  const run = new Run(pr, { task: id });
  run.state = { ...run.state, id, workspace: '/ws' };
  run.send({ type: 'start' });
  if (ended) run.send({ type: 'cancel', reason: 'enough' });
  return run;
}

function indexLines(store: RunStore): { id: string; status?: string; removed?: boolean }[] {
  return readFileSync(store.index.path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

describe('the run index', () => {
  it('lists what every save wrote, without the run files being read again', () => {
    const store = new RunStore(tempDir());
    store.save(runOf('a').state);
    store.save(runOf('b', true).state);
    const { entries, problems } = store.list();
    expect(problems).toEqual([]);
    expect(entries.map((e) => [e.id, e.status, e.workGoing]).sort()).toEqual([
      ['a', 'running', true],
      ['b', 'canceled', false],
    ]);
    expect(entries.find((e) => e.id === 'a')).toMatchObject({ workspace: '/ws', playbook: 'pr', waiting: 0 });
    expect(indexLines(store).map((l) => l.id)).toEqual(['a', 'b']);
  });

  it('is rebuilt from the run files when it is missing or a line is cut', () => {
    const store = new RunStore(tempDir());
    store.save(runOf('a').state);
    store.save(runOf('b', true).state);
    rmSync(store.index.path);
    expect(
      store
        .list()
        .entries.map((e) => e.id)
        .sort(),
    ).toEqual(['a', 'b']);
    appendFileSync(store.index.path, '{"id":"a","stat');
    expect(
      store
        .list()
        .entries.map((e) => `${e.id} ${e.status}`)
        .sort(),
    ).toEqual(['a running', 'b canceled']);
  });

  it('reads a run file again when another writer changed it behind the index', () => {
    const store = new RunStore(tempDir());
    store.save(runOf('a').state);
    // An older version (or a writer that died before its index line) wrote the file: the stamp differs.
    writeFileAtomic(store.path('a'), serializeRun(runOf('a', true).state));
    expect(store.list().entries[0]).toMatchObject({ id: 'a', status: 'canceled', workGoing: false });
    expect(indexLines(store).at(-1)).toMatchObject({ id: 'a', status: 'canceled' });
  });

  it('sees a write between two listings a moment apart (the stamps kept between them are let go)', async () => {
    const store = new RunStore(tempDir());
    store.save(runOf('a').state);
    await new Promise((settled) => setTimeout(settled, 150)); // (the run folder's stamp settles)
    expect(store.list().entries[0]!.status).toBe('running');
    writeFileAtomic(store.path('a'), serializeRun(runOf('a', true).state));
    expect(store.list().entries[0]!.status).toBe('canceled');
  });

  it('drops a run whose file is gone, and reports one that does not read until it changes', () => {
    const store = new RunStore(tempDir());
    store.save(runOf('a').state);
    store.save(runOf('b').state);
    rmSync(store.path('a'));
    writeFileSync(store.path('b'), '{"broken":');
    const first = store.list();
    expect(first.entries).toEqual([]);
    expect(first.problems.map((p) => p.id)).toEqual(['b']);
    expect(store.list().problems.map((p) => p.id)).toEqual(['b']);
    store.remove('b');
    expect(store.list()).toEqual({ entries: [], problems: [] });
  });

  it('is compacted to a line per run when it has grown past twice the runs and 1,000 lines', () => {
    const store = new RunStore(tempDir());
    store.save(runOf('a').state);
    const line = readFileSync(store.index.path, 'utf8');
    appendFileSync(store.index.path, line.repeat(1010));
    expect(store.list().entries.map((e) => e.id)).toEqual(['a']);
    expect(indexLines(store)).toHaveLength(1);
  });

  it('loads whole only the runs with work going', () => {
    const store = new RunStore(tempDir());
    store.save(runOf('a').state);
    store.save(runOf('b', true).state);
    expect(store.loadActive().runs.map((r) => r.id)).toEqual(['a']);
  });

  it('shows the true status after a process is killed between the run file and its index line', async () => {
    const home = tempDir();
    const store = new RunStore(home);
    store.save(runOf('a').state);
    const ended = join(home, 'ended.json');
    writeFileSync(ended, serializeRun(runOf('a', true).state));
    const child = spawn(process.execPath, [join(repo, 'runtime/test/store/save-and-stop.mjs'), home, ended], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    await new Promise<void>((between, fail) => {
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('between')) between();
      });
      child.once('exit', () => fail(new Error(`the child ended first: ${err}`)));
    });
    child.kill('SIGKILL');
    await new Promise((done) => child.once('exit', done));
    // The run file says canceled; the index's last line for it still says running.
    expect(JSON.parse(readFileSync(store.path('a'), 'utf8')).status).toBe('canceled');
    expect(indexLines(store).at(-1)).toMatchObject({ id: 'a', status: 'running' });
    expect(new RunStore(home).list().entries.map((e) => `${e.id} ${e.status}`)).toEqual(['a canceled']);
    expect(new RunStore(home).loadActive().runs).toEqual([]);
  });
});
