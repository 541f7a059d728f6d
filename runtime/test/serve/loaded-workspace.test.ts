/**
 * serve keeps one loaded workspace (loaded-workspace.ts): a Start reads no playbook that has not changed
 * (counted through the file system serve loads with), and an edited playbook is seen through the watch.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diskFileSystem } from '@kairoku-playbook/compiler/disk';
import type { WorkspaceFileSystem } from '@kairoku-playbook/compiler';
import { serveWorkspace } from '../../src/serve/loaded-workspace.js';
import { openEvents, prWorkspace, serveOnSim, waitFor } from '../../../test/kit/index.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const playbook = (n: number, title = `Playbook ${n}`) =>
  `version: 1\nid: p${n}\ntitle: ${title}\nsteps:\n  only:\n    role: implementer\n    prompt: Do ${n}.\n`;

/** The disk, counting the files read. */
function countingDisk(): { fs: WorkspaceFileSystem; reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    fs: {
      ...diskFileSystem,
      readFile: (path, limit, what) => {
        reads.push(path);
        return diskFileSystem.readFile(path, limit, what);
      },
    },
  };
}

describe('serve’s loaded workspace', () => {
  it('starts a run of a 50-playbook workspace reading no playbook that has not changed, and sees an edit', async () => {
    const ws = prWorkspace();
    cleanups.push(ws.cleanup);
    mkdirSync(join(ws.root, 'more'));
    for (let n = 0; n < 50; n++) writeFileSync(join(ws.root, 'more', `p${n}.playbook.yml`), playbook(n));
    const disk = countingDisk();
    const s = await serveOnSim(ws.root, ws.home, { watchPlaybooks: true, workspaceFs: disk.fs });
    cleanups.push(s.close);
    expect(disk.reads.filter((path) => path.endsWith('.playbook.yml')).length).toBe(50);

    disk.reads.length = 0;
    const started = await s.api('/api/v1/runs', { body: { playbook: 'more/p3.playbook.yml', inputs: {} } });
    expect(started.status).toBe(201);
    expect((await s.api('/api/v1/playbooks')).status).toBe(200);
    expect(disk.reads).toEqual([]);

    const stream = openEvents(s.serve.url, s.serve.token);
    cleanups.push(stream.close);
    await stream.ready;
    writeFileSync(join(ws.root, 'more', 'p7.playbook.yml'), playbook(7, 'Edited'));
    expect((await stream.next(1))[0]!.event).toBe('playbooks');
    await waitFor('a read of the edited playbook', () => disk.reads.length > 0, 5000);
    const cards = (await s.api('/api/v1/playbooks')).body.playbooks;
    expect(cards.find((c) => c.id === 'more/p7.playbook.yml')?.title).toBe('Edited');
    const again = await s.api('/api/v1/runs', { body: { playbook: 'more/p7.playbook.yml', inputs: {} } });
    expect(again.status).toBe(201);
    expect(disk.reads).toEqual([join(ws.root, 'more', 'p7.playbook.yml')]);
  });

  it('without a watch, looks at the files on each question and reads only the changed ones', () => {
    const ws = prWorkspace();
    cleanups.push(ws.cleanup);
    const disk = countingDisk();
    const loaded = serveWorkspace(ws.root, { fs: disk.fs, watch: false });
    cleanups.push(() => loaded.close());
    expect(loaded.snapshot().playbooks.map((p) => p.file)).toEqual([
      'playbooks/broken.yml',
      'playbooks/pr.yml',
    ]);
    disk.reads.length = 0;
    loaded.snapshot();
    expect(disk.reads).toEqual([]);
    writeFileSync(join(ws.root, 'playbooks', 'new.yml'), playbook(1));
    expect(loaded.snapshot().playbooks.map((p) => p.file)).toContain('playbooks/new.yml');
    expect(disk.reads).toEqual([join(ws.root, 'playbooks', 'new.yml')]);
  });

  it('where watching fails, looks every pollMs for the events and on each question for the answer', async () => {
    const ws = prWorkspace();
    cleanups.push(ws.cleanup);
    const disk = countingDisk();
    let changes = 0;
    // (no folder may be watched: as when inotify has no watch left)
    const loaded = serveWorkspace(ws.root, {
      fs: disk.fs,
      maxFolders: 0,
      pollMs: 20,
      changed: () => changes++,
    });
    cleanups.push(() => loaded.close());
    expect(loaded.watching).toBe(false);
    disk.reads.length = 0;
    writeFileSync(join(ws.root, 'playbooks', 'new.yml'), playbook(1));
    await waitFor('the change to be seen', () => changes === 1, 5000);
    expect(loaded.snapshot().playbooks.map((p) => p.file)).toContain('playbooks/new.yml');
    expect(disk.reads).toEqual([join(ws.root, 'playbooks', 'new.yml')]);
  });

  it('follows the policy found above the workspace root', async () => {
    const ws = prWorkspace();
    cleanups.push(ws.cleanup);
    const root = join(ws.root, 'sub');
    mkdirSync(join(root, 'playbooks'), { recursive: true });
    mkdirSync(join(ws.root, '.kairoku'));
    writeFileSync(join(ws.root, '.kairoku', 'policy.yml'), 'gated: []\n');
    writeFileSync(
      join(root, 'playbooks', 'ship.yml'),
      'version: 1\nid: ship\ntitle: Ship\nsteps:\n  image:\n    run: docker push app\n',
    );
    let changes = 0;
    const loaded = serveWorkspace(root, { settleMs: 20, changed: () => changes++ });
    cleanups.push(() => loaded.close());
    const pb700 = () => loaded.snapshot().diagnostics.filter((d) => d.code === 'PB700').length;
    expect(pb700()).toBe(0);
    writeFileSync(join(ws.root, '.kairoku', 'policy.yml'), 'gated: [docker push*]\n');
    await waitFor('the change to be seen', () => changes === 1, 5000);
    expect(pb700()).toBe(1);
  });
});
