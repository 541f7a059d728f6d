import { describe, expect, it } from 'vitest';
import { validateWorkspace } from '@kairoku-playbook/compiler';
import { discoverPlaybooks, isPlaybookPath } from '../../../src/service/workspace/discovery.js';
import { discover } from '../../../src/server/discovery.js';
import { PlaybookWorkspace } from '../../../src/service/workspace/playbook-workspace.js';
import { memoryFs } from '../../support/memory-fs.js';

const playbook = (title: string, id?: string) =>
  `version: 1\n${id ? `id: ${id}\n` : ''}title: ${title}\nsteps:\n  only:\n    role: implementer\n    prompt: Do it.\n`;

const FILES = {
  '/ws/a.playbook.yml': playbook('A', 'shared'),
  '/ws/playbooks/b.yml': playbook('B'),
  '/ws/.kairoku/playbooks/c.yaml': playbook('C'),
  '/ws/.paseo/playbooks/d.yml': playbook('D'),
  '/ws/playbooks/b.test.yml': 'inputs: {}',
  '/ws/other/e.yml': 'not: a playbook',
  '/ws/node_modules/x/f.playbook.yml': 'broken: [',
  '/ws/.git/g.playbook.yml': 'broken: [',
};

describe('discovery', () => {
  it('finds playbooks as SPEC §2 and `check` do, in check order', () => {
    expect(discoverPlaybooks('/ws', memoryFs(FILES))).toEqual([
      '/ws/.kairoku/playbooks/c.yaml',
      '/ws/.paseo/playbooks/d.yml',
      '/ws/a.playbook.yml',
      '/ws/playbooks/b.yml',
    ]);
    expect(isPlaybookPath('/x/playbooks/p.test.yaml')).toBe(false);
    expect(isPlaybookPath('/x/y.playbook.yaml')).toBe(true);
  });
});

describe('the workspace', () => {
  function workspace() {
    const ws = new PlaybookWorkspace(memoryFs(FILES));
    ws.setFolders([{ uri: 'file:///ws', name: 'ws' }]);
    discover(ws);
    return ws;
  }

  it('names files relative to their folder, like check run there', () => {
    const ws = workspace();
    expect(ws.fileOf('file:///ws/playbooks/b.yml')).toBe('playbooks/b.yml');
    expect(ws.fileOf('file:///elsewhere/x.yml')).toBe('/elsewhere/x.yml');
    expect(ws.fileOf('untitled:Untitled-1')).toBe('untitled:Untitled-1');
    const multi = new PlaybookWorkspace(memoryFs(FILES));
    multi.setFolders([
      { uri: 'file:///ws', name: 'ws' },
      { uri: 'file:///other', name: 'other' },
    ]);
    expect(multi.fileOf('file:///ws/playbooks/b.yml')).toBe('ws/playbooks/b.yml');
  });

  it('reports a duplicate id between an open document and a playbook on disk', () => {
    const ws = workspace();
    ws.openDocument('file:///ws/playbooks/b.yml', playbook('B', 'shared'), 1);
    const result = ws.validate();
    expect([...result.diagnostics.keys()]).toEqual(['file:///ws/playbooks/b.yml']);
    const [pb110] = result.diagnostics.get('file:///ws/playbooks/b.yml')!;
    expect(pb110).toMatchObject({ code: 'PB110', file: 'playbooks/b.yml' });
    expect(pb110!.message).toBe('playbook id "shared" is already used by a.playbook.yml');
  });

  it('gives exactly what validateWorkspace gives for the same files in the same order', () => {
    const ws = workspace();
    const text = playbook('B', 'shared').replace('Do it.', 'Do ${{ inputs.nope }}.');
    ws.openDocument('file:///ws/playbooks/b.yml', text, 1);
    const expected = validateWorkspace([
      { file: '.kairoku/playbooks/c.yaml', text: FILES['/ws/.kairoku/playbooks/c.yaml'] },
      { file: '.paseo/playbooks/d.yml', text: FILES['/ws/.paseo/playbooks/d.yml'] },
      { file: 'a.playbook.yml', text: FILES['/ws/a.playbook.yml'] },
      { file: 'playbooks/b.yml', text },
    ]).diagnostics.filter((d) => d.file === 'playbooks/b.yml');
    expect(ws.validate().diagnostics.get('file:///ws/playbooks/b.yml')).toEqual(expected);
  });

  it('gives the playbooks on disk that are not open their diagnostics too, from the same validation', () => {
    const text = playbook('B', 'shared').replace('Do it.', 'Do ${{ inputs.nope }}.');
    const disk = {
      ...FILES,
      '/ws/a.playbook.yml': playbook('A', 'shared').replace('Do it.', 'Do ${{ x }}.'),
    };
    const ws = new PlaybookWorkspace(memoryFs(disk));
    ws.setFolders([{ uri: 'file:///ws', name: 'ws' }]);
    discover(ws);
    ws.openDocument('file:///ws/playbooks/b.yml', text, 1);
    const expected = validateWorkspace([
      { file: '.kairoku/playbooks/c.yaml', text: FILES['/ws/.kairoku/playbooks/c.yaml'] },
      { file: '.paseo/playbooks/d.yml', text: FILES['/ws/.paseo/playbooks/d.yml'] },
      { file: 'a.playbook.yml', text: disk['/ws/a.playbook.yml'] },
      { file: 'playbooks/b.yml', text },
    ]).diagnostics;
    const result = ws.validate();
    expect([...result.onDisk.keys()]).toEqual([
      'file:///ws/.kairoku/playbooks/c.yaml',
      'file:///ws/.paseo/playbooks/d.yml',
      'file:///ws/a.playbook.yml',
      'file:///ws/playbooks/b.test.yml',
    ]);
    // the playbook test on disk is checked against its playbook (open here, with an error): one PB802
    expect(result.onDisk.get('file:///ws/playbooks/b.test.yml')!.map((d) => d.code)).toEqual(['PB802']);
    expect(result.onDisk.get('file:///ws/a.playbook.yml')).toEqual(
      expected.filter((d) => d.file === 'a.playbook.yml'),
    );
    expect(result.onDisk.get('file:///ws/a.playbook.yml')!.length).toBeGreaterThan(0);
    expect(result.diagnostics.get('file:///ws/playbooks/b.yml')).toEqual(
      expected.filter((d) => d.file === 'playbooks/b.yml'),
    );
  });

  it('re-analyses only documents whose text changed', () => {
    const ws = workspace();
    ws.openDocument('file:///ws/x.playbook.yml', playbook('X'), 1);
    ws.openDocument('file:///ws/y.playbook.yml', playbook('Y'), 1);
    ws.validate();
    const x = ws.analysisFor('file:///ws/x.playbook.yml');
    const y = ws.analysisFor('file:///ws/y.playbook.yml');
    ws.changeDocument('file:///ws/y.playbook.yml', playbook('Y2'), 2);
    ws.validate();
    expect(ws.analysisFor('file:///ws/x.playbook.yml')).toBe(x);
    const y2 = ws.analysisFor('file:///ws/y.playbook.yml');
    expect(y2).not.toBe(y);
    // A feature's fresh analysis is the one validation then reuses.
    ws.changeDocument('file:///ws/y.playbook.yml', playbook('Y3'), 3);
    const y3 = ws.analysisFor('file:///ws/y.playbook.yml');
    ws.validate();
    expect(ws.analysisFor('file:///ws/y.playbook.yml')).toBe(y3);
  });

  it("keeps check's order for files that appear on disk later", () => {
    const files: Record<string, string> = { ...FILES };
    const ws = new PlaybookWorkspace(memoryFs(files));
    ws.setFolders([{ uri: 'file:///ws', name: 'ws' }]);
    discover(ws);
    ws.openDocument('file:///ws/playbooks/b.yml', playbook('B', 'shared'), 1);
    files['/ws/.kairoku/playbooks/0.yml'] = playbook('Zero', 'shared');
    ws.readFromDisk('file:///ws/.kairoku/playbooks/0.yml');
    const [pb110] = ws.validate().diagnostics.get('file:///ws/playbooks/b.yml')!;
    expect(pb110!.message).toBe('playbook id "shared" is already used by .kairoku/playbooks/0.yml');
  });

  it('goes back to the text on disk when a document closes, and checks an open playbook test, not as a playbook', () => {
    const ws = workspace();
    ws.openDocument('file:///ws/playbooks/b.yml', playbook('B', 'shared'), 1);
    ws.closeDocument('file:///ws/playbooks/b.yml');
    expect(ws.validate().diagnostics.size).toBe(0);
    ws.openDocument('file:///ws/playbooks/b.test.yml', 'inputs: {}', 1);
    expect([...ws.validate().diagnostics]).toEqual([['file:///ws/playbooks/b.test.yml', []]]);
    expect(ws.analysisFor('file:///ws/playbooks/b.test.yml')).toBeUndefined();
  });

  it('follows files changed and deleted on disk', () => {
    const files: Record<string, string> = { ...FILES };
    const ws = new PlaybookWorkspace(memoryFs(files));
    ws.setFolders([{ uri: 'file:///ws', name: 'ws' }]);
    discover(ws);
    ws.openDocument('file:///ws/z.playbook.yml', playbook('Z', 'late'), 1);
    expect(ws.validate().diagnostics.get('file:///ws/z.playbook.yml')).toEqual([]);
    files['/ws/playbooks/b.yml'] = playbook('B', 'late');
    ws.readFromDisk('file:///ws/playbooks/b.yml');
    expect(
      ws
        .validate()
        .diagnostics.get('file:///ws/z.playbook.yml')!
        .map((d) => d.code),
    ).toEqual(['PB110']);
    ws.removeFromDisk('file:///ws/playbooks/b.yml');
    expect(ws.validate().diagnostics.get('file:///ws/z.playbook.yml')).toEqual([]);
  });
});

describe('the workspace policy (.kairoku/policy.yml)', () => {
  const push = 'version: 1\ntitle: Push\nsteps:\n  push:\n    run: docker push app\n';
  function workspace(policy: string) {
    const ws = new PlaybookWorkspace(
      memoryFs({ '/ws/push.playbook.yml': push, '/ws/.kairoku/policy.yml': policy }),
    );
    ws.setFolders([{ uri: 'file:///ws', name: 'ws' }]);
    discover(ws);
    return ws;
  }
  const codes = (ws: PlaybookWorkspace, uri: string) =>
    (ws.validate().onDisk.get(uri) ?? []).map((d) => d.code);

  it('is read with the workspace: its gated patterns apply to the playbooks, its mistakes are its own', () => {
    const ws = workspace('gated: [docker push*]\nstrct: true\n');
    expect(codes(ws, 'file:///ws/push.playbook.yml')).toEqual(['PB700']);
    expect(codes(ws, 'file:///ws/.kairoku/policy.yml')).toEqual(['PB701']);
  });

  it('follows its edits in the editor, as check would read them', () => {
    const ws = workspace('gated: [docker push*]\n');
    expect(codes(ws, 'file:///ws/push.playbook.yml')).toEqual(['PB700']);
    ws.openDocument('file:///ws/.kairoku/policy.yml', 'gated: []\n', 1);
    expect(codes(ws, 'file:///ws/push.playbook.yml')).toEqual([]);
    const files = [
      { file: '.kairoku/policy.yml', text: 'gated: []\n' },
      { file: 'push.playbook.yml', text: push },
    ];
    expect(validateWorkspace(files).diagnostics).toEqual([]);
  });
});

describe('what the workspace says is not a playbook (.kairoku/exclude)', () => {
  const broken = 'version: 1\nid: broken\ntitle: Broken\nsteps:\n  a:\n    needs: [nope]\n    prompt: x\n';
  function workspace() {
    const ws = new PlaybookWorkspace(
      memoryFs({
        '/ws/test/fixtures/playbooks/broken.yml': broken,
        '/ws/examples/x.playbook.yml': broken,
        '/ws/.kairoku/exclude': '# as check reads it\ntest/fixtures/\nexamples\n',
      }),
    );
    ws.setFolders([{ uri: 'file:///ws', name: 'ws' }]);
    discover(ws);
    return ws;
  }

  it('is left out of discovery, and an excluded file opened in the editor is not checked', () => {
    const ws = workspace();
    expect([...ws.validate().onDisk.keys()]).toEqual([]);
    ws.openDocument('file:///ws/examples/x.playbook.yml', broken, 1);
    expect(ws.isPlaybook('file:///ws/examples/x.playbook.yml')).toBe(false);
    expect(ws.isChecked('file:///ws/examples/x.playbook.yml')).toBe(false);
    expect(
      ws.isPlaybookFile(
        'file:///ws/test/fixtures/playbooks/broken.yml',
        '/ws/test/fixtures/playbooks/broken.yml',
      ),
    ).toBe(false);
    // a path it does not name is a playbook as before
    expect(ws.isPlaybookFile('file:///ws/playbooks/a.yml', '/ws/playbooks/a.yml')).toBe(true);
  });
});
