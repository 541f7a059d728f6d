/**
 * File access behind an interface, so the workspace runs in tests (and, later, a browser) without a disk.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface PlaybookFileSystem {
  /** the file's bytes, or undefined when it cannot be read */
  readFile(path: string): Uint8Array | undefined;
  /** the entries of a folder, sorted by name; empty when it cannot be read */
  readDirectory(path: string): { name: string; isDirectory: boolean }[];
}

export const nodeFileSystem: PlaybookFileSystem = {
  readFile(path) {
    try {
      return readFileSync(path);
    } catch {
      return undefined;
    }
  },
  readDirectory(path) {
    let names: string[];
    try {
      names = readdirSync(path).sort();
    } catch {
      return [];
    }
    const entries: { name: string; isDirectory: boolean }[] = [];
    for (const name of names) {
      try {
        entries.push({ name, isDirectory: statSync(join(path, name)).isDirectory() });
      } catch {
        // a dangling link or a file that vanished meanwhile
      }
    }
    return entries;
  },
};
