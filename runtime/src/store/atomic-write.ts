import {
  closeSync,
  fsyncSync,
  lstatSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describeKind } from '@kairoku-playbook/compiler/disk';

let counter = 0;

/**
 * A file that could not be written, in a sentence that says why and where (the disk is full, it is
 * read-only, permission is denied). The file it was to replace is untouched. The CLI prints the
 * message as it is (exit 2), like a usage error: it is the machine's state, not a bug.
 */
export class FileWriteError extends Error {
  constructor(
    readonly path: string,
    /**
     * the errno code (`ENOSPC`, `EROFS`, …); `ENOSPC` for a write the disk cut short, `EISDIR` or `EINVAL`
     * for a target that is a folder or another entry that is not a regular file (refused, never written)
     */
    readonly code: string,
    detail: string,
  ) {
    super(describeWriteFailure(path, code, detail));
    this.name = 'FileWriteError';
  }

  /**
   * An error from any file-system call that means the disk is full, over quota or read-only, as a
   * `FileWriteError` (the path is the call's own, when it has one); undefined for any other error.
   * For the CLI's last line of defence: a full disk is never reported as a bug.
   */
  static from(error: unknown): FileWriteError | undefined {
    if (error instanceof FileWriteError) return error;
    const { code, path } = (error ?? {}) as NodeJS.ErrnoException;
    if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EROFS')
      return new FileWriteError(typeof path === 'string' ? path : '', code, (error as Error).message);
    // A write the run host or the driver refused (`WriteFailed`) carries the store's error as its cause.
    const cause = (error as { cause?: unknown } | undefined)?.cause;
    return cause !== undefined && cause !== error ? FileWriteError.from(cause) : undefined;
  }
}

function describeWriteFailure(path: string, code: string, detail: string): string {
  if (!path) {
    // A failure with no path of its own (a write to an open file): still the same sentence.
    if (code === 'ENOSPC')
      return 'the disk is full (no space left on the device); free some space and try again';
    return `could not write a file: ${detail}`;
  }
  switch (code) {
    case 'ENOSPC':
      return `the disk is full: could not write ${path} (no space left on the device that holds ${dirname(path)}); free some space and try again`;
    case 'EDQUOT':
      return `the disk quota is used up: could not write ${path}; free some space and try again`;
    case 'EROFS':
      return `could not write ${path}: the file system that holds it is read-only`;
    case 'EACCES':
    case 'EPERM':
      return `could not write ${path}: permission denied`;
    case 'EISDIR':
      return `could not write ${path}: it is a folder`;
    default:
      return `could not write ${path}: ${detail}`;
  }
}

/** The calls a write makes, so a test can hand in a disk that writes short or fills up. */
export interface WriteCalls {
  writeSync(fd: number, bytes: Uint8Array, offset: number, length: number): number;
}

/**
 * Writes every byte, looping over short writes (a nearly full disk takes part of a write and says so
 * in the count; the next write fails with ENOSPC). A write that takes nothing also means no space:
 * looping on it would never end.
 */
export function writeFully(fd: number, bytes: Uint8Array, calls: WriteCalls = { writeSync }): void {
  let written = 0;
  while (written < bytes.length) {
    const count = calls.writeSync(fd, bytes, written, bytes.length - written);
    if (!(count > 0)) {
      const error = new Error('no space left on device (a write took no bytes)') as NodeJS.ErrnoException;
      error.code = 'ENOSPC';
      throw error;
    }
    written += count;
  }
}

/**
 * Writes a file whole or not at all: a temp file in the same folder, written fully, fsync, rename over
 * the target, fsync the folder (so the rename itself survives a crash). A reader sees the old file or
 * the new one. When anything fails the temp file is removed and a `FileWriteError` says why; the old
 * file stays as it was. A target that exists and is not a regular file (a FIFO, a device such as
 * `/dev/null`, a folder; through a symbolic link too) is refused the same way: the rename would replace
 * that entry instead of writing to it. `mode` is for a new file (0o600 for run state; the CLI passes
 * 0o666 for files the user asked for, so the umask decides). `durable: false` skips both fsyncs, for a
 * file a command rebuilds whenever it is lost (coverage): still whole or not at all to a reader (the
 * editor reads `NAME.coverage.json` while `test --coverage` may be writing it), not kept across a crash.
 */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  mode = 0o600,
  options: { durable?: boolean } = {},
): void {
  const durable = options.durable ?? true;
  refuseIrregularTarget(path);
  const folder = dirname(path);
  const temp = join(folder, `.${basename(path)}.${process.pid}.${counter++}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'w', mode);
    writeFully(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    if (durable) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    removeQuietly(temp);
    throw asWriteError(path, error);
  }
  if (durable) syncFolder(folder);
}

function refuseIrregularTarget(path: string): void {
  let target;
  try {
    target = lstatSync(path);
    if (target.isSymbolicLink()) target = statSync(path);
  } catch {
    return; // a new file (or a dangling link, replaced by the file)
  }
  if (target.isFile()) return;
  throw new FileWriteError(
    path,
    target.isDirectory() ? 'EISDIR' : 'EINVAL',
    `it is ${describeKind(target)}, not a regular file`,
  );
}

function asWriteError(path: string, error: unknown): Error {
  if (error instanceof FileWriteError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string') return error as Error;
  return new FileWriteError(path, code, (error as Error).message);
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // closing can report the same full disk again; the write already failed
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // never created (open failed), or already gone
  }
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
