/**
 * `.kairoku/exclude` (issue 23): globs of paths that are not playbooks, a small part of `.gitignore`'s
 * syntax, matched against paths below the folder that holds `.kairoku/`.
 */
import { describe, expect, it } from 'vitest';
import { excludeTest, parseExcludes } from '../src/workspace/excludes.js';
import { walkFiles } from '../src/workspace/discovery.js';
import type { DirectoryLister } from '../src/workspace/discovery.js';

const ROOT = '/repo';

function test(text: string) {
  const found = excludeTest(ROOT, text);
  if (!found) throw new Error('no patterns');
  return (relative: string, isDirectory = false) => found(`${ROOT}/${relative}`, isDirectory);
}

describe('an exclude file', () => {
  it('reads one glob a line, without comments and blank lines', () => {
    expect(parseExcludes('# fixtures\n\ntest/fixtures/\r\n  *.draft.yml  \n')).toEqual([
      'test/fixtures/',
      '*.draft.yml',
    ]);
    expect(excludeTest(ROOT, '# nothing\n\n')).toBeUndefined();
  });

  it('anchors a pattern with a slash, matches a bare name at any depth, and a trailing slash only folders', () => {
    const excluded = test('test/fixtures/\nexamples\n*.draft.yml\n/vendor/**/playbooks/');
    expect(excluded('test/fixtures', true)).toBe(true);
    expect(excluded('test/fixtures/ok/playbooks/a.yml')).toBe(true); // below a folder that matches
    expect(excluded('other/test/fixtures/playbooks/a.yml')).toBe(false); // anchored
    expect(excluded('deep/down/examples/playbooks/a.yml')).toBe(true); // a name at any depth
    expect(excluded('playbooks/pr.draft.yml')).toBe(true);
    expect(excluded('playbooks/pr.yml')).toBe(false);
    expect(excluded('vendor/a/b/playbooks/x.yml')).toBe(true); // ** across segments
    expect(test('fixtures/')('fixtures')).toBe(false); // a file named like the folder
    expect(excludeTest(ROOT, 'playbooks/')!('/elsewhere/playbooks/a.yml', false)).toBe(false);
  });

  it('keeps the walk out of an excluded folder and leaves out an excluded file', () => {
    const tree: Record<string, { name: string; isDirectory: boolean }[]> = {
      '/repo': [
        { name: 'playbooks', isDirectory: true },
        { name: 'test', isDirectory: true },
      ],
      '/repo/playbooks': [
        { name: 'pr.draft.yml', isDirectory: false },
        { name: 'pr.yml', isDirectory: false },
      ],
      '/repo/test': [{ name: 'fixtures', isDirectory: true }],
      '/repo/test/fixtures': [{ name: 'playbooks', isDirectory: true }],
      '/repo/test/fixtures/playbooks': [{ name: 'bad.yml', isDirectory: false }],
    };
    const entered: string[] = [];
    const lister: DirectoryLister = {
      readDirectory: (path) => {
        entered.push(path);
        return tree[path] ?? [];
      },
    };
    const exclude = excludeTest(ROOT, 'test/fixtures/\n*.draft.yml\n');
    expect(walkFiles(ROOT, lister).files).toEqual([
      '/repo/playbooks/pr.draft.yml',
      '/repo/playbooks/pr.yml',
      '/repo/test/fixtures/playbooks/bad.yml',
    ]);
    entered.length = 0;
    expect(walkFiles(ROOT, lister, { exclude }).files).toEqual(['/repo/playbooks/pr.yml']);
    expect(entered).not.toContain('/repo/test/fixtures');
  });
});
