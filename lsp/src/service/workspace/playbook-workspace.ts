/**
 * The playbooks the server knows: the open documents and the playbooks discovered on disk in the
 * workspace folders. `validate()` hands all of them to the compiler's one validation function, reusing the
 * analyses of files whose text did not change, and sorts the diagnostics back to the open documents.
 * No connection, no timers, no disk of its own: the server feeds it events, drives its discovery and
 * publishes what it returns; files are read through the PlaybookFileSystem it is given.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { relative, sep } from 'node:path';
import {
  FileWalk,
  analyzeEdited,
  checkCommandIn,
  isPlaybookFile,
  isSharedFolderPath,
  analyzeFile,
  analyzeTestFile,
  excludesOf,
  findPolicyFile,
  playbookFilesOf,
  playbooksOfTests,
  readWorkspaceFile,
  validateWorkspace,
  SourceText,
} from '@kairoku-playbook/compiler';
import type {
  Diagnostic,
  ExcludeTest,
  FileAnalysis,
  TestFileAnalysis,
  WorkspaceFile,
} from '@kairoku-playbook/compiler';
import { isDiscoveredPath, isPlaybookPath, isPlaybookTest } from './discovery.js';
import type { PlaybookFileSystem } from './file-system.js';

/** Entries walked between two questions to the driver whether to stop for now. */
const STRIDE = 256;

export interface WorkspaceFolder {
  uri: string;
  name: string;
}

interface Root {
  path: string;
  name: string;
}

interface OpenDocument {
  text: string;
  version: number;
}

export interface WorkspaceValidation {
  /** the compiler's diagnostics of each open document, unchanged */
  diagnostics: Map<string, Diagnostic[]>;
  /** the same for each playbook discovered on disk that is not open (checked as it is on disk) */
  onDisk: Map<string, Diagnostic[]>;
  /** files the checker failed on (a bug), open or on disk: the error, for one diagnostic and a log line */
  crashes: Map<string, string>;
}

/** A URI in one canonical spelling (file URIs re-encoded the way Node writes them). */
export function normalizeUri(uri: string): string {
  if (!uri.startsWith('file:')) return uri;
  try {
    return pathToFileURL(fileURLToPath(uri)).href;
  } catch {
    return uri;
  }
}

/** A discovery of the workspace folders under way. */
export interface DiscoveryWalk {
  /** Walks (and reads what it finds) until done or until `stop()`, asked every few entries, says so; whether done. */
  advance(stop: () => boolean): boolean;
  /** Whether a newer discovery has replaced this one: it is not advanced any further. */
  superseded(): boolean;
  /** Ends the discovery: the walk limits it reached (each a sentence), also kept for discoveryState. */
  finish(): string[];
}

export class PlaybookWorkspace {
  private roots: Root[] = [];
  /** the workspace folders' `.kairoku/exclude` tests, read at each discovery */
  private excludes: ExcludeTest[] = [];
  /** discovered playbooks by URI, in discovery order */
  private disk = new Map<string, string>();
  /** discovered files that are not read (a FIFO, a device, over the size limit, not UTF-8): their PB100 */
  private refused = new Map<string, Diagnostic>();
  /** the text of a refused file as far as it decodes, where its PB100 points (the bad byte's line) */
  private refusedSources = new Map<string, SourceText>();
  /** bumped by every discovery, so the slices of an older one stop */
  private discovery = 0;
  private discovering = false;
  /** why the last discovery stopped short (a walk limit), for the stats request and the log */
  private discoveryLimits: string[] = [];
  private readonly open = new Map<string, OpenDocument>();
  /** the latest analysis of every file, handed to the compiler as `previous` */
  private analyses = new Map<string, FileAnalysis>();
  /** the latest analysis of every playbook test (`*.test.yml`), by file */
  private tests = new Map<string, TestFileAnalysis>();
  private readonly fileByUri = new Map<string, string>();
  private readonly uriByFile = new Map<string, string>();
  /** SPEC §2's content rule, remembered per text (a list at the top level is not ours in a bare playbooks/) */
  private readonly claimed = new Map<string, { text: string; ours: boolean }>();

  /** how a person runs the CLI in the workspace, for hints (`checkCommandIn`) */
  private command: string | undefined;

  constructor(private readonly fs: PlaybookFileSystem) {}

  setFolders(folders: readonly WorkspaceFolder[]): void {
    this.roots = [];
    for (const folder of folders) {
      if (!folder.uri.startsWith('file:')) continue;
      try {
        this.roots.push({ path: fileURLToPath(folder.uri), name: folder.name });
      } catch {
        // not a local folder
      }
    }
    this.fileByUri.clear();
    this.uriByFile.clear();
    // (as `check` run in the first folder names itself in its hints, PB802)
    this.command = this.roots[0] ? checkCommandIn(this.fs, this.roots[0].path) : undefined;
  }

  /**
   * Starts reading the playbooks of the workspace folders from disk (again): what an earlier discovery
   * found is forgotten, and that one is superseded. The caller advances the walk (the server does it in
   * slices between requests, server/discovery.ts) and finishes it.
   */
  startDiscovery(): DiscoveryWalk {
    const generation = ++this.discovery;
    this.disk = new Map();
    this.refused = new Map();
    this.refusedSources = new Map();
    this.discoveryLimits = [];
    this.discovering = true;
    // the workspace's approval policy (SPEC §4 PB700), found from each folder upward (discovery does not walk to it)
    for (const root of this.roots) {
      const policy = findPolicyFile(this.fs, root.path);
      if (policy) this.readFromDisk(pathToFileURL(policy).href);
    }
    // and what each folder says is not a playbook (`.kairoku/exclude`); then the playbooks and their tests
    this.excludes = this.roots.flatMap((root) => excludesOf(this.fs, root.path) ?? []);
    const walks = this.roots.map((root) => ({
      walk: new FileWalk(root.path, this.fs, {
        accept: isDiscoveredPath,
        exclude: (path, isDirectory) => this.isExcluded(path, isDirectory),
      }),
      read: 0,
    }));
    return {
      advance: (stop) => {
        for (const entry of walks) {
          while (!entry.walk.done) {
            entry.walk.advance(STRIDE);
            const { files } = entry.walk.result();
            for (; entry.read < files.length; entry.read++)
              this.readFromDisk(pathToFileURL(files[entry.read]!).href);
            if (stop()) return walks.every((w) => w.walk.done);
          }
        }
        return true;
      },
      superseded: () => generation !== this.discovery,
      finish: () => {
        if (generation !== this.discovery) return [];
        this.discovering = false;
        for (const { walk } of walks) {
          const limit = walk.result().limit;
          if (limit) this.discoveryLimits.push(limit);
        }
        return [...this.discoveryLimits];
      },
    };
  }

  /** A playbook created or changed on disk. */
  readFromDisk(uri: string): void {
    const key = normalizeUri(uri);
    let path: string;
    try {
      path = fileURLToPath(key);
    } catch {
      return;
    }
    this.disk.delete(key);
    this.refused.delete(key);
    this.refusedSources.delete(this.fileOf(key));
    if (this.isExcluded(path)) return; // not a playbook (`.kairoku/exclude`), whatever it holds
    // The compiler's read of a workspace file: a refused one is one PB100, never its content.
    const read = readWorkspaceFile(this.fs, path, this.fileOf(key));
    if (read.text !== undefined) this.disk.set(key, read.text);
    else if (read.problem !== 'missing' && read.problem !== 'unreadable') {
      this.refused.set(key, read.refused);
      if (read.problem === 'not-utf-8')
        this.refusedSources.set(this.fileOf(key), new SourceText(read.shownText));
    }
  }

  removeFromDisk(uri: string): void {
    const key = normalizeUri(uri);
    this.claimed.delete(key);
    this.disk.delete(key);
    this.refused.delete(key);
    this.refusedSources.delete(this.fileOf(key));
  }

  /**
   * Whether a document is checked as a playbook: anything the client opens but playbook tests, and but a
   * file in a bare playbooks/ folder whose top level is not a mapping (an Ansible playbook: SPEC §2).
   */
  isPlaybook(uri: string): boolean {
    if (isPlaybookTest(uri.split('?')[0]!)) return false;
    if (this.excludedUri(uri)) return false;
    return this.claims(normalizeUri(uri));
  }

  /** Whether a path is one a workspace folder's `.kairoku/exclude` leaves out (not a playbook, not checked). */
  isExcluded(path: string, isDirectory = false): boolean {
    return this.excludes.some((test) => test(path, isDirectory));
  }

  private excludedUri(uri: string): boolean {
    if (!this.excludes.length || !uri.startsWith('file:')) return false;
    try {
      return this.isExcluded(fileURLToPath(uri.split('?')[0]!));
    } catch {
      return false;
    }
  }

  /** SPEC §2's content rule for a file in a bare playbooks/ folder, on its current text (open, else on disk). */
  private claims(key: string): boolean {
    if (!key.startsWith('file:')) return true;
    const text = this.open.get(key)?.text ?? this.disk.get(key);
    if (text === undefined) return true;
    const known = this.claimed.get(key);
    if (known?.text === text) return known.ours;
    let path: string;
    try {
      path = fileURLToPath(key);
    } catch {
      return true;
    }
    const ours = !isSharedFolderPath(path) || isPlaybookFile(path, text);
    this.claimed.set(key, { text, ours });
    return ours;
  }

  /**
   * Whether a file is a playbook as discovery tells it (SPEC §2: its path, and in a bare playbooks/ folder
   * its top level), on the text the workspace has (open, else on disk), else read now.
   */
  isPlaybookFile(uri: string, path: string): boolean {
    if (this.isExcluded(path)) return false;
    if (!isSharedFolderPath(path)) return isPlaybookPath(path);
    const key = normalizeUri(uri);
    if (this.open.has(key) || this.disk.has(key)) return this.claims(key);
    const text = this.textOf(key);
    return text === undefined || isPlaybookFile(path, text); // unreadable: its PB100 says why
  }

  /** Whether a document is checked at all: a playbook, or a playbook test (against its playbook). */
  isChecked(uri: string): boolean {
    // a test needs the playbook beside it on disk; an Ansible playbook is neither (SPEC §2)
    if (isPlaybookTest(uri.split('?')[0]!)) return uri.startsWith('file:') && !this.excludedUri(uri);
    return this.isPlaybook(uri);
  }

  /** The text of a file the workspace has: open, else as discovered on disk, else read now (for tests). */
  private textOf(uri: string): string | undefined {
    const open = this.open.get(uri)?.text ?? this.disk.get(uri);
    if (open !== undefined) return open;
    let path: string;
    try {
      path = fileURLToPath(uri);
    } catch {
      return undefined;
    }
    return readWorkspaceFile(this.fs, path, path).text;
  }

  /** The playbook tests of a playbook (open or on disk), each with its current text. */
  testsOf(playbookFile: string): { uri: string; file: string; text: string }[] {
    const found: { uri: string; file: string; text: string }[] = [];
    for (const uri of new Set([...this.open.keys(), ...this.disk.keys()])) {
      if (this.isPlaybook(uri) || !this.isChecked(uri)) continue;
      const file = this.fileOf(uri);
      if (!playbookFilesOf(file).includes(playbookFile)) continue;
      const text = this.textOf(uri);
      if (text !== undefined) found.push({ uri, file, text });
    }
    return found;
  }

  /** A playbook test's analysis against its playbook's current one, for an open test document. */
  testAnalysisFor(uri: string): { test: TestFileAnalysis; playbook: FileAnalysis | undefined } | undefined {
    const key = normalizeUri(uri);
    const document = this.open.get(key);
    if (!document || this.isPlaybook(key)) return undefined;
    const file = this.fileOf(key);
    const playbook = playbookFilesOf(file)
      .map((name) => this.analyses.get(name))
      .find((a) => a !== undefined);
    const cached = this.tests.get(file);
    const test =
      cached && cached.text === document.text && cached.playbook === playbook?.file
        ? cached
        : analyzeTestFile(file, document.text, playbook, this.command);
    return { test, playbook };
  }

  openDocument(uri: string, text: string, version: number): void {
    this.open.set(normalizeUri(uri), { text, version });
  }

  changeDocument(uri: string, text: string, version: number): void {
    this.open.set(normalizeUri(uri), { text, version });
  }

  closeDocument(uri: string): void {
    this.open.delete(normalizeUri(uri));
    this.claimed.delete(normalizeUri(uri));
  }

  versionOf(uri: string): number | undefined {
    return this.open.get(normalizeUri(uri))?.version;
  }

  /** The path shown in diagnostics: relative to its workspace folder, with forward slashes, like `check`. */
  fileOf(uri: string): string {
    const key = normalizeUri(uri);
    const known = this.fileByUri.get(key);
    if (known !== undefined) return known;
    let file = key;
    if (key.startsWith('file:')) {
      try {
        const path = fileURLToPath(key);
        const root = this.roots
          .filter((r) => path === r.path || path.startsWith(r.path.endsWith(sep) ? r.path : r.path + sep))
          .sort((a, b) => b.path.length - a.path.length)[0];
        const shown = root ? relative(root.path, path) : path;
        file = (root && this.roots.length > 1 ? `${root.name}/${shown}` : shown).split(sep).join('/');
      } catch {
        file = key;
      }
    }
    // Two URIs never share a file name (a name clash falls back to the URI itself).
    const owner = this.uriByFile.get(file);
    if (owner !== undefined && owner !== key) file = key;
    this.fileByUri.set(key, file);
    this.uriByFile.set(file, key);
    return file;
  }

  uriOf(file: string): string | undefined {
    return this.uriByFile.get(file);
  }

  /** The last validation's analysis of a playbook (its current text's, after `validate`). */
  analysisOf(file: string): FileAnalysis | undefined {
    return this.analyses.get(file);
  }

  sourceOf(file: string): SourceText | undefined {
    return this.analyses.get(file)?.source ?? this.tests.get(file)?.source ?? this.refusedSources.get(file);
  }

  /** The analysis of an open document's current text (made now when the text changed since the last one). */
  analysisFor(uri: string): FileAnalysis | undefined {
    const key = normalizeUri(uri);
    const document = this.open.get(key);
    if (!document || !this.isPlaybook(key)) return undefined;
    const file = this.fileOf(key);
    const cached = this.analyses.get(file);
    if (cached && cached.text === document.text) return cached;
    // (an edit inside one template is analysed incrementally; the previous analysis is taken over)
    const analysis = cached ? analyzeEdited(cached, document.text) : analyzeFile(file, document.text);
    this.analyses.set(file, analysis);
    return analysis;
  }

  /**
   * Where a file on disk comes in `check`'s order: by workspace folder, then by path segments compared one
   * by one, which is the order of a depth-first walk over sorted folder entries.
   */
  private diskOrder(): string[] {
    const keyOf = (uri: string): [number, string[]] => {
      let path: string;
      try {
        path = fileURLToPath(uri);
      } catch {
        return [this.roots.length, [uri]];
      }
      const root = this.roots.findIndex((r) => path.startsWith(r.path.endsWith(sep) ? r.path : r.path + sep));
      return [root < 0 ? this.roots.length : root, path.split(sep)];
    };
    const keys = new Map([...this.disk.keys()].map((uri) => [uri, keyOf(uri)]));
    return [...this.disk.keys()].sort((a, b) => {
      const [ra, pa] = keys.get(a)!;
      const [rb, pb] = keys.get(b)!;
      if (ra !== rb) return ra - rb;
      for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
        if (pa[i] !== pb[i]) return pa[i]! < pb[i]! ? -1 : 1;
      }
      return pa.length - pb.length;
    });
  }

  /** The files of the workspace: discovered ones in discovery order, then other open documents by name. */
  private files(diskOrder: readonly string[]): WorkspaceFile[] {
    const files: WorkspaceFile[] = [];
    for (const uri of diskOrder) {
      const text = this.disk.get(uri)!;
      if (!this.isChecked(uri)) continue;
      files.push({ file: this.fileOf(uri), text: this.open.get(uri)?.text ?? text });
    }
    const others = [...this.open]
      .filter(([uri]) => !this.disk.has(uri) && this.isChecked(uri))
      .map(([uri, document]) => ({ file: this.fileOf(uri), text: document.text }))
      .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    return [...files, ...others, ...this.playbooksOfTests([...files, ...others])];
  }

  /**
   * The playbooks of the playbook tests among `files` that are not among them (a test beside a playbook
   * discovery does not find, `x.test.yml` beside `x.yml`), read for the tests only (`forTests`).
   */
  private playbooksOfTests(files: readonly WorkspaceFile[]): WorkspaceFile[] {
    // (the compiler's rule, over the files' URIs: `x.test.yml` → `x.yml`, then `x.yaml`, beside it)
    const uris = new Map<string, string>();
    for (const { file } of files) {
      const testUri = this.uriOf(file);
      if (!isPlaybookTest(file) || testUri === undefined || !testUri.startsWith('file:')) continue;
      const beside = playbookFilesOf(testUri);
      playbookFilesOf(file).forEach((name, i) => uris.set(name, beside[i]!));
    }
    return playbooksOfTests(files, (name) => {
      const uri = uris.get(name);
      const text = uri === undefined ? undefined : this.textOf(uri);
      if (uri !== undefined && text !== undefined) this.fileOf(uri); // (known by its name from now on)
      return text;
    });
  }

  validate(): WorkspaceValidation {
    const diskOrder = this.diskOrder();
    let files = this.files(diskOrder);
    const crashes = new Map<string, string>();
    let validation: ReturnType<typeof validateWorkspace>;
    try {
      validation = validateWorkspace(files, this.analyses, { command: this.command });
    } catch {
      // A checker bug: find the files it fails on, report those, check the rest.
      const healthy: WorkspaceFile[] = [];
      for (const file of files) {
        if (isPlaybookTest(file.file)) {
          healthy.push(file);
          continue;
        }
        try {
          const analysis = this.analyses.get(file.file);
          if (!analysis || analysis.text !== file.text)
            this.analyses.set(file.file, analyzeFile(file.file, file.text));
          healthy.push(file);
        } catch (error) {
          const uri = this.uriOf(file.file);
          if (uri) crashes.set(uri, error instanceof Error ? error.message : String(error));
        }
      }
      files = healthy;
      validation = validateWorkspace(files, this.analyses, { command: this.command });
    }
    this.analyses = validation.analyses;
    this.tests = validation.tests;
    const diagnostics = new Map<string, Diagnostic[]>();
    const onDisk = new Map<string, Diagnostic[]>();
    for (const uri of this.open.keys()) if (this.isChecked(uri)) diagnostics.set(uri, []);
    for (const uri of diskOrder) if (!this.open.has(uri) && this.isChecked(uri)) onDisk.set(uri, []);
    for (const diagnostic of validation.diagnostics) {
      const uri = this.uriOf(diagnostic.file);
      if (uri !== undefined) (diagnostics.get(uri) ?? onDisk.get(uri))?.push(diagnostic);
    }
    for (const [uri, diagnostic] of this.refused)
      if (!this.open.has(uri) && this.isChecked(uri)) onDisk.set(uri, [diagnostic]);
    return { diagnostics, onDisk, crashes };
  }

  /** For tests and the stats request (`discovering`: a walk of the workspace folders is still going on). */
  stats(): { open: number; disk: number; analyses: number; discovering: boolean } {
    return {
      open: this.open.size,
      disk: this.disk.size,
      analyses: this.analyses.size,
      discovering: this.discovering,
    };
  }

  /** Whether discovery is still walking, and the limits the last one reached. */
  discoveryState(): { discovering: boolean; refused: number; limits: string[] } {
    return { discovering: this.discovering, refused: this.refused.size, limits: [...this.discoveryLimits] };
  }
}
