import type { PlaybookFileSystem } from '../../src/service/workspace/file-system.js';

/** What `refusalMessage` puts before why a file is not read: `{ refused }` gives the whole sentence. */
const NOT_READ = 'this file is not read: ';

/**
 * A disk in memory: path → contents. A string is a file's text, bytes are read as they are, and
 * `{ refused }` is a file the real disk would not read (a FIFO, a device, one over the size limit), with
 * its PB100's sentence. The record is read on every call, so a test changes the disk by changing it.
 */
export function memoryFs(
  files: Record<string, string | Uint8Array | { refused: string }>,
): PlaybookFileSystem {
  return {
    readFile: (path) => {
      const file = files[path];
      if (file === undefined) return { problem: 'missing', message: 'no such file' };
      if (typeof file === 'string') return { bytes: new TextEncoder().encode(file) };
      if (file instanceof Uint8Array) return { bytes: file };
      return { problem: 'not-a-file', message: file.refused.replace(NOT_READ, '') };
    },
    readDirectory: (path) => {
      const prefix = path.endsWith('/') ? path : `${path}/`;
      const names = new Map<string, boolean>();
      for (const file of Object.keys(files)) {
        if (!file.startsWith(prefix)) continue;
        const [name, ...rest] = file.slice(prefix.length).split('/');
        names.set(name!, rest.length > 0 || (names.get(name!) ?? false));
      }
      return [...names]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([name, isDirectory]) => ({ name, isDirectory }));
    },
  };
}
