/**
 * A repository says which paths are not playbooks (`.kairoku/exclude`, issue 23): `check`, `diff` and
 * serve's and the MCP server's workspace (`readWorkspace`) leave them out; a file named on the command
 * line is still checked.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readWorkspace } from '@kairoku-playbook/runtime/mcp';
import { runMain } from './in-process.js';
import { tempDir } from '../../test/kit/index.js';

const GOOD = 'version: 1\nid: good\ntitle: Good\nsteps:\n  a:\n    role: implementer\n    prompt: do it\n';
const BROKEN = 'version: 1\nid: broken\ntitle: Broken\nsteps:\n  a:\n    needs: [nope]\n    prompt: x\n';

const root = tempDir('excludes-');
afterAll(() => rmSync(root, { recursive: true, force: true }));
function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}
write('playbooks/good.yml', GOOD);
write('test/fixtures/err/playbooks/broken.yml', BROKEN);
write('examples/deploy.playbook.yml', BROKEN);

describe('.kairoku/exclude', () => {
  it('is honoured by check, which still checks a file named on the command line', () => {
    expect(runMain(['check'], root).code).toBe(1); // before: the fixtures are playbooks
    write('.kairoku/exclude', '# not playbooks: the fixtures and the examples\ntest/fixtures/\nexamples\n');
    const clean = runMain(['check', '--format', 'json'], root);
    expect(clean.code).toBe(0);
    expect(runMain(['check', 'test/fixtures/err/playbooks/broken.yml'], root).code).toBe(1);
    // a folder checked is walked as it is: the excludes are those of the folder walked (the workspace)
    expect(runMain(['check', 'test'], root).stdout).toContain('test/fixtures/err/playbooks/broken.yml');
  });

  it("is honoured by serve's and the MCP server's workspace", () => {
    write('.kairoku/exclude', 'test/fixtures/\nexamples\n');
    expect(readWorkspace(root).playbooks.map((p) => p.file)).toEqual(['playbooks/good.yml']);
  });

  it('is honoured by diff between two revisions', () => {
    const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
    git('init', '-q');
    git(
      '-c',
      'user.email=t@example.invalid',
      '-c',
      'user.name=t',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'base',
    );
    write('.kairoku/exclude', 'test/fixtures/\nexamples\n');
    git('add', '-A');
    git('-c', 'user.email=t@example.invalid', '-c', 'user.name=t', 'commit', '-q', '-m', 'head');
    const diffed = runMain(['diff', 'HEAD~1', 'HEAD', '--format', 'json'], root);
    expect(diffed.stdout).toContain('good');
    expect(diffed.stdout).not.toContain('broken');
  });
});
