import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { isDiscoveredPath, walkFiles } from '@kairoku-playbook/compiler';
import type { Discovery, WalkOptions } from '@kairoku-playbook/compiler';
import { diskExcludes, diskLister } from '@kairoku-playbook/compiler/disk';
import { UsageError } from './io.js';

/**
 * Files below a folder (SPEC §2: playbooks by default), sorted, skipping node_modules, .git,
 * tests and what the workspace's `.kairoku/exclude` names, each folder walked once (symbolic links are followed, loops are not), within the walk's
 * limits: `limit` says when one was reached.
 */
export function discoverFiles(root: string, options: WalkOptions = {}): Discovery {
  // The `.kairoku/exclude` of the folder walked (the workspace): what it names is not a playbook.
  const exclude = diskExcludes(root);
  return walkFiles(root, diskLister, { ...(exclude ? { exclude } : {}), ...options });
}

/** The path shown for a file: relative to the working directory when inside it, with forward slashes (the compiler's rule). */
export { displayPath } from '@kairoku-playbook/compiler';

/**
 * Files as given, folders searched for the playbooks and the playbook tests check and format take
 * (SPEC §2, §8), with the limits their walks reached; a missing path is a usage error.
 */
export function collectPaths(
  args: readonly string[],
  cwd: string,
): { paths: string[]; named: Set<string>; limits: string[] } {
  const paths: string[] = [];
  const named = new Set<string>();
  const limits: string[] = [];
  for (const arg of args) {
    const path = resolve(cwd, arg);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      throw new UsageError(`no such file or folder: ${arg}`);
    }
    if (isDirectory) {
      // the playbooks, and the playbook tests (SPEC §8), checked against their playbooks
      const found = discoverFiles(path, {
        shownRoot: arg === '.' ? 'the current folder' : arg,
        accept: isDiscoveredPath,
      });
      paths.push(...found.files);
      if (found.limit) limits.push(found.limit);
    } else {
      paths.push(path);
      named.add(path);
    }
  }
  return { paths: [...new Set(paths)], named, limits };
}
