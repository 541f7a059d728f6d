/**
 * File access behind an interface, so the language service runs in tests (and, later, a browser) without
 * a disk: the server passes the Node implementation (server/node-file-system.ts).
 */
import type { DirectoryLister } from '@kairoku-playbook/compiler';

export interface PlaybookFileSystem extends DirectoryLister {
  /**
   * The file's bytes; `{ refused }` with a sentence when it is not read on purpose (not a regular file,
   * such as a FIFO or `/dev/zero`, or over the playbook size limit); undefined when it cannot be read.
   */
  readFile(path: string): Uint8Array | { refused: string } | undefined;
}
