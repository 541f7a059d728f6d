import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import type * as Fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../../test/kit/index.js';

/** Every file-system call the atomic write makes, in order. */
const calls: string[] = [];

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  const fds = new Map<number, string>();
  const name = (path: unknown) => String(path).split('/').pop();
  return {
    ...fs,
    openSync: (path: string, ...rest: unknown[]) => {
      const fd = (fs.openSync as (...a: unknown[]) => number)(path, ...rest);
      fds.set(fd, name(path)!);
      calls.push(`open ${name(path)}`);
      return fd;
    },
    writeSync: (fd: number, ...rest: unknown[]) => {
      calls.push(`write ${fds.get(fd)}`);
      if (process.env.FAIL_WRITE) throw new Error('disk full');
      const room = process.env.ROOM_LEFT;
      if (room !== undefined) {
        // A nearly full disk: it takes what fits and says so in the count, then ENOSPC.
        if (Number(room) === 0)
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        const [bytes, offset, length] = rest as [Uint8Array, number, number];
        const count = Math.min(length, Number(room));
        process.env.ROOM_LEFT = String(Number(room) - count);
        return fs.writeSync(fd, bytes, offset, count);
      }
      return (fs.writeSync as (...a: unknown[]) => number)(fd, ...rest);
    },
    fsyncSync: (fd: number) => {
      calls.push(`fsync ${fds.get(fd)}`);
      fs.fsyncSync(fd);
    },
    closeSync: (fd: number) => {
      calls.push(`close ${fds.get(fd)}`);
      fs.closeSync(fd);
    },
    renameSync: (from: string, to: string) => {
      calls.push(`rename ${name(from)} → ${name(to)}`);
      fs.renameSync(from, to);
    },
  };
});

const { FileWriteError, writeFileAtomic, writeFully } = await import('../../src/store/atomic-write.js');

describe('writeFileAtomic', () => {
  it('writes a temp file in the same folder, fsyncs it, renames it over the target, fsyncs the folder', () => {
    const folder = tempDir('kp-atomic-');
    const target = join(folder, 'run.json');
    calls.length = 0;
    writeFileAtomic(target, '{"a":1}');
    const temp = calls[0]!.slice('open '.length);
    expect(temp).toMatch(/^\.run\.json\.\d+\.\d+\.tmp$/);
    const base = folder.split('/').pop();
    expect(calls).toEqual([
      `open ${temp}`,
      `write ${temp}`,
      `fsync ${temp}`,
      `close ${temp}`,
      `rename ${temp} → run.json`,
      `open ${base}`,
      `fsync ${base}`,
      `close ${base}`,
    ]);
    expect(readFileSync(target, 'utf8')).toBe('{"a":1}');
    expect(readdirSync(folder)).toEqual(['run.json']);
    expect(statSync(target).mode & 0o777).toBe(0o600);
  });

  it('durable: false renames the temp file over the target without the fsyncs (a rebuilt file)', () => {
    const folder = tempDir('kp-atomic-');
    const target = join(folder, 'pr.coverage.json');
    calls.length = 0;
    writeFileAtomic(target, '{}', 0o666, { durable: false });
    const temp = calls[0]!.slice('open '.length);
    expect(calls).toEqual([
      `open ${temp}`,
      `write ${temp}`,
      `close ${temp}`,
      `rename ${temp} → pr.coverage.json`,
    ]);
    expect(readFileSync(target, 'utf8')).toBe('{}');
    expect(readdirSync(folder)).toEqual(['pr.coverage.json']);
  });

  it('leaves the old file whole, and no temp file, when the write fails', () => {
    const folder = tempDir('kp-atomic-');
    const target = join(folder, 'run.json');
    writeFileSync(target, 'old');
    process.env.FAIL_WRITE = '1';
    try {
      expect(() => writeFileAtomic(target, 'new')).toThrow('disk full');
    } finally {
      delete process.env.FAIL_WRITE;
    }
    expect(readFileSync(target, 'utf8')).toBe('old');
    expect(readdirSync(folder)).toEqual(['run.json']);
  });
});

describe('writeFully', () => {
  it('loops over short writes until every byte is written', () => {
    const disk: number[] = [];
    const short = {
      writeSync: (_fd: number, bytes: Uint8Array, offset: number, length: number) => {
        const count = Math.min(length, 3); // a disk that takes three bytes at a time
        disk.push(...bytes.subarray(offset, offset + count));
        return count;
      },
    };
    writeFully(7, Buffer.from('0123456789'), short);
    expect(Buffer.from(disk).toString()).toBe('0123456789');
  });

  it('takes a write that writes nothing as a full disk, instead of looping forever', () => {
    let calls = 0;
    const full = {
      writeSync: (_fd: number, _bytes: Uint8Array, _offset: number, length: number) =>
        ++calls === 1 ? Math.min(length, 4) : 0,
    };
    expect(() => writeFully(7, Buffer.from('0123456789'), full)).toThrow(
      expect.objectContaining({ code: 'ENOSPC' }),
    );
    expect(calls).toBe(2);
  });
});

describe('writeFileAtomic on a full disk', () => {
  it('a write the disk cuts short is an error that says the disk is full; the old file stays whole', () => {
    const folder = tempDir('kp-atomic-');
    const target = join(folder, 'run.json');
    writeFileSync(target, '{"old":true}');
    process.env.ROOM_LEFT = '5'; // five bytes fit, then ENOSPC
    let error: unknown;
    try {
      writeFileAtomic(target, '{"new":"a longer run state"}');
    } catch (thrown) {
      error = thrown;
    } finally {
      delete process.env.ROOM_LEFT;
    }
    expect(error).toBeInstanceOf(FileWriteError);
    expect((error as Error).message).toBe(
      `the disk is full: could not write ${target} (no space left on the device that holds ${folder}); free some space and try again`,
    );
    expect(readFileSync(target, 'utf8')).toBe('{"old":true}');
    expect(readdirSync(folder)).toEqual(['run.json']);
  });
});

describe('FileWriteError.from', () => {
  it('turns an error of any call that means a full, over-quota or read-only disk into its sentence', () => {
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, mkdir'), {
      code: 'ENOSPC',
      path: '/home/me/.kairoku-playbook/runs',
    });
    expect(FileWriteError.from(enospc)?.message).toBe(
      'the disk is full: could not write /home/me/.kairoku-playbook/runs (no space left on the device that holds /home/me/.kairoku-playbook); free some space and try again',
    );
    const write = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    expect(FileWriteError.from(write)?.message).toBe(
      'the disk is full (no space left on the device); free some space and try again',
    );
    expect(
      FileWriteError.from(Object.assign(new Error('x'), { code: 'EROFS', path: '/ro/f' }))?.message,
    ).toBe('could not write /ro/f: the file system that holds it is read-only');
    expect(FileWriteError.from(new TypeError('a bug'))).toBeUndefined();
    expect(FileWriteError.from(Object.assign(new Error('gone'), { code: 'ENOENT' }))).toBeUndefined();
  });
});
