/**
 * The workspace loader (loader.ts) over a disk in memory that counts its reads: what it finds and
 * refuses, the policy found from the files' own location, the Ansible rule, the playbooks beside
 * playbook tests, and a second load that reads only what changed.
 */
import { describe, expect, it } from 'vitest';
import { WorkspaceLoader, findPolicyFile } from '../../src/index.js';
import type { FileRead, WorkspaceFileSystem } from '../../src/index.js';

const playbook = (title: string, run = 'npm test') =>
  `version: 1\ntitle: ${title}\nsteps:\n  only:\n    run: ${run}\n`;

/** A disk in memory: path → text (or a refusal); `reads` counts the files read, `versions` bumps on a write. */
function memoryDisk(initial: Record<string, string | Exclude<FileRead, { bytes: Uint8Array }>>) {
  const files = new Map(Object.entries(initial));
  const versions = new Map([...files.keys()].map((path) => [path, 1]));
  const disk = {
    reads: [] as string[],
    write(path: string, text: string) {
      files.set(path, text);
      versions.set(path, (versions.get(path) ?? 0) + 1);
    },
    fs: {
      readFile(path) {
        const file = files.get(path);
        if (file === undefined) return { problem: 'missing', message: 'no such file' };
        disk.reads.push(path);
        return typeof file === 'string' ? { bytes: new TextEncoder().encode(file) } : file;
      },
      version: (path) => (files.has(path) ? String(versions.get(path)) : undefined),
      readDirectory(path) {
        const prefix = path.endsWith('/') ? path : `${path}/`;
        const names = new Map<string, boolean>();
        for (const file of files.keys()) {
          if (!file.startsWith(prefix)) continue;
          const [name, ...rest] = file.slice(prefix.length).split('/');
          names.set(name!, rest.length > 0 || (names.get(name!) ?? false));
        }
        return [...names]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([name, isDirectory]) => ({ name, isDirectory }));
      },
    } satisfies WorkspaceFileSystem,
  };
  return disk;
}

const show = (root: string) => (path: string) =>
  path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;

describe('the workspace loader', () => {
  it('loads playbooks, tests and the policy; refuses one PB100 each; leaves an Ansible playbook out', () => {
    const disk = memoryDisk({
      '/ws/.kairoku/policy.yml': 'gated: [docker push*]\n',
      '/ws/playbooks/ship.yml': playbook('Ship', 'docker push app'),
      '/ws/playbooks/ship.test.yml': 'tests: []\n',
      '/ws/playbooks/site.yml': '- hosts: all\n',
      '/ws/pipe.playbook.yml': { problem: 'not-a-file', message: 'it is a named pipe (FIFO)' },
    });
    const loaded = new WorkspaceLoader(disk.fs, {
      paths: [{ path: '/ws', folder: true }],
      show: show('/ws'),
    }).load();
    expect(loaded.files.map((f) => f.file)).toEqual([
      'playbooks/ship.test.yml',
      'playbooks/ship.yml',
      '.kairoku/policy.yml',
    ]);
    expect(loaded.notOurs).toEqual(['playbooks/site.yml']);
    expect(loaded.refusals.map((r) => r.diagnostic)).toEqual([
      {
        file: 'pipe.playbook.yml',
        range: { start: 0, end: 0 },
        severity: 'error',
        code: 'PB100',
        message: 'this file is not read: it is a named pipe (FIFO)',
      },
    ]);
    expect(loaded.diagnostics.filter((d) => d.code === 'PB700').map((d) => d.file)).toEqual([
      'playbooks/ship.yml',
    ]);
    expect(loaded.playbooks().map((p) => [p.file, p.ir !== undefined])).toEqual([
      ['pipe.playbook.yml', false],
      ['playbooks/ship.yml', true], // (PB700 is a warning unless the policy is strict)
    ]);
  });

  it('finds the policy from a named file’s own folder, and the folders above it', () => {
    const disk = memoryDisk({
      '/elsewhere/repo/.kairoku/policy.yml': 'gated: [docker push*]\n',
      '/elsewhere/repo/playbooks/ship.yml': playbook('Ship', 'docker push app'),
    });
    expect(findPolicyFile(disk.fs, '/elsewhere/repo/playbooks')).toBe('/elsewhere/repo/.kairoku/policy.yml');
    const loaded = new WorkspaceLoader(disk.fs, {
      paths: [{ path: '/elsewhere/repo/playbooks/ship.yml', folder: false }],
      show: (path) => path,
    }).load();
    expect(loaded.policy).toBe('/elsewhere/repo/.kairoku/policy.yml');
    expect(loaded.diagnostics.map((d) => d.code)).toEqual(['PB700']);
  });

  it('reads the playbook beside a test named alone, for the test only', () => {
    const disk = memoryDisk({
      '/ws/ship.yml': playbook('Ship'),
      '/ws/ship.test.yml': 'tests: []\n',
    });
    const loaded = new WorkspaceLoader(disk.fs, {
      paths: [{ path: '/ws/ship.test.yml', folder: false }],
      show: show('/ws'),
    }).load();
    expect(loaded.validation.analyses.has('ship.yml')).toBe(true);
    expect(loaded.playbooks()).toEqual([]);
  });

  it('reads again only the files that changed, and says when nothing did', () => {
    const initial: Record<string, string> = {};
    for (let i = 0; i < 50; i++) initial[`/ws/playbooks/p${i}.yml`] = playbook(`P${i}`);
    const disk = memoryDisk(initial);
    const loader = new WorkspaceLoader(disk.fs, {
      paths: [{ path: '/ws', folder: true }],
      show: show('/ws'),
    });
    const first = loader.load();
    expect(first.reads).toBe(50);
    expect(first.playbooks().filter((p) => p.ir).length).toBe(50);
    disk.reads.length = 0;
    const again = loader.load();
    expect([again.reads, again.changed, disk.reads]).toEqual([0, false, []]);
    expect(again.playbooks()).toBe(first.playbooks());
    disk.write('/ws/playbooks/p7.yml', 'version: 1\ntitle: P7\nsteps: {}\n');
    const edited = loader.load();
    expect([edited.reads, edited.changed, disk.reads]).toEqual([1, true, ['/ws/playbooks/p7.yml']]);
    expect(edited.playbooks().find((p) => p.file === 'playbooks/p7.yml')!.ir).toBeUndefined();
    expect(edited.playbooks().find((p) => p.file === 'playbooks/p8.yml')!.ir).toBe(
      first.playbooks().find((p) => p.file === 'playbooks/p8.yml')!.ir,
    );
  });
});
