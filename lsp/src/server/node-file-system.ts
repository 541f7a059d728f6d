/** The language service's file system on the real disk, read as `check` reads it. */
import { FILE_LIMITS, diskLister, readFileBounded, refusalMessage } from '@kairoku-playbook/compiler/disk';
import type { PlaybookFileSystem } from '../service/workspace/file-system.js';

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
