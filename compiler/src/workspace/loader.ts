/**
 * THE workspace loader: what `check`, the manager protocol, `serve`, `diff` and the language server
 * read a workspace with. Given a file system (file-system.ts) and the folders walked and the files
 * named, it gives the workspace's files, each refused one as one PB100, the approval policy found from
 * the files' own location, SPEC §2's rule for Ansible playbooks, the playbooks beside playbook tests,
 * THE validation (`validateWorkspace`), the analyses and the IR, as one object. Loading again reads
 * only the files whose version changed and reuses the analyses of the rest. No I/O of its own.
 */
import { compilePlaybook } from '../compile-ir.js';
import { sortDiagnostics } from '../diagnostic.js';
import type { Diagnostic } from '../diagnostic.js';
import type { Ir } from '../ir/ir.js';
import { playbooksOfTests } from '../playbook-tests/test-file.js';
import { isPolicyFile } from '../policy-file/policy-file.js';
import { SourceText } from '../source-text.js';
import { decodeSource, validateWorkspace } from '../validate.js';
import type { Validation, WorkspaceFile } from '../validate.js';
import { FileWalk, isDiscoveredPath, isPlaybookFile, isPlaybookTest, playbookFilesOf } from './discovery.js';
import { EXCLUDE_FILE, excludeTest } from './excludes.js';
import type { ExcludeTest } from './excludes.js';
import { FILE_LIMITS, refusalDiagnostic } from './file-system.js';
import type { FileRead, WorkspaceFileSystem } from './file-system.js';

/** Where a workspace keeps its approval policy (SPEC §4 PB700), relative to the folder holding `.kairoku/`. */
export const POLICY_FILE = '.kairoku/policy.yml';

/** A file of the workspace as read: its text, or the PB100 that says why it is not read. */
export type ReadResult =
  | { text: string; byteOrderMark: boolean; refused?: undefined }
  | {
      text?: undefined;
      refused: Diagnostic;
      /** the text as far as it decodes, where the PB100 points */
      shownText: string;
      problem: FileRead['problem'] | 'not-utf-8';
      /** why, in words, without the path */
      reason: string;
    };

/** THE read of a workspace file: a regular file within the playbook limit, UTF-8, else one PB100. */
export function readWorkspaceFile(
  fs: WorkspaceFileSystem,
  path: string,
  file: string,
  what = 'a playbook',
): ReadResult {
  const read = fs.readFile(path, FILE_LIMITS.playbook, what);
  if (read.problem !== undefined)
    return {
      refused: refusalDiagnostic(file, read),
      shownText: '',
      problem: read.problem,
      reason: read.message,
    };
  const decoded = decodeSource(file, read.bytes);
  if (decoded.text === undefined)
    return {
      refused: decoded.diagnostic,
      shownText: decoded.shownText,
      problem: 'not-utf-8',
      reason: decoded.diagnostic.message,
    };
  const b = read.bytes;
  // (decoding drops a UTF-8 byte order mark; a rewrite of the file puts it back)
  return { text: decoded.text, byteOrderMark: b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf };
}

const separatorOf = (path: string) => (path.includes('\\') && !path.includes('/') ? '\\' : '/');

/** `folder` joined with a relative path written with `/`. */
export function joinPath(folder: string, relative: string): string {
  const separator = separatorOf(folder);
  const rest = relative.split('/').join(separator);
  return folder.endsWith(separator) ? `${folder}${rest}` : `${folder}${separator}${rest}`;
}

/** The folder holding a path (the path itself at the top: `/`, `C:\`). */
export function parentOf(path: string): string {
  const separator = separatorOf(path);
  const trimmed = path.length > 1 && path.endsWith(separator) ? path.slice(0, -1) : path;
  const at = trimmed.lastIndexOf(separator);
  if (at < 0) return path;
  if (at === 0) return separator;
  const parent = trimmed.slice(0, at);
  return /^[A-Za-z]:$/.test(parent) ? `${parent}${separator}` : parent;
}

/** Whether there is something at `path` (a file refused unread is there). */
function exists(fs: WorkspaceFileSystem, path: string): boolean {
  if (fs.version) return fs.version(path) !== undefined;
  return fs.readFile(path, FILE_LIMITS.playbook, 'a policy file').problem !== 'missing';
}

/**
 * The approval policy that judges the playbooks of a folder (SPEC §4 PB700): `.kairoku/policy.yml` in
 * it, else in the nearest folder above it that has one; undefined when none has.
 */
export function findPolicyFile(fs: WorkspaceFileSystem, folder: string): string | undefined {
  for (let dir = folder; ;) {
    const path = joinPath(dir, POLICY_FILE);
    if (exists(fs, path)) return path;
    const up = parentOf(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** A folder's own `.kairoku/exclude` (issue 23): what discovery leaves out there; undefined without one. */
export function excludesOf(fs: WorkspaceFileSystem, folder: string): ExcludeTest | undefined {
  const path = joinPath(folder, EXCLUDE_FILE);
  if (fs.version && fs.version(path) === undefined) return undefined;
  const read = fs.readFile(path, FILE_LIMITS.small, 'an exclude file');
  if (read.problem !== undefined) return undefined;
  return excludeTest(folder, new TextDecoder().decode(read.bytes));
}

export interface LoadRequest {
  /**
   * What to load, in order: a folder is walked for playbooks and playbook tests (SPEC §2), leaving out
   * what its own `.kairoku/exclude` names; a file named is checked wherever it is and whatever it holds.
   */
  paths: readonly { path: string; folder: boolean }[];
  /** the name a path has in diagnostics (relative to the workspace, with forward slashes) */
  show: (path: string) => string;
  /** a walked folder as a limit's sentence names it (default: its path) */
  shownRoot?: (folder: string) => string;
  /** how a person runs the CLI where the diagnostics are shown, for hints (PB802; default `kairoku-playbook`) */
  command?: string;
}

/** A file of the workspace that is not read, with its PB100. */
export interface Refusal {
  file: string;
  path: string;
  problem: Exclude<ReadResult, { text: string }>['problem'];
  /** why, in words, without the path */
  reason: string;
  diagnostic: Diagnostic;
}

/** A playbook of the workspace (not a test, not the policy), as the manager protocol and serve list it. */
export interface LoadedPlaybook {
  file: string;
  /** the playbook id (present once the file reads as a playbook) */
  id: string | undefined;
  title: string | undefined;
  /** present when the playbook has no errors: it can be started */
  ir: Ir | undefined;
  /** its errors, sorted */
  errors: Diagnostic[];
}

export interface LoadedWorkspace {
  /** the files read and validated (playbooks, tests, the policy), in discovery order */
  files: WorkspaceFile[];
  /** the files found or named and checked, refused ones included (not the policy found for them, not an Ansible playbook) */
  checked: string[];
  /** where each file read is, and whether it began with a byte order mark (for a rewrite) */
  onDisk: Map<string, { path: string; byteOrderMark: boolean }>;
  refusals: Refusal[];
  /** files found only by the bare `playbooks/` rule whose top level is not a mapping (SPEC §2) */
  notOurs: string[];
  /** the walk limits reached, each a sentence: the walk of that folder is not complete */
  limits: string[];
  /** the policy file read (its path), if any */
  policy: string | undefined;
  validation: Validation;
  /** the refusals' and the validation's diagnostics, sorted */
  diagnostics: Diagnostic[];
  sourceOf(file: string): SourceText | undefined;
  /** the playbooks, sorted by file, with their IR when they have no errors (each compiled once) */
  playbooks(): LoadedPlaybook[];
  /** files read from the file system by this load (a file whose version did not change is not) */
  reads: number;
  /** whether anything differs from the previous load (always true for the first) */
  changed: boolean;
}

interface Cached {
  version: string | undefined;
  result: ReadResult;
}

export interface LoadOptions {
  /** the files as read, changed before they are validated (`check --fix`) */
  beforeValidation?: (files: WorkspaceFile[]) => WorkspaceFile[];
}

/** What a load read: each file once, from the cache when its version did not change. */
class Reader {
  readonly seen = new Map<string, Cached>();
  reads = 0;

  constructor(
    private readonly fs: WorkspaceFileSystem,
    private readonly cache: ReadonlyMap<string, Cached>,
    private readonly show: (path: string) => string,
  ) {}

  read(path: string): ReadResult {
    const known = this.seen.get(path);
    if (known) return known.result;
    const version = this.fs.version?.(path);
    const cached = this.cache.get(path);
    let entry: Cached;
    if (version !== undefined && cached?.version === version) entry = cached;
    else if (this.fs.version && version === undefined)
      // (not there: nothing to read)
      entry = { version, result: readWorkspaceFile(missingFs, path, this.show(path)) };
    else {
      this.reads++;
      entry = { version, result: readWorkspaceFile(this.fs, path, this.show(path)) };
    }
    this.seen.set(path, entry);
    return entry.result;
  }

  /** What was read, to tell whether anything changed since the last load. */
  signature(): string[] {
    return [...this.seen].map(
      ([path, { result }]) => `${path}\u0000${result.text ?? result.refused.message}`,
    );
  }
}

const missingFs: WorkspaceFileSystem = {
  readFile: () => ({ problem: 'missing', message: 'no such file' }),
  readDirectory: () => [],
};

/**
 * The loader of one workspace request: `load()` gives the workspace as it is now; a later `load()`
 * reads only the files whose version changed, and gives the previous result again when nothing did.
 */
export class WorkspaceLoader {
  private cache = new Map<string, Cached>();
  private last: { signature: string[]; loaded: LoadedWorkspace } | undefined;
  private readonly irs = new Map<string, { text: string; ir: Ir | undefined }>();

  constructor(
    private readonly fs: WorkspaceFileSystem,
    private readonly request: LoadRequest,
  ) {}

  load(options: LoadOptions = {}): LoadedWorkspace {
    const reader = new Reader(this.fs, this.cache, this.request.show);
    const found = this.discover();
    const read = this.readFound(found.paths, reader);
    const policy = read.files.some((f) => isPolicyFile(f.file)) ? undefined : this.policy();
    if (policy) this.readOne(policy, reader, read, { ansibleRule: false, found: false });
    const tests = this.testPaths(read.files, read.onDisk);
    const forTests = playbooksOfTests(read.files, (candidate) => {
      const path = tests(candidate);
      const result = path === undefined ? undefined : reader.read(path);
      return result?.text;
    });
    this.cache = reader.seen;
    const signature = [...reader.signature(), ...found.limits];
    const last = this.last;
    if (!options.beforeValidation && last && sameList(last.signature, signature))
      return { ...last.loaded, reads: reader.reads, changed: false };
    const files = options.beforeValidation ? options.beforeValidation(read.files) : read.files;
    const validation = validateWorkspace([...files, ...forTests], last?.loaded.validation.analyses, {
      command: this.request.command,
    });
    const loaded = this.result(files, read, validation, {
      limits: found.limits,
      policy,
      reads: reader.reads,
    });
    if (!options.beforeValidation) this.last = { signature, loaded };
    return loaded;
  }

  /** The files the request names and its folders' walks find, each once, in order; the limits reached. */
  private discover(): { paths: Map<string, boolean>; limits: string[] } {
    const paths = new Map<string, boolean>();
    const limits: string[] = [];
    for (const { path, folder } of this.request.paths) {
      if (!folder) {
        paths.set(path, true);
        continue;
      }
      const exclude = excludesOf(this.fs, path);
      const walk = new FileWalk(path, this.fs, {
        accept: isDiscoveredPath,
        shownRoot: this.request.shownRoot?.(path) ?? path,
        ...(exclude ? { exclude } : {}),
      });
      walk.advance();
      const result = walk.result();
      for (const file of result.files) if (!paths.has(file)) paths.set(file, false);
      if (result.limit) limits.push(result.limit);
    }
    return { paths, limits };
  }

  private readFound(paths: ReadonlyMap<string, boolean>, reader: Reader): Read {
    const read: Read = {
      files: [],
      checked: [],
      onDisk: new Map(),
      refusals: [],
      notOurs: [],
      sources: new Map(),
    };
    for (const [path, named] of paths) this.readOne(path, reader, read, { ansibleRule: !named, found: true });
    return read;
  }

  /** Reads a file found (or named), or the policy found for them (`found` false: not counted as checked). */
  private readOne(
    path: string,
    reader: Reader,
    read: Read,
    { ansibleRule, found }: { ansibleRule: boolean; found: boolean },
  ): void {
    const file = this.request.show(path);
    const result = reader.read(path);
    if (result.text === undefined) {
      if (found) read.checked.push(file);
      read.refusals.push({
        file,
        path,
        problem: result.problem,
        reason: result.reason,
        diagnostic: result.refused,
      });
      read.sources.set(file, new SourceText(result.shownText));
      return;
    }
    // SPEC §2: a file found only by the bare playbooks/ folder rule whose top level is not a mapping
    // (an Ansible playbook) is not ours; a file named is always checked.
    if (ansibleRule && !isPlaybookTest(path) && !isPlaybookFile(path, result.text)) {
      read.notOurs.push(file);
      return;
    }
    if (found) read.checked.push(file);
    read.files.push({ file, text: result.text });
    read.onDisk.set(file, { path, byteOrderMark: result.byteOrderMark });
  }

  /** The policy found from the location of what is loaded: the first of the paths' that has one. */
  private policy(): string | undefined {
    for (const { path, folder } of this.request.paths) {
      const found = findPolicyFile(this.fs, folder ? path : parentOf(path));
      if (found) return found;
    }
    return undefined;
  }

  /** Where the playbook a test names (`pr.yml` of `pr.test.yml`) is, by the tests read. */
  private testPaths(
    files: readonly WorkspaceFile[],
    onDisk: ReadonlyMap<string, { path: string }>,
  ): (candidate: string) => string | undefined {
    const byCandidate = new Map<string, string>();
    for (const { file } of files) {
      const path = onDisk.get(file)?.path;
      if (path === undefined || !isPlaybookTest(file)) continue;
      // (the same names in the file's folder on disk: `path` ends with the file's own name)
      const folder = path.slice(0, path.length - (file.length - file.lastIndexOf('/') - 1));
      for (const name of playbookFilesOf(file))
        byCandidate.set(name, folder + name.slice(name.lastIndexOf('/') + 1));
    }
    return (candidate) => byCandidate.get(candidate);
  }

  private result(
    files: WorkspaceFile[],
    read: Read,
    validation: Validation,
    more: { limits: string[]; policy: string | undefined; reads: number },
  ): LoadedWorkspace {
    const sources = new Map(read.sources);
    for (const [file, analysis] of validation.analyses) sources.set(file, analysis.source);
    for (const [file, analysis] of validation.tests) sources.set(file, analysis.source);
    const diagnostics = sortDiagnostics([
      ...read.refusals.map((r) => r.diagnostic),
      ...validation.diagnostics,
    ]);
    let playbooks: LoadedPlaybook[] | undefined;
    return {
      files,
      checked: read.checked,
      onDisk: read.onDisk,
      refusals: read.refusals,
      notOurs: read.notOurs,
      limits: more.limits,
      policy: more.policy,
      validation,
      diagnostics,
      sourceOf: (file) => sources.get(file),
      playbooks: () => (playbooks ??= this.playbooksOf(files, read.refusals, validation, diagnostics)),
      reads: more.reads,
      changed: true,
    };
  }

  private playbooksOf(
    files: readonly WorkspaceFile[],
    refusals: readonly Refusal[],
    validation: Validation,
    diagnostics: readonly Diagnostic[],
  ): LoadedPlaybook[] {
    const errors = new Map<string, Diagnostic[]>();
    for (const d of diagnostics)
      if (d.severity === 'error') errors.set(d.file, [...(errors.get(d.file) ?? []), d]);
    const playbooks: LoadedPlaybook[] = [];
    const ours = (file: string) => !isPlaybookTest(file) && !isPolicyFile(file);
    for (const { file } of refusals)
      if (ours(file))
        playbooks.push({
          file,
          id: undefined,
          title: undefined,
          ir: undefined,
          errors: errors.get(file) ?? [],
        });
    for (const { file, text } of files) {
      if (!ours(file)) continue;
      const own = errors.get(file) ?? [];
      const model = validation.analyses.get(file)?.model;
      const ir = own.length ? undefined : this.irOf(file, text);
      playbooks.push({
        file,
        id: model?.id ?? ir?.id,
        title: model?.title?.value ?? ir?.title,
        ir,
        errors: own,
      });
    }
    const kept = new Set(playbooks.map((p) => p.file));
    for (const file of this.irs.keys()) if (!kept.has(file)) this.irs.delete(file);
    return playbooks.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  }

  /** A playbook's IR, compiled once per text. */
  private irOf(file: string, text: string): Ir | undefined {
    const known = this.irs.get(file);
    if (known?.text === text) return known.ir;
    const ir = compilePlaybook(file, text).ir;
    this.irs.set(file, { text, ir });
    return ir;
  }
}

interface Read {
  files: WorkspaceFile[];
  checked: string[];
  onDisk: Map<string, { path: string; byteOrderMark: boolean }>;
  refusals: Refusal[];
  notOurs: string[];
  sources: Map<string, SourceText>;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
