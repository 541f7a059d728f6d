import { statSync } from 'node:fs';
import { workspacePlaybooks } from '../mcp/workspace.js';

/**
 * Playbook files changed (created, edited, removed): looked for every `everyMs` by the discovery rule
 * (the walk `check` makes, which leaves out node_modules and .git) and their sizes and times. Not a
 * recursive fs.watch: on Linux that puts a watch on every folder of the tree, node_modules included.
 */
export function watchPlaybooks(root: string, changed: () => void, everyMs: number): { close: () => void } {
  const signature = (): string => {
    try {
      return workspacePlaybooks(root)
        .map((file) => {
          try {
            const stat = statSync(file);
            return `${file}:${stat.size}:${stat.mtimeMs}`;
          } catch {
            return `${file}:gone`;
          }
        })
        .join('\n');
    } catch {
      return '';
    }
  };
  let last = signature();
  const timer = setInterval(() => {
    const now = signature();
    if (now === last) return;
    last = now;
    changed();
  }, everyMs);
  timer.unref();
  return { close: () => clearInterval(timer) };
}
