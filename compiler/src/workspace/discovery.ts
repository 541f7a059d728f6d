/**
 * Playbook discovery (SPEC §2), the one rule `check`, the language server and the manager protocol
 * share: `*.playbook.yml|yaml` anywhere, every `*.yml|yaml` directly in a `playbooks/` folder (so also
 * `.kairoku/playbooks/` and `.paseo/playbooks/`); `node_modules`, `.git` and `*.test.yml|yaml` are
 * skipped. The folder listing is passed in, so this stays free of I/O.
 *
 * The walk is bounded (`WALK_LIMITS`): a workspace can be `/`, a symbolic link can point at its own
 * folder (`ln -s . x`, twice, is 2^depth paths), and a folder can hold millions of entries. Each
 * folder is walked once, whatever path leads to it, and a walk that reaches a limit says so in a
 * sentence instead of stopping silently.
 */

import { Parser } from 'yaml';

export interface DirectoryEntry {
  name: string;
  isDirectory: boolean;
}

export interface DirectoryLister {
  /**
   * The entries of a folder, sorted by name; empty when it cannot be read. `max` is how many more
   * entries the walk may take: a lister may stop reading after `max + 1` (unsorted then: the walk
   * stops there anyway).
   */
  readDirectory(path: string, max?: number): DirectoryEntry[];
  /**
   * The identity of a folder (device and inode), the same for every path that leads to it, so a
   * folder reached again through a symbolic link is not walked twice. Listers without links (in
   * memory) leave it out: each path is then its own folder.
   */
  identify?(path: string): string | undefined;
}

/** The bounds of one walk; see docs/cli.md "Limits". */
export const WALK_LIMITS = {
  /** folders walked (each at most once, however many links lead to it) */
  folders: 100_000,
  /** entries listed, files and folders together (bounds the time and the memory of a walk) */
  entries: 1_000_000,
  /** folders below the root; a deeper folder is not entered */
  depth: 64,
  /** files found (playbooks, or playbook tests) */
  files: 10_000,
};

export type WalkLimits = typeof WALK_LIMITS;

export interface Discovery {
  /** the files found, sorted depth first: the order `check` visits them */
  files: string[];
  /**
   * Set when the walk reached a limit: a sentence naming the folder and the limit. The files found
   * up to there are in `files`, but the walk is not complete.
   */
  limit: string | undefined;
  /** folders walked and entries listed (for the report of a limit, and for measurements) */
  folders: number;
  entries: number;
}

export interface WalkOptions {
  /** which files to collect (default: playbooks) */
  accept?: (path: string) => boolean;
  /** what the files are called in a limit's sentence (default "playbooks") */
  what?: string;
  /** the root as the sentence shows it (default the root path) */
  shownRoot?: string;
  limits?: Partial<WalkLimits>;
  /** paths left out (a workspace's `.kairoku/exclude`, `excludeTest`): a folder is not entered */
  exclude?: (path: string, isDirectory: boolean) => boolean;
}

const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git']);

function segments(path: string): string[] {
  return path.replace(/\\/g, '/').split('/');
}

export function isPlaybookTest(path: string): boolean {
  return /\.test\.ya?ml$/i.test(segments(path).pop() ?? '');
}

export function isPlaybookPath(path: string): boolean {
  const parts = segments(path);
  const name = parts[parts.length - 1] ?? '';
  if (!/\.ya?ml$/i.test(name) || isPlaybookTest(name)) return false;
  if (/\.playbook\.ya?ml$/i.test(name)) return true;
  return parts[parts.length - 2] === 'playbooks';
}

/**
 * The files a test's playbook may be, in its folder, the first that is there: `pr.test.yml` → `pr.yml`,
 * `pr.yaml`. A playbook has as many tests as it needs, by name: `NAME.LABEL.test.yml` (`pr.reject.test.yml`)
 * tests `pr.reject.yml` if there is one, else `pr.yml` (or `.yaml`). The label is the last `.` part of the
 * name before `.test.yml`, never `playbook` (`deploy.playbook.test.yml` tests `deploy.playbook.yml` only;
 * `deploy.playbook.smoke.test.yml` tests it too).
 */
export function playbookFilesOf(testFile: string): string[] {
  const match = /\.test\.ya?ml$/i.exec(testFile);
  if (!match) return [];
  const stem = testFile.slice(0, match.index);
  const files = [`${stem}.yml`, `${stem}.yaml`];
  const nameStart = Math.max(stem.lastIndexOf('/'), stem.lastIndexOf('\\')) + 1;
  const dot = stem.lastIndexOf('.');
  if (dot > nameStart && stem.slice(dot + 1).toLowerCase() !== 'playbook')
    files.push(`${stem.slice(0, dot)}.yml`, `${stem.slice(0, dot)}.yaml`);
  return files;
}

/**
 * What a folder walk checks (SPEC §2): the playbooks, and the playbook tests of files at a playbook's
 * path (`playbooks/pr.test.yml`, `deploy.playbook.test.yml`), so a test is found where its playbook would
 * be and a fixture's `ship.test.yml` beside a `ship.yml` nobody discovers is not. A test named on the
 * command line is checked wherever it is.
 */
export function isDiscoveredPath(path: string): boolean {
  return isPlaybookPath(path) || (isPlaybookTest(path) && playbookFilesOf(path).some(isPlaybookPath));
}

/**
 * Whether a playbook path is one only the bare `playbooks/` folder rule finds (SPEC §2): not a
 * `*.playbook.yml`, not under `.kairoku/playbooks/` or `.paseo/playbooks/`. Ansible keeps its playbooks
 * in such a folder too, so what is in the file decides (`isPlaybookFile`).
 */
export function isSharedFolderPath(path: string): boolean {
  if (!isPlaybookPath(path)) return false;
  const parts = segments(path);
  if (/\.playbook\.ya?ml$/i.test(parts[parts.length - 1] ?? '')) return false;
  const owner = parts[parts.length - 3];
  return owner !== '.kairoku' && owner !== '.paseo';
}

/**
 * What the top level of a YAML text is, read from the first document's syntax alone (no values are
 * built, so it costs a fraction of a parse). A text whose top level does not read (a syntax error there)
 * counts as a mapping: it is a playbook being written, and its error is worth showing.
 */
export function topLevelKind(text: string): 'mapping' | 'list' | 'scalar' | 'empty' {
  for (const token of new Parser().parse(text)) {
    if (token.type !== 'document') continue;
    const value = token.value;
    if (!value) return 'empty';
    switch (value.type) {
      case 'block-map':
      case 'error':
        return 'mapping';
      case 'block-seq':
        return 'list';
      case 'flow-collection':
        return value.start.source === '[' ? 'list' : 'mapping';
      default:
        return 'scalar';
    }
  }
  return 'empty';
}

/**
 * Whether a file that discovery found is a playbook (SPEC §2): a file found only by the bare
 * `playbooks/` folder rule is one when its top level is a mapping (or empty: a playbook not yet
 * written); a list there is an Ansible playbook (a list of plays), a scalar is not a playbook either,
 * and both are left alone. Every other discovered file is a playbook whatever it holds.
 */
export function isPlaybookFile(path: string, text: string): boolean {
  if (!isSharedFolderPath(path)) return isPlaybookPath(path);
  const kind = topLevelKind(text);
  return kind === 'mapping' || kind === 'empty';
}

interface Frame {
  path: string;
  depth: number;
  entries: DirectoryEntry[];
  next: number;
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * A walk that can be taken in steps (`advance`), so a language server walks a large root between
 * requests instead of blocking them; `check` takes it in one go. Depth first over sorted entries.
 */
export class FileWalk {
  private readonly stack: Frame[] = [];
  private readonly seen = new Set<string>();
  private readonly found: string[] = [];
  private readonly limits: WalkLimits;
  private readonly accept: (path: string) => boolean;
  private readonly exclude: ((path: string, isDirectory: boolean) => boolean) | undefined;
  private readonly what: string;
  private readonly shownRoot: string;
  private readonly join: (directory: string, name: string) => string;
  private folders = 0;
  private entries = 0;
  private limit: string | undefined;
  private stopped = false;

  constructor(
    private readonly root: string,
    private readonly lister: DirectoryLister,
    options: WalkOptions = {},
  ) {
    this.limits = { ...WALK_LIMITS, ...options.limits };
    this.accept = options.accept ?? isPlaybookPath;
    this.exclude = options.exclude;
    this.what = options.what ?? 'playbooks';
    this.shownRoot = options.shownRoot ?? root;
    const separator = root.includes('\\') && !root.includes('/') ? '\\' : '/';
    this.join = (directory, name) =>
      directory.endsWith(separator) ? `${directory}${name}` : `${directory}${separator}${name}`;
    this.enter(root, 0);
  }

  get done(): boolean {
    return this.stopped || this.stack.length === 0;
  }

  /** Walks until done or until `budget` more entries are listed; whether the walk is done. */
  advance(budget = Infinity): boolean {
    const until = this.entries + budget;
    while (!this.done && this.entries < until) {
      const frame = this.stack[this.stack.length - 1]!;
      const entry = frame.entries[frame.next++];
      if (!entry) {
        this.stack.pop();
        continue;
      }
      const path = this.join(frame.path, entry.name);
      if (this.exclude?.(path, entry.isDirectory)) continue;
      if (entry.isDirectory) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) this.enter(path, frame.depth + 1);
      } else if (this.accept(path)) {
        if (this.found.length >= this.limits.files) {
          this.stop(
            `stopped looking for ${this.what} in ${this.shownRoot} after finding ${count(this.limits.files)} (the limit); check fewer at a time`,
          );
        } else this.found.push(path);
      }
    }
    return this.done;
  }

  result(): Discovery {
    return { files: [...this.found], limit: this.limit, folders: this.folders, entries: this.entries };
  }

  private enter(path: string, depth: number): void {
    if (depth > this.limits.depth) {
      // Deeper folders are left out, the rest of the walk goes on; the first one is named.
      this.limit ??= `did not look for ${this.what} in ${path}: it is more than ${count(this.limits.depth)} folders below ${this.shownRoot} (the limit)`;
      return;
    }
    const identity = this.lister.identify ? this.lister.identify(path) : path;
    if (identity === undefined || this.seen.has(identity)) return; // gone, or already walked (a link)
    if (this.folders >= this.limits.folders) {
      this.stop(
        `stopped looking for ${this.what} in ${this.shownRoot} after ${count(this.limits.folders)} folders (the limit); check a smaller folder`,
      );
      return;
    }
    this.seen.add(identity);
    this.folders++;
    const room = this.limits.entries - this.entries;
    const entries = this.lister.readDirectory(path, room);
    if (entries.length > room) {
      this.stop(
        `stopped looking for ${this.what} in ${this.shownRoot} after listing ${count(this.limits.entries)} files and folders (the limit); check a smaller folder`,
      );
      return;
    }
    this.entries += entries.length;
    this.stack.push({ path, depth, entries, next: 0 });
  }

  private stop(reason: string): void {
    this.limit = reason;
    this.stopped = true;
    this.stack.length = 0;
  }
}

/** Walks a folder for playbooks (or, with `accept`, other files) in one go. */
export function walkFiles(root: string, lister: DirectoryLister, options: WalkOptions = {}): Discovery {
  const walk = new FileWalk(root, lister, options);
  walk.advance();
  return walk.result();
}

/** Playbook files below a folder, sorted, depth first: the order `check` visits them. */
export function discoverPlaybooks(root: string, lister: DirectoryLister): string[] {
  return walkFiles(root, lister).files;
}

/** The path diagnostics show: relative to the workspace root, with forward slashes. */
export function displayPath(path: string, root: string): string {
  const normalise = (p: string) => p.replace(/\\/g, '/').replace(/\/+$/, '');
  const full = normalise(path);
  const base = normalise(root);
  if (full.startsWith(`${base}/`)) return full.slice(base.length + 1);
  return full;
}
