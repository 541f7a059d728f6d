import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FILE_LIMITS, formatBytes, readFileBounded, readTextBounded } from '../src/workspace/read-file.js';
import { tempDir } from '../../test/kit/temp.js';

const folder = tempDir('kp-read-');
const unix = process.platform !== 'win32';

describe('readFileBounded', () => {
  it('reads a regular file up to the limit, and refuses one byte more without reading it', () => {
    writeFileSync(join(folder, 'ten'), '0123456789');
    expect(Buffer.from(readFileBounded(join(folder, 'ten'), 10, 'a test file').bytes!).toString()).toBe(
      '0123456789',
    );
    expect(readFileBounded(join(folder, 'ten'), 9, 'a test file')).toEqual({
      problem: 'too-large',
      message: 'it is larger than 9 bytes, the limit for a test file',
    });
  });

  it('refuses a file over the playbook limit by its size, before reading it', () => {
    const big = join(folder, 'big.playbook.yml');
    writeFileSync(big, '');
    truncateSync(big, FILE_LIMITS.playbook + 1); // sparse: no 8 MiB written
    expect(readFileBounded(big, FILE_LIMITS.playbook, 'a playbook')).toEqual({
      problem: 'too-large',
      message: 'it is larger than 8 MiB, the limit for a playbook',
    });
  });

  it.runIf(unix)('refuses /dev/zero (through a link) and a FIFO without blocking', () => {
    const zero = join(folder, 'zero.playbook.yml');
    symlinkSync('/dev/zero', zero);
    expect(readFileBounded(zero, FILE_LIMITS.playbook, 'a playbook')).toEqual({
      problem: 'not-a-file',
      message: 'it is a character device, not a regular file; only regular files are read as a playbook',
    });
    const fifo = join(folder, 'fifo.playbook.yml');
    execFileSync('mkfifo', [fifo]);
    expect(readFileBounded(fifo, FILE_LIMITS.playbook, 'a playbook')).toMatchObject({
      problem: 'not-a-file',
      message: expect.stringContaining('a named pipe (FIFO)'),
    });
  });

  it.runIf(process.platform === 'linux')('stops a file that reports no size (/proc) at the limit', () => {
    // /proc files have size 0 and produce their text when read: the limit holds while reading too.
    expect(readFileBounded('/proc/self/status', 16, 'a test file').problem).toBe('too-large');
    expect(readTextBounded('/proc/self/status', 64 * 1024, 'a test file')).toMatchObject({
      text: expect.stringMatching(/^Name:/),
    });
  });

  it('says why a missing file, a folder or a loop of links is not read', () => {
    expect(readFileBounded(join(folder, 'absent'), 10, 'x').problem).toBe('missing');
    mkdirSync(join(folder, 'dir'));
    expect(readFileBounded(join(folder, 'dir'), 10, 'a playbook')).toMatchObject({
      message: 'it is a folder, not a regular file; only regular files are read as a playbook',
    });
    if (unix) {
      symlinkSync('loop-b', join(folder, 'loop-a'));
      symlinkSync('loop-a', join(folder, 'loop-b'));
      expect(readFileBounded(join(folder, 'loop-a'), 10, 'x')).toEqual({
        problem: 'unreadable',
        message: 'its symbolic links form a loop',
      });
    }
  });

  it('names limits in binary units', () => {
    expect(formatBytes(8 * 1024 * 1024)).toBe('8 MiB');
    expect(formatBytes(64 * 1024)).toBe('64 KiB');
    expect(formatBytes(1000)).toBe('1000 bytes');
  });
});
