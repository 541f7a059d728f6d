/** SPEC §2 in the manager protocol: an Ansible playbook in a bare playbooks/ folder is not listed nor validated. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readWorkspace } from '../../src/mcp/workspace.js';
import { removeTempDirs, tempDir } from '../../../test/kit/index.js';

afterEach(removeTempDirs);

describe('the workspace of the manager protocol', () => {
  it('leaves an Ansible playbook in playbooks/ alone and keeps a list where it is ours', () => {
    const root = tempDir('kp-ansible-');
    mkdirSync(join(root, 'playbooks'));
    mkdirSync(join(root, '.kairoku', 'playbooks'), { recursive: true });
    const ansible = '- hosts: all\n  tasks:\n    - ansible.builtin.ping:\n';
    writeFileSync(join(root, 'playbooks', 'site.yml'), ansible);
    writeFileSync(join(root, '.kairoku', 'playbooks', 'list.yml'), ansible);
    writeFileSync(
      join(root, 'playbooks', 'pr.yml'),
      'version: 1\ntitle: PR\nsteps:\n  only:\n    role: implementer\n    prompt: Do it.\n',
    );
    const snapshot = readWorkspace(root);
    expect(snapshot.playbooks.map((p) => p.file)).toEqual([
      '.kairoku/playbooks/list.yml',
      'playbooks/pr.yml',
    ]);
    expect(snapshot.diagnostics.map((d) => [d.file, d.code])).toEqual([
      ['.kairoku/playbooks/list.yml', 'PB104'],
    ]);
  });
});
