import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { WorkspaceLoader, toJsonDiagnostic, displayPath } from '@kairoku-playbook/compiler';
import { FILE_LIMITS, diskFileSystem, readTextBounded } from '@kairoku-playbook/compiler/disk';
import type { Ir, JsonDiagnostic, LoadedWorkspace, WorkspaceFileSystem } from '@kairoku-playbook/compiler';
import { ToolError } from './tool-error.js';

/**
 * The playbooks of a workspace as the manager protocol sees them: loaded by the compiler's workspace
 * loader (SPEC §2's discovery, the policy, the playbook tests, THE validation), compiled to IR when
 * they have no errors. Loaded again on every call, so an edit shows at once; a load reads only the
 * files that changed since the last one.
 */

export interface WorkspacePlaybook {
  file: string;
  /** the playbook id (present once the file reads as a playbook) */
  id: string | undefined;
  title: string | undefined;
  /** present when the playbook has no errors: it can be started */
  ir: Ir | undefined;
  errors: JsonDiagnostic[];
}

export interface WorkspaceSnapshot {
  root: string;
  playbooks: WorkspacePlaybook[];
  /** every diagnostic, sorted, as `check --format json` prints it */
  diagnostics: JsonDiagnostic[];
}

/** A loader per workspace root: loading again reads only the playbooks that changed. */
const loaders = new Map<string, WorkspaceLoader>();

/** The loader of a workspace folder, on the disk unless another file system is given (tests count reads). */
export function workspaceLoader(root: string, fs: WorkspaceFileSystem = diskFileSystem): WorkspaceLoader {
  return new WorkspaceLoader(fs, {
    paths: [{ path: root, folder: true }],
    show: (path) => displayPath(path, root),
  });
}

/** Discovers, reads and validates the workspace's playbooks; compiles the ones without errors. */
export function readWorkspace(root: string): WorkspaceSnapshot {
  let loader = loaders.get(root);
  if (!loader) {
    loader = workspaceLoader(root);
    loaders.set(root, loader);
  }
  return snapshotOf(root, loader.load());
}

const snapshots = new WeakMap<LoadedWorkspace['validation'], WorkspaceSnapshot>();

/**
 * A loaded workspace as the manager protocol and serve show it: every diagnostic as `check --format json`
 * prints it, the playbooks with their errors. A workspace too large to walk whole is refused, as `check`
 * refuses it, rather than listed in part: a playbook left out would look like one that does not exist.
 */
export function snapshotOf(root: string, loaded: LoadedWorkspace): WorkspaceSnapshot {
  if (loaded.limits.length)
    throw new ToolError(
      `${loaded.limits[0]}; start the server with --workspace on the folder that holds the playbooks`,
    );
  const known = snapshots.get(loaded.validation);
  if (known?.root === root) return known;
  const json = (d: Parameters<typeof toJsonDiagnostic>[0]) => toJsonDiagnostic(d, loaded.sourceOf);
  const snapshot: WorkspaceSnapshot = {
    root,
    playbooks: loaded.playbooks().map((p) => ({ ...p, errors: p.errors.map(json) })),
    diagnostics: loaded.diagnostics.map(json),
  };
  snapshots.set(loaded.validation, snapshot);
  return snapshot;
}

/** `validate_playbooks`: exactly what `kairoku-playbook check --format json` prints for the workspace. */
export function validationJson(snapshot: WorkspaceSnapshot): string {
  return `${JSON.stringify(snapshot.diagnostics, null, 2)}\n`;
}

/** The workspace's current git branch (from `.git/HEAD`, worktrees included), or '' when unknown. */
export function workspaceBranch(root: string): string {
  try {
    let gitDir = join(root, '.git');
    if (statSync(gitDir).isFile()) {
      const pointer = /^gitdir:\s*(.+)$/m.exec(readGitFile(gitDir));
      if (!pointer) return '';
      gitDir = resolve(root, pointer[1]!.trim());
    }
    const head = readGitFile(join(gitDir, 'HEAD')).trim();
    const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
    return ref ? ref[1]! : '';
  } catch {
    return '';
  }
}

/** A line git keeps in a file (`.git` of a worktree, `HEAD`): read only when it is a small regular file. */
function readGitFile(path: string): string {
  const read = readTextBounded(path, FILE_LIMITS.small, "git's HEAD");
  if (read.problem !== undefined) throw new Error(read.message);
  return read.text;
}
