import { describe, expect, it } from 'vitest';
import { discoverPlaybooks, displayPath, isPlaybookPath } from '../src/index.js';
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

  it('shows paths relative to the workspace with forward slashes', () => {
    expect(displayPath('/w/playbooks/pr.yml', '/w')).toBe('playbooks/pr.yml');
    expect(displayPath('/elsewhere/x.yml', '/w')).toBe('/elsewhere/x.yml');
  });
});
