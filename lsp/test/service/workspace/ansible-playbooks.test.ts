/**
 * SPEC §2 in the language server: an Ansible playbook (a list of plays) in a bare playbooks/ folder is
 * not ours, on disk or open: no diagnostics, no features, and `playbookFiles` (what Check workspace and
 * the extension ask) leaves it out. A *.playbook.yml or a file under .kairoku/playbooks/ stays ours.
 */
import { describe, expect, it } from 'vitest';
import { discover } from '../../../src/server/discovery.js';
import { PlaybookLanguageService } from '../../../src/service/language-service.js';
import { memoryFs } from '../../support/memory-fs.js';

const ANSIBLE = '- name: Web\n  hosts: webservers\n  tasks:\n    - name: Ping\n      ansible.builtin.ping:\n';
const PLAYBOOK = 'version: 1\ntitle: PR\nsteps:\n  only:\n    role: implementer\n    prompt: Do it.\n';

function service(files: Record<string, string>) {
  const language = new PlaybookLanguageService(memoryFs(files));
  language.setFolders([{ uri: 'file:///ws', name: 'ws' }]);
  discover(language);
  return language;
}

describe('an Ansible playbook in a bare playbooks/ folder (SPEC §2)', () => {
  const files = {
    '/ws/playbooks/site.yml': ANSIBLE,
    '/ws/playbooks/pr.yml': PLAYBOOK,
    '/ws/.kairoku/playbooks/list.yml': ANSIBLE,
    '/ws/deploy.playbook.yml': ANSIBLE,
  };

  it('gets no diagnostics on disk, while the same list where it is ours does', () => {
    const result = service(files).validate();
    expect([...result.onDisk.keys()].sort()).toEqual([
      'file:///ws/.kairoku/playbooks/list.yml',
      'file:///ws/deploy.playbook.yml',
      'file:///ws/playbooks/pr.yml',
    ]);
    expect(result.onDisk.get('file:///ws/deploy.playbook.yml')!.map((d) => d.code)).toEqual(['PB104']);
  });

  it('gets no diagnostics and no features open, and is ours again once its top level is a mapping', () => {
    const language = service(files);
    const uri = 'file:///ws/playbooks/site.yml';
    language.openDocument(uri, ANSIBLE, 1);
    expect(language.isPlaybook(uri)).toBe(false);
    expect(language.validate().open.has(uri)).toBe(false);
    expect(language.documentSymbols(uri)).toEqual([]);
    expect(language.hover(uri, { line: 1, character: 3 })).toBeNull();
    language.changeDocument(uri, PLAYBOOK.replace('PR', 'Site'), 2);
    expect(language.isPlaybook(uri)).toBe(true);
    expect(language.validate().open.get(uri)).toEqual([]);
  });

  it('is left out of playbookFiles, read from disk when the server does not have it', () => {
    const language = service({});
    const disk = memoryFs(files);
    const known = service(files);
    const uris = [
      'file:///ws/playbooks/site.yml',
      'file:///ws/playbooks/pr.yml',
      'file:///ws/.kairoku/playbooks/list.yml',
      'file:///ws/deploy.playbook.yml',
      'file:///ws/playbooks/pr.test.yml',
    ];
    expect(known.playbookFiles(uris)).toEqual(uris.slice(1, 4));
    // (a server that has not discovered them reads them)
    const fresh = new PlaybookLanguageService(disk);
    expect(fresh.playbookFiles(uris)).toEqual(uris.slice(1, 4));
    expect(language.playbookFiles(['untitled:Untitled-1'])).toEqual([]);
  });
});
