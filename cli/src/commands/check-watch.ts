import { existsSync, statSync, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { discoverFiles } from '../discover.js';
import { UsageError } from '../io.js';
import type { CommandIo } from '../io.js';

/** Edits come in bursts (an editor's save writes, renames and touches): one check after the last. */
const SETTLE_MS = 100;

const PLAYBOOK_FOLDERS = ['playbooks', '.kairoku/playbooks', '.paseo/playbooks'];

/**
 * `check --watch`: checks once, then again after each change to a YAML file in a watched folder,
 * printing each result whole; the folders are found again after every check, so a new folder of
 * playbooks is watched from then on. Ctrl-C (SIGINT) stops it with exit code 0: watching has no
 * verdict of its own. A check that is refused (no playbooks yet, a file gone) says so and waits.
 */
export function watchCheck(given: readonly string[], io: CommandIo, once: () => number): Promise<number> {
  return new Promise((resolveExit) => {
    const watchers = new Map<string, FSWatcher>();
    let timer: NodeJS.Timeout | undefined;
    const changed = new Set<string>();
    let stopped = false;

    const check = () => {
      try {
        once();
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        io.stderr(`kairoku-playbook: ${error.message}\n`);
      }
      rewatch();
      io.stderr(
        `kairoku-playbook: watching ${given.map((path) => (path === '.' ? 'the current folder' : path)).join(', ')} for changes (Ctrl-C stops)\n`,
      );
    };

    const rewatch = () => {
      const wanted = watchTargets(given, io.cwd);
      for (const [folder, watcher] of watchers)
        if (!wanted.has(folder)) {
          watcher.close();
          watchers.delete(folder);
        }
      for (const [folder, names] of wanted) {
        if (watchers.has(folder)) continue;
        try {
          const watcher = watch(folder, (_event, name) => {
            const file = name?.toString();
            if (file !== undefined && (names ? !names.has(file) : !/\.ya?ml$/i.test(file))) return;
            changed.add(file ?? folder);
            clearTimeout(timer);
            timer = setTimeout(recheck, SETTLE_MS);
          });
          // a folder removed under the watch ends its watcher; the next check finds the folders again
          watcher.on('error', () => {
            watcher.close();
            watchers.delete(folder);
          });
          watchers.set(folder, watcher);
        } catch {
          // gone between finding and watching: found again after the next change
        }
      }
    };

    const recheck = () => {
      if (stopped) return;
      const names = [...changed].sort();
      changed.clear();
      io.stdout(`\n--- ${names.join(', ')} changed: checking again ---\n`);
      check();
    };

    const stop = () => {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      process.off('SIGINT', stop);
      resolveExit(0);
    };
    process.on('SIGINT', stop);
    check();
  });
}

/**
 * What `check --watch PATH...` watches: each folder PATH, the folders of playbooks in it (SPEC §2)
 * and the folders its playbooks were found in; for a file PATH, its folder, for that file's name only.
 */
function watchTargets(given: readonly string[], cwd: string): Map<string, Set<string> | undefined> {
  const targets = new Map<string, Set<string> | undefined>();
  for (const arg of given) {
    const path = resolve(cwd, arg);
    let isDirectory = false;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      // a file that is gone: watch its folder for it to come back
    }
    if (!isDirectory) {
      const folder = dirname(path);
      const names = targets.has(folder) ? targets.get(folder) : new Set<string>();
      names?.add(basename(path));
      if (existsSync(folder)) targets.set(folder, names);
      continue;
    }
    targets.set(path, undefined);
    for (const sub of PLAYBOOK_FOLDERS) {
      const folder = join(path, sub);
      if (existsSync(folder)) targets.set(folder, undefined);
    }
    for (const file of discoverFiles(path).files) targets.set(dirname(file), undefined);
  }
  return targets;
}
