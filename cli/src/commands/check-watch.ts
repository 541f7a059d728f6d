import { existsSync, readdirSync, statSync, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { discoverFiles } from '../discover.js';
import { UsageError } from '../io.js';
import type { CommandIo } from '../io.js';

/** Edits come in bursts (an editor's save writes, renames and touches): one check after the last. */
const SETTLE_MS = 100;

const PLAYBOOK_FOLDERS = ['playbooks', '.kairoku/playbooks', '.paseo/playbooks'];

/** Folders discovery never enters (discover.ts), so a new one is not watched either. */
const SKIPPED = new Set(['node_modules', '.git']);

/** How many folders one new folder may bring into the watch (a tree moved in whole). */
const MAX_ADOPTED = 1000;

const YAML = /\.ya?ml$/i;

/**
 * `check --watch`: checks once, then again after each change to a YAML file in a watched folder,
 * printing each result whole; the folders are found again after every check, so a new folder of
 * playbooks is watched from then on. A folder created under a watched one is watched at once, with
 * the folders inside it, and a YAML file already in it counts as a change: `fs.watch` is not
 * recursive, so otherwise a playbook written into a new folder went unseen until another save.
 * Ctrl-C (SIGINT) stops it with exit code 0: watching has no verdict of its own. A check that is
 * refused (no playbooks yet, a file gone) says so and waits.
 */
export function watchCheck(given: readonly string[], io: CommandIo, once: () => number): Promise<number> {
  return new Promise((resolveExit) => {
    const session = new WatchSession(given, io, once, () => {
      process.off('SIGINT', stop);
      resolveExit(0);
    });
    const stop = () => session.stop();
    process.on('SIGINT', stop);
    session.check();
  });
}

class WatchSession {
  private readonly watchers = new Map<string, FSWatcher>();
  /** folders that appeared under a watched folder: watched while they exist, playbooks or not */
  private readonly adopted = new Set<string>();
  private readonly changed = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly given: readonly string[],
    private readonly io: CommandIo,
    private readonly once: () => number,
    private readonly onStop: () => void,
  ) {}

  check(): void {
    try {
      this.once();
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      this.io.stderr(`kairoku-playbook: ${error.message}\n`);
    }
    this.rewatch();
    const what = this.given.map((path) => (path === '.' ? 'the current folder' : path)).join(', ');
    this.io.stderr(`kairoku-playbook: watching ${what} for changes (Ctrl-C stops)\n`);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    for (const watcher of this.watchers.values()) watcher.close();
    this.onStop();
  }

  /** Watches what the last check found, and the adopted folders still there; lets the rest go. */
  private rewatch(): void {
    const wanted = watchTargets(this.given, this.io.cwd);
    for (const folder of this.adopted)
      if (existsSync(folder)) wanted.set(folder, wanted.get(folder));
      else this.adopted.delete(folder);
    for (const [folder, watcher] of this.watchers)
      if (!wanted.has(folder)) {
        watcher.close();
        this.watchers.delete(folder);
      }
    for (const [folder, names] of wanted) this.watch(folder, names);
  }

  /** Watches `folder`: for the YAML files in it, or (`names`) for those files only. */
  private watch(folder: string, names: Set<string> | undefined): void {
    if (this.watchers.has(folder)) return;
    try {
      const watcher = watch(folder, (_event, name) => {
        const file = name?.toString();
        if (file === undefined) return this.changedNow(folder);
        if (names) return names.has(file) ? this.changedNow(file) : undefined;
        if (YAML.test(file)) return this.changedNow(file);
        this.adopt(join(folder, file));
      });
      // a folder removed under the watch ends its watcher; the next check finds the folders again
      watcher.on('error', () => {
        watcher.close();
        this.watchers.delete(folder);
      });
      this.watchers.set(folder, watcher);
    } catch {
      // gone between finding and watching: found again after the next change
    }
  }

  /**
   * A new entry of a watched folder: when it is a folder, it and the folders in it are watched now
   * (before anything written into them can be missed), and a YAML file already there is a change.
   */
  private adopt(path: string): void {
    if (this.stopped || this.adopted.has(path) || this.watchers.has(path)) return;
    const { folders, yaml } = foldersBelow(path);
    for (const folder of folders) {
      this.adopted.add(folder);
      this.watch(folder, undefined);
    }
    if (yaml) this.changedNow(`${relative(this.io.cwd, path) || path}/`);
  }

  private changedNow(name: string): void {
    this.changed.add(name);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.recheck(), SETTLE_MS);
  }

  private recheck(): void {
    if (this.stopped) return;
    const names = [...this.changed].sort();
    this.changed.clear();
    this.io.stdout(`\n--- ${names.join(', ')} changed: checking again ---\n`);
    this.check();
  }
}

/**
 * `path` and the folders below it, when it is a folder discovery would enter (not node_modules or
 * .git), up to MAX_ADOPTED of them; and whether a YAML file is in any of them.
 */
function foldersBelow(path: string): { folders: string[]; yaml: boolean } {
  const folders: string[] = [];
  let yaml = false;
  const pending = [path];
  while (pending.length && folders.length < MAX_ADOPTED) {
    const folder = pending.shift()!;
    if (SKIPPED.has(basename(folder))) continue;
    let entries;
    try {
      if (!statSync(folder).isDirectory()) continue;
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      continue; // a file, or gone already
    }
    folders.push(folder);
    for (const entry of entries) {
      if (entry.isDirectory()) pending.push(join(folder, entry.name));
      else if (YAML.test(entry.name)) yaml = true;
    }
  }
  return { folders, yaml };
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
