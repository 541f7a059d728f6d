/**
 * SPEC §2: a bare `playbooks/` folder is where Ansible keeps its playbooks too. A file found only by that
 * folder rule is ours when its top level is a mapping; a list (a list of plays) or a scalar is left alone.
 * A file named to `check` is always checked, and then its diagnostic says what it is in a sentence.
 */
import { describe, expect, it } from 'vitest';
import { analyzeFile, isPlaybookFile, isSharedFolderPath, topLevelKind } from '../src/index.js';

const ANSIBLE = `- name: Configure web servers
  hosts: webservers
  become: true
  tasks:
    - name: Install nginx
      ansible.builtin.apt:
        name: nginx
`;

describe('what is ours in a bare playbooks/ folder (SPEC §2)', () => {
  it('only a plain *.yml directly in a playbooks/ folder is decided by its content', () => {
    expect(isSharedFolderPath('/w/playbooks/site.yml')).toBe(true);
    expect(isSharedFolderPath('C:\\w\\playbooks\\site.yaml')).toBe(true);
    expect(isSharedFolderPath('/w/playbooks/pr.playbook.yml')).toBe(false);
    expect(isSharedFolderPath('/w/.kairoku/playbooks/pr.yml')).toBe(false);
    expect(isSharedFolderPath('/w/.paseo/playbooks/pr.yml')).toBe(false);
    expect(isSharedFolderPath('/w/playbooks/pr.test.yml')).toBe(false);
    expect(isSharedFolderPath('/w/other/pr.yml')).toBe(false);
  });

  it('reads the top level from the syntax: mapping, list, scalar or empty', () => {
    expect(topLevelKind(ANSIBLE)).toBe('list');
    expect(topLevelKind('---\n# plays\n- import_playbook: web.yml\n')).toBe('list');
    expect(topLevelKind('[a, b]\n')).toBe('list');
    expect(topLevelKind('\ufeffversion: 1\n')).toBe('mapping');
    expect(topLevelKind('%YAML 1.2\n---\n{ version: 1 }\n')).toBe('mapping');
    expect(topLevelKind('just text\n')).toBe('scalar');
    expect(topLevelKind('# only a comment\n')).toBe('empty');
    expect(topLevelKind('')).toBe('empty');
    // a playbook half written, with a syntax error at the top: still ours, its error is worth showing
    expect(topLevelKind('version: 1\nsteps: [\n')).toBe('mapping');
  });

  it('leaves an Ansible playbook in playbooks/ alone, and keeps everything named or placed as ours', () => {
    expect(isPlaybookFile('/w/playbooks/site.yml', ANSIBLE)).toBe(false);
    expect(isPlaybookFile('/w/playbooks/notes.yml', 'hello\n')).toBe(false);
    expect(isPlaybookFile('/w/playbooks/pr.yml', 'version: 1\n')).toBe(true);
    expect(isPlaybookFile('/w/playbooks/new.yml', '')).toBe(true);
    expect(isPlaybookFile('/w/playbooks/site.playbook.yml', ANSIBLE)).toBe(true);
    expect(isPlaybookFile('/w/.kairoku/playbooks/site.yml', ANSIBLE)).toBe(true);
    expect(isPlaybookFile('/w/playbooks/pr.test.yml', 'inputs: {}\n')).toBe(false);
  });

  it('says what a list at the top level is, with a subject (it was "PB104  must be a mapping, not a list")', () => {
    const diagnostics = analyzeFile('playbooks/site.yml', ANSIBLE).diagnostics;
    expect(diagnostics.map((d) => d.code)).toEqual(['PB104']);
    expect(diagnostics[0]!.message).toMatch(
      /^a playbook is a mapping of keys \(version, title, steps, …\), not a list; if this is an Ansible playbook/,
    );
    const scalar = analyzeFile('playbooks/x.yml', 'hello\n').diagnostics;
    expect(scalar.map((d) => d.message)).toEqual([
      'a playbook is a mapping of keys (version, title, steps, …), not the text "hello"',
    ]);
  });

  it('no message of the surface check starts with a blank subject', () => {
    for (const text of [ANSIBLE, '42\n', 'true\n', '[1]\n', '"text"\n', '!!binary aGVsbG8=\n']) {
      for (const d of analyzeFile('x.yml', text).diagnostics) expect(d.message).not.toMatch(/^\s/);
    }
  });
});
