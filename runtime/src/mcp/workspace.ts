import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  SourceText,
  compilePlaybook,
  decodeSource,
  isPlaybookFile,
  sortDiagnostics as sortForPrinting,
  toJsonDiagnostic,
  validateWorkspace,
  isDiscoveredPath,
  isPlaybookTest,
  playbooksOfTests,
  walkFiles,
  displayPath,
} from '@kairoku-playbook/compiler';
import {
  FILE_LIMITS,
  diskExcludes,
  diskLister,
  readFileBounded,
  readTextBounded,
  refusalMessage,
} from '@kairoku-playbook/compiler/disk';
import type { Diagnostic, Ir, JsonDiagnostic, WorkspaceFile } from '@kairoku-playbook/compiler';
import { ToolError } from './tool-error.js';

/**
 * The playbooks of a workspace as the manager protocol sees them: discovered as SPEC §2 says (the
 * same rule as `kairoku-playbook check`), validated with THE validation function, and compiled to
 * IR when they have no errors. Read again on every call, so an edit shows at once.
 */

/**
 * Playbook files below a folder, as `check` finds them (SPEC §2: the compiler's rule, and its bounded
 * walk). A workspace too large to walk whole is refused, as `check` refuses it, rather than listed in
 * part: a playbook left out would look like one that does not exist.
 */
export function workspacePlaybooks(root: string, withTests = false): string[] {
  // (with the playbook tests, which `check` checks against their playbooks: validate_playbooks prints the same)
  const exclude = diskExcludes(root);
  const found = walkFiles(root, diskLister, {
    ...(withTests ? { accept: isDiscoveredPath } : {}),
    ...(exclude ? { exclude } : {}),
  });
  if (found.limit)
    throw new ToolError(
      `${found.limit}; start the server with --workspace on the folder that holds the playbooks`,
    );
  return found.files;
}

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

/** Discovers, reads and validates the workspace's playbooks; compiles the ones without errors. */
export function readWorkspace(root: string): WorkspaceSnapshot {
  const files: WorkspaceFile[] = [];
  const refused: Diagnostic[] = [];
  const sources = new Map<string, SourceText>();
  for (const path of workspacePlaybooks(root, true)) {
    const shown = displayPath(path, root);
    // As `check` reads it: a regular file within the playbook limit, else one PB100 saying why.
    const read = readFileBounded(path, FILE_LIMITS.playbook, 'a playbook');
    if (read.problem !== undefined) {
      refused.push({
        file: shown,
        range: { start: 0, end: 0 },
        severity: 'error',
        code: 'PB100',
        message:
          read.problem === 'missing' || read.problem === 'unreadable'
            ? `cannot read this file: ${read.message}`
            : refusalMessage(read),
      });
      sources.set(shown, new SourceText(''));
      continue;
    }
    const decoded = decodeSource(shown, read.bytes);
    if (decoded.text === undefined) {
      refused.push(decoded.diagnostic);
      sources.set(shown, new SourceText(decoded.shownText));
      continue;
    }
    // SPEC §2: an Ansible playbook (a list at the top level) in a bare playbooks/ folder is not ours.
    if (!isPlaybookTest(path) && !isPlaybookFile(path, decoded.text)) continue;
    files.push({ file: shown, text: decoded.text });
  }
  // (the playbook beside a test, read for the test as check reads it)
  const readForTests = (file: string): string | undefined => {
    const read = readFileBounded(resolve(root, file), FILE_LIMITS.playbook, 'a playbook');
    return read.problem === undefined ? decodeSource(file, read.bytes).text : undefined;
  };
  // SPEC §4 PB700: the workspace's approval policy, read as `check` reads it (not a playbook).
  const policy = policyFileOf(root);
  const validation = validateWorkspace([
    ...(policy ? [policy] : []),
    ...files,
    ...playbooksOfTests(files, readForTests),
  ]);
  for (const [file, analysis] of validation.analyses) sources.set(file, analysis.source);
  for (const [file, analysis] of validation.tests) sources.set(file, analysis.source);
  const sourceOf = (file: string) => sources.get(file);
  const diagnostics = sortForPrinting([...refused, ...validation.diagnostics]).map((d) =>
    toJsonDiagnostic(d, sourceOf),
  );
  const errorsOf = (file: string) => diagnostics.filter((d) => d.file === file && d.severity === 'error');
  const playbooks: WorkspacePlaybook[] = [];
  for (const diagnostic of refused)
    if (!isPlaybookTest(diagnostic.file))
      playbooks.push({
        file: diagnostic.file,
        id: undefined,
        title: undefined,
        ir: undefined,
        errors: errorsOf(diagnostic.file),
      });
  for (const { file, text } of files) {
    if (isPlaybookTest(file)) continue;
    const errors = errorsOf(file);
    const model = validation.analyses.get(file)?.model;
    const ir = errors.length ? undefined : compilePlaybook(file, text).ir;
    playbooks.push({ file, id: model?.id ?? ir?.id, title: model?.title?.value ?? ir?.title, ir, errors });
  }
  playbooks.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { root, playbooks, diagnostics };
}

/** The workspace's `.kairoku/policy.yml`, when there is a readable one. */
function policyFileOf(root: string): WorkspaceFile | undefined {
  const path = join(root, '.kairoku', 'policy.yml');
  const read = readFileBounded(path, FILE_LIMITS.playbook, 'a policy file');
  if (read.problem !== undefined) return undefined;
  const file = displayPath(path, root);
  const decoded = decodeSource(file, read.bytes);
  return decoded.text === undefined ? undefined : { file, text: decoded.text };
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
