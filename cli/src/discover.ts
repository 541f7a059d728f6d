import { walkFiles } from '@kairoku-playbook/compiler';
import type { Discovery, WalkOptions } from '@kairoku-playbook/compiler';
import { diskLister } from '@kairoku-playbook/compiler/disk';

/**
 * Files below a folder (SPEC §2: playbooks by default), sorted, skipping node_modules, .git and
 * tests, each folder walked once (symbolic links are followed, loops are not), within the walk's
 * limits: `limit` says when one was reached.
 */
export function discoverFiles(root: string, options: WalkOptions = {}): Discovery {
  return walkFiles(root, diskLister, options);
}

/** The path shown for a file: relative to the working directory when inside it, with forward slashes (the compiler's rule). */
export { displayPath } from '@kairoku-playbook/compiler';
