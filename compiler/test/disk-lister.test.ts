import { mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diskLister } from '../src/workspace/disk-lister.js';
import { tempDir } from '../../test/kit/temp.js';

const folder = tempDir('kp-lister-');
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const unix = process.platform !== 'win32';

describe('the disk lister', () => {
  it.runIf(unix)('knows a folder by device and inode, through any link; leaves dangling links out', () => {
    mkdirSync(join(folder, 'real'));
    writeFileSync(join(folder, 'real', 'a.playbook.yml'), '');
    symlinkSync('real', join(folder, 'link'));
    symlinkSync('.', join(folder, 'real', 'self'));
    symlinkSync('nowhere', join(folder, 'real', 'dangling.playbook.yml'));
    expect(diskLister.identify!(join(folder, 'link'))).toBe(diskLister.identify!(join(folder, 'real')));
    expect(diskLister.identify!(join(folder, 'real', 'self'))).toBe(
      diskLister.identify!(join(folder, 'real')),
    );
    expect(diskLister.identify!(join(folder, 'absent'))).toBeUndefined();
    expect(diskLister.readDirectory(join(folder, 'real'))).toEqual([
      { name: 'a.playbook.yml', isDirectory: false },
      { name: 'self', isDirectory: true },
    ]);
  });

  it('lists a folder of 60,000 names whole, or stops one past what the walk may still take', () => {
    const big = join(folder, 'big');
    mkdirSync(big);
    for (let i = 0; i < 60_000; i++) writeFileSync(join(big, `f${String(i).padStart(5, '0')}`), '');
    // Identified first, as the walk does: a folder this size (over 1 MiB on ext4, tmpfs, btrfs) is
    // streamed; either way the answer is the same.
    diskLister.identify!(big);
    expect(statSync(big).size).toBeGreaterThan(0);
    const capped = diskLister.readDirectory(big, 100);
    expect(capped).toHaveLength(101);
    diskLister.identify!(big);
    const whole = diskLister.readDirectory(big);
    expect(whole).toHaveLength(60_000);
    expect(whole[0]).toEqual({ name: 'f00000', isDirectory: false });
    expect(whole[59_999]).toEqual({ name: 'f59999', isDirectory: false });
    // Not identified just before: streamed.
    expect(diskLister.readDirectory(big, 10)).toHaveLength(11);
  }, 120_000);
});
