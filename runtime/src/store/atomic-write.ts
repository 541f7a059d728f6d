import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

let counter = 0;

/**
 * Writes a file whole or not at all: a temp file in the same folder, fsync, rename over the target,
 * fsync the folder (so the rename itself survives a crash). A reader sees the old file or the new one.
 */
export function writeFileAtomic(path: string, data: string, mode = 0o600): void {
  const folder = dirname(path);
  const temp = join(folder, `.${basename(path)}.${process.pid}.${counter++}.tmp`);
  const fd = openSync(temp, 'w', mode);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
  syncFolder(folder);
}

function syncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(folder, 'r');
    fsyncSync(fd);
  } catch {
    // Some platforms (Windows) cannot open or fsync a folder; the rename is still atomic there.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
