import { discoverPlaybooks as discover } from '@kairoku-playbook/compiler';
import { diskLister } from '@kairoku-playbook/compiler/disk';

/** Playbook files below a folder (SPEC §2), sorted, skipping node_modules, .git and tests. */
export function discoverPlaybooks(root: string): string[] {
  return discover(root, diskLister);
}

/** The path shown for a file: relative to the working directory when inside it, with forward slashes (the compiler's rule). */
export { displayPath } from '@kairoku-playbook/compiler';
