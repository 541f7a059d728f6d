import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DirectoryLister } from '@kairoku-playbook/compiler';

/** The disk, as playbook discovery reads it: sorted names, unreadable entries left out. */
export const diskLister: DirectoryLister = {
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
