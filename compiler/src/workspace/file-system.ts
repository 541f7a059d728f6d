/**
 * The file system the workspace loader (loader.ts) reads through: the disk's (`diskFileSystem`, in the
 * `./disk` entry point) and the language server's (its open documents over the disk, or a disk in
 * memory in its tests). No I/O here, so the compiler's main entry stays free of `node:fs`.
 */
import type { Diagnostic } from '../diagnostic.js';
import { YAML_LIMITS, unreadable } from '../yaml/read-yaml.js';
import type { DirectoryLister } from './discovery.js';

/**
 * How many bytes each kind of file may hold before it is refused unread. A playbook (and a scenario
 * or test file, which are playbook-sized YAML) gets the compiler's own limit, so a file on disk is
 * refused before it is read rather than after; run files hold a playbook's IR and the history of a
 * run; the rest are a line or two.
 */
export const FILE_LIMITS = {
  /** `*.playbook.yml`, playbooks/*.yml, scenario and test files: the compiler's `maxFileSize` */
  playbook: YAML_LIMITS.maxFileSize,
  /** a run file (`runs/<id>.json`) and a read-only snapshot: the IR plus the run's history */
  runFile: 64 * 1024 * 1024,
  /** a token file, a key, an owner or request file, git's HEAD */
  small: 64 * 1024,
} as const;

export type FileRead =
  | { bytes: Uint8Array; problem?: undefined }
  | {
      bytes?: undefined;
      /** why the file was not read; `message` says it in words, without the path */
      problem: 'missing' | 'not-a-file' | 'too-large' | 'unreadable';
      message: string;
    };

export interface WorkspaceFileSystem extends DirectoryLister {
  /**
   * A file's bytes, when it is a regular file of at most `limit` bytes; else why it is not read (a FIFO,
   * a device, a folder, a file over the limit are refused unread). `what` names the kind of file in
   * that sentence ("a playbook").
   */
  readFile(path: string, limit: number, what: string): FileRead;
  /**
   * A token that changes whenever the file does (the disk's: size, modification time, inode), undefined
   * when there is no file. A file whose token is the one of the last load is not read again; without
   * `version`, every load reads every file.
   */
  version?(path: string): string | undefined;
}

/**
 * The PB100 message for a playbook refused unread (not a regular file, or over the limit): `check`,
 * the language server and the manager protocol say it alike.
 */
export function refusalMessage(read: { problem: string; message: string }): string {
  return `this file is not read: ${read.message}${read.problem === 'too-large' ? '; split it' : ''}`;
}

/** THE PB100 of a workspace file that is not read (every edge shows this one), at its start. */
export function refusalDiagnostic(file: string, read: Exclude<FileRead, { bytes: Uint8Array }>): Diagnostic {
  const message =
    read.problem === 'missing' || read.problem === 'unreadable'
      ? `cannot read this file: ${read.message}`
      : refusalMessage(read);
  return unreadable(file, { start: 0, end: 0 }, message);
}
