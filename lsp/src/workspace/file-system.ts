/**
 * File access behind an interface, so the workspace runs in tests (and, later, a browser) without a disk.
 */
import { FILE_LIMITS, diskLister, readFileBounded, refusalMessage } from '@kairoku-playbook/compiler/disk';
import type { DirectoryLister } from '@kairoku-playbook/compiler';

export interface PlaybookFileSystem extends DirectoryLister {
  /**
   * The file's bytes; `{ refused }` with a sentence when it is not read on purpose (not a regular file,
   * such as a FIFO or `/dev/zero`, or over the playbook size limit); undefined when it cannot be read.
   */
  readFile(path: string): Uint8Array | { refused: string } | undefined;
}

export const nodeFileSystem: PlaybookFileSystem = {
  readFile(path) {
    // Bounded as `check` reads: a FIFO would block the server, /dev/zero would fill its memory.
    const read = readFileBounded(path, FILE_LIMITS.playbook, 'a playbook');
    if (read.problem === undefined) return read.bytes;
    if (read.problem === 'not-a-file' || read.problem === 'too-large')
      return { refused: refusalMessage(read) };
    return undefined;
  },
  readDirectory: (path, max) => diskLister.readDirectory(path, max),
  identify: (path) => diskLister.identify?.(path),
};
