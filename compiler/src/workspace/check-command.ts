/**
 * How a person runs the CLI in a folder, as hints name it (PB802: "fix it first (COMMAND check FILE)"):
 * `npx kairoku-playbook` when the nearest package.json at or above the folder depends on the package (a
 * repository that installed the tarball or the npm package, where the bare name is not on the PATH), else
 * the bare name. Read through the workspace's file system, so `check` and the language server say the same.
 */
import { FILE_LIMITS } from './file-system.js';
import type { WorkspaceFileSystem } from './file-system.js';
import { joinPath, parentOf } from './loader.js';

const NAME = 'kairoku-playbook';

export function checkCommandIn(fs: WorkspaceFileSystem, folder: string): string {
  for (let dir = folder; ;) {
    const read = fs.readFile(joinPath(dir, 'package.json'), FILE_LIMITS.small, 'a package.json');
    if (read.problem === undefined) return dependsOnIt(read.bytes) ? `npx ${NAME}` : NAME;
    if (read.problem !== 'missing') return NAME;
    const up = parentOf(dir);
    if (up === dir) return NAME;
    dir = up;
  }
}

function dependsOnIt(bytes: Uint8Array): boolean {
  try {
    const json = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
    return ['dependencies', 'devDependencies', 'optionalDependencies'].some((key) => {
      const table = json[key];
      return typeof table === 'object' && table !== null && NAME in table;
    });
  } catch {
    return false; // not JSON: npx would not read it either
  }
}
