import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';

export { FILE_LIMITS } from './file-system.js';
export type { FileRead } from './file-system.js';
import type { FileRead } from './file-system.js';

/** "8 MiB", "64 KiB", or bytes when the size is not a whole number of either. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** What a file system entry that is not a regular file is, in words. */
export function describeKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
const CHUNK = 64 * 1024;

/**
 * Reads a regular file of at most `limit` bytes. Anything else is refused without reading it whole:
 * a FIFO (reading one waits for a writer forever), a device such as `/dev/zero` (endless), a folder,
 * or a file over the limit. The entry is looked at before it is opened, opened without blocking, looked
 * at again through the open descriptor (it may have been swapped meanwhile), and read at most
 * `limit + 1` bytes: a file that grows past its size, or that reports none (`/proc`), still stops there.
 * `what` names the kind of file in the refusal ("a playbook").
 */
export function readFileBounded(path: string, limit: number, what: string): FileRead {
  const tooLarge = (): FileRead => ({
    problem: 'too-large',
    message: `it is larger than ${formatBytes(limit)}, the limit for ${what}`,
  });
  const notAFile = (stats: Stats): FileRead => ({
    problem: 'not-a-file',
    message: `it is ${describeKind(stats)}, not a regular file; only regular files are read as ${what}`,
  });
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    return failure(error);
  }
  if (!stats.isFile()) return notAFile(stats);
  if (stats.size > limit) return tooLarge();
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    return failure(error);
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) return notAFile(opened);
    if (opened.size > limit) return tooLarge();
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK, limit + 1 - total));
      const count = readSync(fd, chunk, 0, chunk.length, null);
      if (count === 0) break;
      chunks.push(count === chunk.length ? chunk : chunk.subarray(0, count));
      total += count;
      if (total > limit) return tooLarge();
    }
    return { bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total) };
  } catch (error) {
    return failure(error);
  } finally {
    closeSync(fd);
  }
}

/** `readFileBounded` as UTF-8 text (invalid bytes become U+FFFD): for JSON, tokens and keys. */
export function readTextBounded(
  path: string,
  limit: number,
  what: string,
): { text: string; problem?: undefined } | Exclude<FileRead, { bytes: Uint8Array }> {
  const read = readFileBounded(path, limit, what);
  if (read.problem !== undefined) return read;
  return { text: Buffer.from(read.bytes.buffer, read.bytes.byteOffset, read.bytes.length).toString('utf8') };
}

function failure(error: unknown): FileRead {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { problem: 'missing', message: 'no such file' };
  if (code === 'ELOOP') return { problem: 'unreadable', message: 'its symbolic links form a loop' };
  return { problem: 'unreadable', message: `cannot read it: ${(error as Error).message}` };
}

export { refusalMessage } from './file-system.js';
