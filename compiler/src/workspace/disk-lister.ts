import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DirectoryLister } from './discovery.js';

/**
 * The disk, as playbook discovery reads it: sorted names, unreadable entries left out. The compiler's
 * one piece of I/O, behind its own entry point (`@kairoku-playbook/compiler/disk`): the CLI, the
 * language server and the MCP server hand it to discovery; the compiler itself reads no disk.
 */
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
