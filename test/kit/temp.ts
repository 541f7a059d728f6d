import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const made: string[] = [];
let cleaning = false;

/**
 * A new temporary folder (its real path: `serve` and the store name a workspace by it), removed when
 * the test process ends.
 */
export function tempDir(prefix = 'kp-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  if (!cleaning) {
    cleaning = true;
    process.once('exit', () => {
      for (const folder of made) rmSync(folder, { recursive: true, force: true });
    });
  }
  return dir;
}

/** A temporary folder holding `files` (path → text), e.g. `{ 'playbooks/pr.yml': PR }`. */
export function workspaceWith(files: Record<string, string>, prefix = 'kp-ws-'): string {
  const root = tempDir(prefix);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}
