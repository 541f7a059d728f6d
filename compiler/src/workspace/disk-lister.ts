import { opendirSync, statSync } from 'node:fs';
import type { Dir } from 'node:fs';
import { join } from 'node:path';
import type { DirectoryEntry, DirectoryLister } from './discovery.js';

/**
 * The disk, as playbook discovery reads it: sorted names, unreadable entries left out, every folder
 * known by its device and inode (so a symbolic link back to a folder already walked is not walked
 * again). The compiler's one piece of I/O, behind its own entry point
 * (`@kairoku-playbook/compiler/disk`): the CLI, the language server and the MCP server hand it to
 * discovery, and read files with `readFileBounded`; the compiler itself reads no disk.
 */
export const diskLister: DirectoryLister = {
  readDirectory(path, max = Infinity) {
    let dir: Dir;
    try {
      dir = opendirSync(path, { bufferSize: 256 });
    } catch {
      return [];
    }
    const entries: DirectoryEntry[] = [];
    try {
      // Streamed, not readdirSync: a folder of ten million names is not listed whole to find that it
      // is over the walk's limit.
      for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
        let isDirectory = entry.isDirectory();
        if (entry.isSymbolicLink()) {
          try {
            isDirectory = statSync(join(path, entry.name)).isDirectory();
          } catch {
            continue; // a dangling link, or a loop of links
          }
        }
        entries.push({ name: entry.name, isDirectory });
        if (entries.length > max) return entries;
      }
    } catch {
      // the folder went away while being read: what was read stands
    } finally {
      dir.closeSync();
    }
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  },
  identify(path) {
    try {
      const stats = statSync(path, { bigint: true });
      return `${stats.dev}:${stats.ino}`;
    } catch {
      return undefined;
    }
  },
};

export {
  FILE_LIMITS,
  describeKind,
  formatBytes,
  readFileBounded,
  readTextBounded,
  refusalMessage,
} from './read-file.js';
export type { FileRead } from './read-file.js';
