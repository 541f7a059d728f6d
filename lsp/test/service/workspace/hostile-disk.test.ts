/**
 * The workspace on a hostile disk: files discovery finds but does not read (a FIFO, a device, a file
 * over the size limit, one that is not UTF-8) get one PB100 each, as `check` gives them; a large root
 * is walked in slices, so the server answers requests meanwhile; the walk's limits are logged.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { discover } from '../../../src/server/discovery.js';
import { PlaybookWorkspace } from '../../../src/service/workspace/playbook-workspace.js';
import { memoryFs } from '../../support/memory-fs.js';

const playbook = (title: string) =>
  `version: 1\ntitle: ${title}\nsteps:\n  only:\n    role: implementer\n    prompt: Do it.\n`;

const FIFO =
  'this file is not read: it is a named pipe (FIFO), not a regular file; only regular files are read as a playbook';

afterEach(() => vi.restoreAllMocks());

describe('files discovery does not read', () => {
  function workspace() {
    const ws = new PlaybookWorkspace(
      memoryFs({
        '/ws/a.playbook.yml': playbook('A'),
        '/ws/pipe.playbook.yml': { refused: FIFO },
        '/ws/binary.playbook.yml': new Uint8Array([0x76, 0, 0x31]),
      }),
    );
    ws.setFolders([{ uri: 'file:///ws', name: 'ws' }]);
    discover(ws);
    return ws;
  }

  it('get one PB100 each among the diagnostics of files on disk, as check gives them', () => {
    const result = workspace().validate();
    expect(result.onDisk.get('file:///ws/pipe.playbook.yml')).toEqual([
      {
        file: 'pipe.playbook.yml',
        range: { start: 0, end: 0 },
        severity: 'error',
        code: 'PB100',
        message: FIFO,
      },
    ]);
    expect(result.onDisk.get('file:///ws/binary.playbook.yml')).toEqual([
      expect.objectContaining({ code: 'PB100', message: expect.stringContaining('a binary file') }),
    ]);
    expect(result.onDisk.get('file:///ws/a.playbook.yml')).toEqual([]);
  });

  it("place a refused file's PB100 on its bad byte, in the text as far as it decodes", () => {
    const ws = workspace();
    const [diagnostic] = ws.validate().onDisk.get('file:///ws/binary.playbook.yml')!;
    // the NUL byte: offset 1, line 1, column 2 (as check places it)
    expect(diagnostic!.range).toEqual({ start: 1, end: 2 });
    expect(ws.sourceOf('binary.playbook.yml')!.positionAt(1)).toEqual({ line: 0, character: 1 });
  });

  it('an open document is checked as its text, whatever the disk holds; a removed file is forgotten', () => {
    const ws = workspace();
    ws.openDocument('file:///ws/pipe.playbook.yml', playbook('Pipe'), 1);
    let result = ws.validate();
    expect(result.diagnostics.get('file:///ws/pipe.playbook.yml')).toEqual([]);
    expect(result.onDisk.has('file:///ws/pipe.playbook.yml')).toBe(false);
    ws.closeDocument('file:///ws/pipe.playbook.yml');
    ws.removeFromDisk('file:///ws/pipe.playbook.yml');
    result = ws.validate();
    expect(result.onDisk.has('file:///ws/pipe.playbook.yml')).toBe(false);
  });
});

describe('discovery of a large root', () => {
  /** 30 folders of 40 playbooks: 1,230 entries, more than one stride of the walk. */
  function large(): Record<string, string> {
    const files: Record<string, string> = {};
    for (let f = 0; f < 30; f++)
      for (let p = 0; p < 40; p++)
        files[`/ws/f${String(f).padStart(2, '0')}/p${f}-${p}.playbook.yml`] = playbook(`P${f}-${p}`);
    return files;
  }

  it('goes on in slices between turns of the event loop once it has taken longer than a moment', async () => {
    const ws = new PlaybookWorkspace(memoryFs(large()));
    ws.setFolders([{ uri: 'file:///ws', name: 'ws' }]);
    let clock = 0;
    const slowClock = () => (clock += 1000); // every look at the clock finds the slice used up
    const settled = new Promise<void>((resolve) => discover(ws, resolve, slowClock));
    // Returned before the walk ended: what it found so far is validated meanwhile.
    expect(ws.discoveryState().discovering).toBe(true);
    const partial = ws.stats().disk;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(1200);
    await settled;
    expect(ws.discoveryState()).toEqual({ discovering: false, refused: 0, limits: [] });
    expect(ws.stats().disk).toBe(1200);
    expect(ws.validate().onDisk.size).toBe(1200);
  });

  it('a new discovery abandons the one in progress', async () => {
    const ws = new PlaybookWorkspace(memoryFs(large()));
    ws.setFolders([{ uri: 'file:///ws', name: 'ws' }]);
    let clock = 0;
    const abandoned = vi.fn();
    discover(ws, abandoned, () => (clock += 1000));
    await new Promise<void>((resolve) => discover(ws, resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(abandoned).not.toHaveBeenCalled();
    expect(ws.stats().disk).toBe(1200);
  });

  it('logs a walk that reached a limit', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const files: Record<string, string> = {};
    let path = '/ws';
    for (let depth = 0; depth < 70; depth++) path += '/d';
    files[`${path}/deep.playbook.yml`] = playbook('Deep');
    const ws = new PlaybookWorkspace(memoryFs(files));
    ws.setFolders([{ uri: 'file:///ws', name: 'ws' }]);
    discover(ws);
    const [limit] = ws.discoveryState().limits;
    expect(limit).toMatch(
      /^did not look for playbooks in \/ws(\/d){65}: it is more than 64 folders below \/ws \(the limit\)$/,
    );
    expect(warn).toHaveBeenCalledWith(
      `kairoku-playbook: ${limit}; playbooks beyond it are not checked until opened`,
    );
  });
});
