import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compilePlaybook } from '@kairoku-playbook/compiler';
import { createRun } from '@kairoku-playbook/machine';
import type { RunState } from '@kairoku-playbook/machine';
import { fileStamp } from '../../src/store/run-index.js';
import { watchStore } from '../../src/host/store-watch.js';
import { RunStore } from '../../src/store/run-store.js';
import { tempDir } from '../../../test/kit/index.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function run(id: string): RunState {
  const { ir } = compilePlaybook('w.yml', 'version: 1\nid: w\ntitle: W\nsteps:\n  only:\n    run: make\n');
  return createRun(ir!, { id, inputs: {}, now: 0, backend: 'sim', branch: '' });
}

/** Resolves with the next runs the watch reports, `count` of them, or what it has after `ms`. */
function collector() {
  const seen: RunState[] = [];
  let waiter: (() => void) | undefined;
  return {
    seen,
    changed: (state: RunState) => {
      seen.push(state);
      waiter?.();
    },
    settle: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    next: () => new Promise<void>((resolve) => (waiter = resolve)),
  };
}

describe('watchStore', () => {
  it('reports each run file another process writes, once, and none of its own writes', async () => {
    const home = tempDir('store-watch-');
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const mine = new RunStore(home);
    const own = new Map<string, string>();
    const writeOwn = (state: RunState) => {
      mine.save(state);
      own.set(state.id, fileStamp(mine.path(state.id))!);
    };
    const seen = collector();
    const watch = watchStore({ store: mine, ownStamp: (id) => own.get(id), changed: seen.changed });
    cleanups.push(() => watch.close());

    writeOwn(run('own-1'));
    const other = new RunStore(home);
    const next = seen.next();
    other.save({ ...run('other-1'), reason: 'written elsewhere' });
    await next;
    // A burst (several events of one rename) settles into one report; the own write never comes.
    await seen.settle(200);
    expect(seen.seen.map((s) => [s.id, s.reason])).toEqual([['other-1', 'written elsewhere']]);

    // A later write of the same file by the other process is news again; this process's is not.
    const again = seen.next();
    other.save({ ...run('other-1'), reason: 'again' });
    await again;
    writeOwn({ ...run('own-1'), reason: 'mine' });
    await seen.settle(200);
    expect(seen.seen.map((s) => s.reason)).toEqual(['written elsewhere', 'again']);
  });

  it('leaves out temp files, request files and files that are not runs', async () => {
    const home = tempDir('store-watch-');
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const store = new RunStore(home);
    const seen = collector();
    const watch = watchStore({ store, ownStamp: () => undefined, changed: seen.changed });
    cleanups.push(() => watch.close());
    store.request('nobody-1', { type: 'pause' });
    writeFileSync(join(store.folder, 'notes.txt'), 'x');
    writeFileSync(join(store.folder, 'bad id!.json'), '{}');
    await seen.settle(200);
    expect(seen.seen).toEqual([]);
  });
});
