import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import type * as Fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

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

const { writeFileAtomic } = await import('../src/store/atomic-write.js');

describe('writeFileAtomic', () => {
  it('writes a temp file in the same folder, fsyncs it, renames it over the target, fsyncs the folder', () => {
    const folder = mkdtempSync(join(tmpdir(), 'kp-atomic-'));
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

  it('leaves the old file whole, and no temp file, when the write fails', () => {
    const folder = mkdtempSync(join(tmpdir(), 'kp-atomic-'));
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
