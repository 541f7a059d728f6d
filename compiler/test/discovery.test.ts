import { describe, expect, it } from 'vitest';
import {
  FileWalk,
  WALK_LIMITS,
  discoverPlaybooks,
  displayPath,
  isDiscoveredPath,
  isPlaybookPath,
  walkFiles,
} from '../src/index.js';
import type { DirectoryLister } from '../src/index.js';

/** A folder tree in memory: paths ending in / are folders. */
function lister(paths: string[]): DirectoryLister {
  return {
    readDirectory(directory) {
      const prefix = directory.endsWith('/') ? directory : `${directory}/`;
      const names = new Map<string, boolean>();
      for (const path of paths) {
        if (!path.startsWith(prefix)) continue;
        const rest = path.slice(prefix.length);
        const [name, ...deeper] = rest.split('/');
        if (name) names.set(name, deeper.length > 0 || (names.get(name) ?? false));
      }
      return [...names]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([name, isDirectory]) => ({ name, isDirectory }));
    },
  };
}

describe('playbook discovery (SPEC §2)', () => {
  it('finds *.playbook.yml anywhere and *.yml directly in playbooks/ folders, skipping tests and vendored folders', () => {
    const tree = lister([
      '/w/a.playbook.yml',
      '/w/notes.yml',
      '/w/playbooks/pr.yml',
      '/w/playbooks/pr.test.yml',
      '/w/playbooks/deeper/x.yml',
      '/w/.kairoku/playbooks/k.yaml',
      '/w/.paseo/playbooks/p.yml',
      '/w/node_modules/m/b.playbook.yml',
      '/w/.git/c.playbook.yml',
    ]);
    expect(discoverPlaybooks('/w', tree)).toEqual([
      '/w/.kairoku/playbooks/k.yaml',
      '/w/.paseo/playbooks/p.yml',
      '/w/a.playbook.yml',
      '/w/playbooks/pr.yml',
    ]);
  });

  it('judges single paths the same way, with either separator', () => {
    expect(isPlaybookPath('C:\\repo\\playbooks\\pr.yml')).toBe(true);
    expect(isPlaybookPath('repo/playbooks/pr.test.yaml')).toBe(false);
    expect(isPlaybookPath('repo/x.playbook.yaml')).toBe(true);
    expect(isPlaybookPath('repo/x.yml')).toBe(false);
  });

  it('walks to the playbook tests found where their playbooks would be, and to no other test', () => {
    const tree = lister([
      '/w/playbooks/pr.yml',
      '/w/playbooks/pr.test.yml',
      '/w/playbooks/orphan.test.yaml',
      '/w/deploy.playbook.yml',
      '/w/deploy.playbook.test.yml',
      '/w/test/fixtures/ship.yml',
      '/w/test/fixtures/ship.test.yml',
    ]);
    expect(walkFiles('/w', tree, { accept: isDiscoveredPath }).files).toEqual([
      '/w/deploy.playbook.test.yml',
      '/w/deploy.playbook.yml',
      '/w/playbooks/orphan.test.yaml',
      '/w/playbooks/pr.test.yml',
      '/w/playbooks/pr.yml',
    ]);
  });

  it('shows paths relative to the workspace with forward slashes', () => {
    expect(displayPath('/w/playbooks/pr.yml', '/w')).toBe('playbooks/pr.yml');
    expect(displayPath('/elsewhere/x.yml', '/w')).toBe('/elsewhere/x.yml');
  });
});

/**
 * Folders as a graph, so entries can be links back to any folder: each folder is a map of names to
 * another folder's id or to 'file'. Paths are resolved from the root '/w' (folder 'root').
 */
function graph(folders: Record<string, Record<string, string>>): DirectoryLister & { listed: string[] } {
  const listed: string[] = [];
  const resolve = (path: string): string | undefined => {
    let id: string | undefined = 'root';
    for (const name of path.split('/').slice(2)) id = id && folders[id]?.[name];
    return id && folders[id] ? id : undefined;
  };
  return {
    listed,
    readDirectory(path, max = Infinity) {
      listed.push(path);
      const id = resolve(path);
      const entries = Object.entries(id ? folders[id]! : {})
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([name, target]) => ({ name, isDirectory: target !== 'file' }));
      return entries.length > max ? entries.slice(0, max + 1) : entries;
    },
    identify: resolve,
  };
}

describe('the bounded walk', () => {
  it('walks a folder once however many links lead back to it (ln -s . x, many times)', () => {
    for (const links of [2, 5, 20]) {
      const root: Record<string, string> = { 'a.playbook.yml': 'file' };
      for (let i = 0; i < links; i++) root[`link${i}`] = 'root';
      const tree = graph({ root });
      const walk = walkFiles('/w', tree);
      expect(walk).toEqual({
        files: ['/w/a.playbook.yml'],
        limit: undefined,
        folders: 1,
        entries: links + 1,
      });
      expect(tree.listed).toEqual(['/w']);
    }
  });

  it('walks a folder reached by a link and by its own path once, under the first path in order', () => {
    const tree = graph({
      root: { 'a-link': 'real', real: 'real', z: 'sub' },
      real: { 'r.playbook.yml': 'file', up: 'root' },
      sub: { 's.playbook.yml': 'file' },
    });
    expect(walkFiles('/w', tree).files).toEqual(['/w/a-link/r.playbook.yml', '/w/z/s.playbook.yml']);
  });

  it('says which limit it reached, and keeps what it found before it', () => {
    const wide = graph({
      root: Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [`d${String(i).padStart(2, '0')}`, `f${i}`]),
      ),
      ...Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [`f${i}`, { [`p${i}.playbook.yml`]: 'file' }]),
      ),
    });
    const folders = walkFiles('/w', wide, { limits: { folders: 10 } });
    expect(folders.files).toHaveLength(9);
    expect(folders.limit).toBe(
      'stopped looking for playbooks in /w after 10 folders (the limit); check a smaller folder',
    );
    const entries = walkFiles('/w', wide, { limits: { entries: 20 }, shownRoot: 'the current folder' });
    expect(entries.limit).toBe(
      'stopped looking for playbooks in the current folder after listing 20 files and folders (the limit); check a smaller folder',
    );
    const files = walkFiles('/w', wide, { limits: { files: 3 } });
    expect(files.files).toHaveLength(3);
    expect(files.limit).toBe(
      'stopped looking for playbooks in /w after finding 3 (the limit); check fewer at a time',
    );
  });

  it('does not enter folders deeper than the limit, names the first, and walks the rest', () => {
    const deep: Record<string, Record<string, string>> = { root: { a: 'n1', 'b.playbook.yml': 'file' } };
    for (let i = 1; i <= 5; i++)
      deep[`n${i}`] = { [`p${i}.playbook.yml`]: 'file', ...(i < 5 ? { n: `n${i + 1}` } : {}) };
    const walk = walkFiles('/w', graph(deep), { limits: { depth: 3 } });
    expect(walk.files).toEqual([
      '/w/a/n/n/p3.playbook.yml',
      '/w/a/n/p2.playbook.yml',
      '/w/a/p1.playbook.yml',
      '/w/b.playbook.yml',
    ]);
    expect(walk.limit).toBe(
      'did not look for playbooks in /w/a/n/n/n: it is more than 3 folders below /w (the limit)',
    );
  });

  it('can be taken in steps, with the same result as in one go', () => {
    const tree = graph({
      root: { a: 'a', b: 'b', 'c.playbook.yml': 'file' },
      a: { 'x.playbook.yml': 'file', 'y.playbook.yml': 'file' },
      b: { playbooks: 'p' },
      p: { 'q.yml': 'file', 'q.test.yml': 'file' },
    });
    const walk = new FileWalk('/w', tree);
    let steps = 0;
    while (!walk.advance(1)) steps++;
    expect(steps).toBeGreaterThan(1);
    expect(walk.result()).toEqual(walkFiles('/w', tree));
  });

  it('has documented limits', () => {
    expect(WALK_LIMITS).toEqual({ folders: 100_000, entries: 1_000_000, depth: 64, files: 10_000 });
  });
});
