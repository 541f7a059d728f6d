/**
 * File access behind an interface, so the workspace runs in tests (and, later, a browser) without a disk.
 */
import { readFileSync } from 'node:fs';
import { diskLister } from '@kairoku-playbook/compiler/disk';

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
  readDirectory: (path) => diskLister.readDirectory(path),
};
