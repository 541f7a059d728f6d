/** Moved to the test kit (test/kit/index.ts); this re-export goes when the CLI's tests import the kit. */
import { cliOnPath, workspaceWith } from '../../test/kit/index.js';
export { CLI as BIN, REPO, hasTool, plain, terminal } from '../../test/kit/index.js';
export const binFolder = cliOnPath;
export const tempFolder = (files: Record<string, string> = {}): string =>
  workspaceWith(files, 'kp-authoring-');
