import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import type { LoadedWorkspace, WorkspaceFileSystem, WorkspaceLoader } from '@kairoku-playbook/compiler';
import { diskFileSystem } from '@kairoku-playbook/compiler/disk';
import { snapshotOf, workspaceLoader } from '../mcp/workspace.js';
import type { WorkspaceSnapshot } from '../mcp/workspace.js';

/**
 * `serve`'s workspace: loaded once by the compiler's workspace loader and kept, loaded again only after
 * a file watch saw a change in a folder the load walked (debounced), which reads only the files that
 * changed. Every folder the walk lists is watched on its own (`fs.watch`, not recursive: Node's recursive
 * watch on Linux puts an inotify watch on every file and folder of the tree, node_modules included);
 * the folders are taken again after each load, so a new folder of playbooks is watched from then on.
 * When watching fails (no inotify left, too many folders), each question loads again (the loader then
 * looks at each file's status and reads only what changed), and a timer does so for the panel's events.
 */
export interface ServedWorkspace {
  /** the workspace as it is now */
  snapshot(): WorkspaceSnapshot;
  /** whether the workspace is watched (else it is looked at again on each question) */
  readonly watching: boolean;
  close(): void;
}

export interface ServedWorkspaceOptions {
  /** the file system (default the disk); tests count its reads */
  fs?: WorkspaceFileSystem;
  /** called after a change was loaded (the panel's `playbooks` event) */
  changed?: () => void;
  /** watch the workspace (default true); without it, each question looks at the files again */
  watch?: boolean;
  /** the quiet time after a change before loading it (default 100 ms): an editor's save is a burst */
  settleMs?: number;
  /** without a working watch, how often to look for changes for `changed` (default 2 s) */
  pollMs?: number;
  /** how many folders are watched at most; a larger workspace is looked at on each question */
  maxFolders?: number;
}

const YAML = /\.ya?ml$/i;
const EXTENSION = /\.[^./\\]+$/;
const SKIPPED = /(^|[\\/])(node_modules|\.git)([\\/]|$)/;

/** Whether a change to an entry of a watched folder may change the workspace: a YAML file, or a folder. */
function relevant(name: string | null): boolean {
  if (name === null) return true;
  if (SKIPPED.test(name)) return false;
  return YAML.test(name) || !EXTENSION.test(name); // (`.kairoku/exclude`, a folder)
}

export function serveWorkspace(root: string, options: ServedWorkspaceOptions = {}): ServedWorkspace {
  return new WatchedWorkspace(root, options);
}

class WatchedWorkspace implements ServedWorkspace {
  private readonly loader: WorkspaceLoader;
  /** the folders the last load listed: those watched */
  private listed = new Set<string>();
  private readonly watchers = new Map<string, FSWatcher>();
  watching: boolean;
  private dirty = true;
  private current: LoadedWorkspace | undefined;
  private timer: NodeJS.Timeout | undefined;
  private poll: NodeJS.Timeout | undefined;
  private closed = false;
  /** loads that found a change, and how many of them were told (`changed`) */
  private changes = 0;
  private told = 0;

  constructor(
    private readonly root: string,
    private readonly options: ServedWorkspaceOptions,
  ) {
    const disk = options.fs ?? diskFileSystem;
    const fs: WorkspaceFileSystem = {
      ...disk,
      readDirectory: (path, max) => {
        this.listed.add(path);
        return disk.readDirectory(path, max);
      },
    };
    this.loader = workspaceLoader(root, fs);
    this.watching = options.watch !== false;
    // Loaded at once, so the watch (or the poll) runs from the start.
    if (this.watching) this.refresh(false);
  }

  snapshot(): WorkspaceSnapshot {
    const current = this.dirty || !this.watching || !this.current ? this.load() : this.current;
    return snapshotOf(this.root, current);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.poll);
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private load(): LoadedWorkspace {
    this.listed = new Set();
    this.dirty = false;
    const current = this.loader.load();
    this.current = current;
    // (the policy may be above the root, where the walk does not go: its folder is watched too)
    if (current.policy) this.listed.add(dirname(current.policy));
    if (current.changed) this.changes++;
    if (this.watching) this.rewatch();
    return current;
  }

  /** Loads again; tells `changed` when the load found a change (or an earlier load did, untold). */
  private refresh(tell = true): void {
    if (this.closed) return;
    try {
      this.load();
    } catch {
      this.dirty = true;
      return;
    }
    if (this.told === this.changes) return;
    this.told = this.changes;
    if (tell) this.options.changed?.();
  }

  private changedNow(): void {
    this.dirty = true;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), this.options.settleMs ?? 100);
    this.timer.unref();
  }

  /** Watches the folders the last load listed, and lets the others go. */
  private rewatch(): void {
    if (this.listed.size > (this.options.maxFolders ?? 10_000)) return this.stopWatching();
    for (const [folder, watcher] of this.watchers)
      if (!this.listed.has(folder)) {
        watcher.close();
        this.watchers.delete(folder);
      }
    for (const folder of this.listed) {
      if (this.watchers.has(folder)) continue;
      try {
        const watcher = watch(folder, { persistent: false }, (_event, name) => {
          if (relevant(name)) this.changedNow();
        });
        // a folder removed under the watch ends its watcher; the next load finds the folders again
        watcher.on('error', () => {
          watcher.close();
          this.watchers.delete(folder);
          this.changedNow();
        });
        this.watchers.set(folder, watcher);
      } catch (error) {
        // gone between the walk and the watch: seen by the next load; out of inotify watches: no watch
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') this.changedNow();
        else return this.stopWatching();
      }
    }
  }

  /** Watching failed: each question loads again, and a timer does for the `changed` events. */
  private stopWatching(): void {
    this.watching = false;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    if (this.poll || this.closed) return;
    this.poll = setInterval(() => this.refresh(), this.options.pollMs ?? 2000);
    this.poll.unref();
  }
}
