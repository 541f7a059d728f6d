import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  SourceText,
  compilePlaybook,
  decodeSource,
  sortForPrinting,
  toJsonDiagnostic,
  validateWorkspace,
  discoverPlaybooks as discover,
  displayPath,
} from '@kairoku-playbook/compiler';
import { diskLister } from '@kairoku-playbook/compiler/disk';
import type { Diagnostic, Ir, JsonDiagnostic, WorkspaceFile } from '@kairoku-playbook/compiler';

/**
 * The playbooks of a workspace as the manager protocol sees them: discovered as SPEC §2 says (the
 * same rule as `kairoku-playbook check`), validated with THE validation function, and compiled to
 * IR when they have no errors. Read again on every call, so an edit shows at once.
 */

/** Playbook files below a folder, as `check` finds them (SPEC §2: the compiler's rule). */
export function discoverPlaybooks(root: string): string[] {
  return discover(root, diskLister);
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
  for (const path of discoverPlaybooks(root)) {
    const shown = displayPath(path, root);
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(path);
    } catch (error) {
      refused.push({
        file: shown,
        range: { start: 0, end: 0 },
        severity: 'error',
        code: 'PB100',
        message: `cannot read this file: ${(error as Error).message}`,
      });
      sources.set(shown, new SourceText(''));
      continue;
    }
    const decoded = decodeSource(shown, bytes);
    if (decoded.text === undefined) {
      refused.push(decoded.diagnostic);
      sources.set(shown, new SourceText(''));
      continue;
    }
    files.push({ file: shown, text: decoded.text });
  }
  const validation = validateWorkspace(files);
  for (const [file, analysis] of validation.analyses) sources.set(file, analysis.source);
  const sourceOf = (file: string) => sources.get(file);
  const diagnostics = sortForPrinting([...refused, ...validation.diagnostics]).map((d) =>
    toJsonDiagnostic(d, sourceOf),
  );
  const errorsOf = (file: string) => diagnostics.filter((d) => d.file === file && d.severity === 'error');
  const playbooks: WorkspacePlaybook[] = [];
  for (const diagnostic of refused)
    playbooks.push({
      file: diagnostic.file,
      id: undefined,
      title: undefined,
      ir: undefined,
      errors: errorsOf(diagnostic.file),
    });
  for (const { file, text } of files) {
    const errors = errorsOf(file);
    const model = validation.analyses.get(file)?.model;
    const ir = errors.length ? undefined : compilePlaybook(file, text).ir;
    playbooks.push({ file, id: model?.id ?? ir?.id, title: model?.title?.value ?? ir?.title, ir, errors });
  }
  playbooks.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { root, playbooks, diagnostics };
}

/** `validate_playbooks`: exactly what `kairoku-playbook check --format json` prints for the workspace. */
export function validationJson(snapshot: WorkspaceSnapshot): string {
  return `${JSON.stringify(snapshot.diagnostics, null, 2)}\n`;
}

/** The workspace's current git branch (from `.git/HEAD`, worktrees included), or '' when unknown. */
export function currentBranch(root: string): string {
  try {
    let gitDir = join(root, '.git');
    if (statSync(gitDir).isFile()) {
      const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(gitDir, 'utf8'));
      if (!pointer) return '';
      gitDir = resolve(root, pointer[1]!.trim());
    }
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
    return ref ? ref[1]! : '';
  } catch {
    return '';
  }
}
