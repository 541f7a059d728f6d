/**
 * SPEC §2 in `check`: an Ansible playbook (a list of plays) found only because it is in a bare playbooks/
 * folder is skipped; named on the command line it is checked and its one diagnostic says what it is.
 */
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from './in-process.js';
import { tempDir } from '../../test/kit/index.js';

const WORKSPACE = join(import.meta.dirname, 'fixtures', 'ansible-workspace');

describe('check in a workspace with Ansible playbooks in playbooks/', () => {
  it('checks the playbooks that are ours and leaves the Ansible ones out', () => {
    const result = runMain(['check', '--format', 'json'], WORKSPACE);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([]);
    const text = runMain(['check'], WORKSPACE);
    expect(text.stdout).toContain('in 1 file');
  });

  it('checks an Ansible playbook named on the command line, with a message that has a subject', () => {
    const result = runMain(['check', '--format', 'json', 'playbooks/site.yml'], WORKSPACE);
    expect(result.code).toBe(1);
    const [diagnostic, ...more] = JSON.parse(result.stdout) as { code: string; message: string }[];
    expect(more).toEqual([]);
    expect(diagnostic!.code).toBe('PB104');
    expect(diagnostic!.message).toMatch(
      /^a playbook is a mapping of keys .*, not a list; if this is an Ansible playbook/,
    );
  });

  it('says why a folder of only Ansible playbooks has no playbooks (exit 2)', () => {
    const dir = tempDir('kp-ansible-');
    try {
      cpSync(join(WORKSPACE, 'playbooks', 'site.yml'), join(dir, 'playbooks', 'site.yml'), {
        recursive: true,
      });
      const result = runMain(['check'], dir);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(
        'no playbooks found in this folder (*.playbook.yml, or *.yml directly in a playbooks/ folder); playbooks/site.yml is not a playbook: its top level is not a mapping',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
