import { opendirSync, readdirSync, statSync } from 'node:fs';
import type { Dir, Dirent } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DirectoryEntry, DirectoryLister } from './discovery.js';
import type { ExcludeTest } from './excludes.js';
import type { WorkspaceFileSystem } from './file-system.js';
import { excludesOf } from './loader.js';
import { readFileBounded } from './read-file.js';

/**
 * The disk, as playbook discovery reads it: sorted names, unreadable entries left out, every folder
 * known by its device and inode (so a symbolic link back to a folder already walked is not walked
 * again). The compiler's one piece of I/O, behind its own entry point
 * (`@kairoku-playbook/compiler/disk`): the CLI, the language server and the MCP server hand it to
 * discovery, and read files with `readFileBounded`; the compiler itself reads no disk.
 */
export const diskLister: DirectoryLister = {
  readDirectory(path, max = Infinity) {
    // A folder whose size says it holds a few ten thousand names at most is listed in one call
    // (twice as fast as streaming, over a walk of 100,000 folders); a larger one is streamed, so a
    // folder of ten million names is not listed whole to find that it is over the walk's limit.
    const size = lastIdentified?.path === path ? lastIdentified.size : undefined;
    const entries =
      size !== undefined && size <= WHOLE_LISTING_BYTES ? listWhole(path) : listStreamed(path, max);
    if (entries.length > max) return entries.slice(0, max + 1);
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  },
  identify(path) {
    try {
      const stats = statSync(path, { bigint: true });
      lastIdentified = { path, size: stats.size };
      return `${stats.dev}:${stats.ino}`;
    } catch {
      return undefined;
    }
  },
};

/** The size a folder reports (bytes of entries: ~20 to 40 per name) up to which it is listed in one call. */
const WHOLE_LISTING_BYTES = 1024n * 1024n;
/** The walk identifies a folder right before listing it: its size is kept for `readDirectory`. */
let lastIdentified: { path: string; size: bigint } | undefined;

function listWhole(path: string): DirectoryEntry[] {
  let dirents: Dirent[];
  try {
    dirents = readdirSync(path, { withFileTypes: true });
  } catch {
    return [];
  }
  const entries: DirectoryEntry[] = [];
  for (const dirent of dirents) {
    const entry = toEntry(path, dirent);
    if (entry) entries.push(entry);
  }
  return entries;
}

function listStreamed(path: string, max: number): DirectoryEntry[] {
  let dir: Dir;
  try {
    dir = opendirSync(path, { bufferSize: 256 });
  } catch {
    return [];
  }
  const entries: DirectoryEntry[] = [];
  try {
    for (let dirent = dir.readSync(); dirent !== null; dirent = dir.readSync()) {
      const entry = toEntry(path, dirent);
      if (entry) entries.push(entry);
      if (entries.length > max) break;
    }
  } catch {
    // the folder went away while being read: what was read stands
  } finally {
    dir.closeSync();
  }
  return entries;
}

/** An entry as discovery sees it: a link counts as what it points to; a dangling link (or a loop of links) is left out. */
function toEntry(path: string, dirent: Dirent): DirectoryEntry | undefined {
  if (!dirent.isSymbolicLink()) return { name: dirent.name, isDirectory: dirent.isDirectory() };
  try {
    return { name: dirent.name, isDirectory: statSync(join(path, dirent.name)).isDirectory() };
  } catch {
    return undefined;
  }
}

export {
  FILE_LIMITS,
  describeKind,
  formatBytes,
  readFileBounded,
  readTextBounded,
  refusalMessage,
} from './read-file.js';
export type { FileRead } from './read-file.js';
export type { WorkspaceFileSystem } from './file-system.js';

/**
 * The disk as the workspace loader reads it (`WorkspaceLoader`, loader.ts): bounded reads
 * (`readFileBounded`), the walk's listing, and a file's version from its status (size, times, inode),
 * so a load after a change reads only the files that changed.
 */
export const diskFileSystem: WorkspaceFileSystem = {
  readFile: (path, limit, what) => readFileBounded(path, limit, what),
  readDirectory: (path, max) => diskLister.readDirectory(path, max),
  identify: (path) => diskLister.identify?.(path),
  version(path) {
    try {
      const s = statSync(path, { bigint: true });
      return `${s.mode}:${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.ino}`;
    } catch {
      return undefined;
    }
  },
};

/**
 * The excludes of a folder walked as a workspace: its own `.kairoku/exclude` (`excludeTest`). Only the
 * folder's own: `check test/` walks `test/` as it is, and a test fixture that is a workspace of its own
 * is not hidden by the repository around it. Undefined when there is none (or it cannot be read: it
 * then excludes nothing).
 */
export function diskExcludes(folder: string): ExcludeTest | undefined {
  return excludesOf(diskFileSystem, resolve(folder));
}
