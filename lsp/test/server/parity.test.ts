/**
 * PARITY: the server's diagnostics, converted back to the JSON shape of SPEC §7, equal what
 * `kairoku-playbook check --explore --format json` prints, for every fixture and sample playbook, and for
 * the repository as a workspace (check with no path, from its root), with the playbooks opened one by one
 * and through a workspace pull with none of them open. The server explores (its `explore` setting, on by
 * default), so PB310 and PB311 are compared too: the workspace tests run the built CLI itself; the
 * file-by-file one computes check's diagnostics in process (validateWorkspace + toJsonDiagnostic, and the
 * machine's `explorePlaybook` with check's budget, as `check --explore` adds its findings).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Diagnostic as LspDiagnostic,
  WorkspaceDiagnosticReport,
  WorkspaceFullDocumentDiagnosticReport,
} from 'vscode-languageserver-protocol';
import {
  decodeSource,
  isPlaybookFile,
  displayPath,
  isDiscoveredPath,
  isPlaybookTest,
  sortDiagnostics,
  toJsonDiagnostic,
  validateWorkspace,
  walkFiles,
  codeLink,
  CODES,
} from '@kairoku-playbook/compiler';
import type { Code, Diagnostic, JsonDiagnostic } from '@kairoku-playbook/compiler';
import { explorePlaybook, isExplored } from '@kairoku-playbook/machine';
import { diskExcludes, diskLister } from '@kairoku-playbook/compiler/disk';
import { COVERAGE_SOURCE } from '../../src/service/coverage.js';
import { REPO, buildServer, fileUri, startClient } from '../support/client.js';
import type { TestClient } from '../support/client.js';
import { CLI } from '../../../test/kit/cli.js';
import { tempDir } from '../../../test/kit/temp.js';

const SEVERITY: Record<number, JsonDiagnostic['severity']> = { 1: 'error', 2: 'warning', 3: 'info' };

/**
 * The server's diagnostics that are `check`'s: all but the coverage hints, an editor-only layer drawn
 * from `NAME.coverage.json` beside a playbook (lsp/README.md, "Coverage hints"), which check never reads.
 */
function checks(diagnostics: readonly LspDiagnostic[]): LspDiagnostic[] {
  return diagnostics.filter((d) => d.source !== COVERAGE_SOURCE);
}

const isCode = (code: string): code is Code => Object.hasOwn(CODES, code);

function toJson(file: string, d: LspDiagnostic, fileOf: (uri: string) => string): JsonDiagnostic {
  expect(d.source).toBe('kairoku-playbook');
  // The link `explain` prints and SARIF's helpUri: the compiler's code-links (test/code-links.test.ts).
  expect(d.codeDescription?.href).toBe(codeLink(String(d.code)));
  // The server sends the compiler's codes and plain-text messages (LSP allows numbers and markup too).
  const code = String(d.code);
  if (!isCode(code)) throw new Error(`not a diagnostic code: ${code}`);
  if (typeof d.message !== 'string')
    throw new Error(`a message that is not plain text: ${JSON.stringify(d.message)}`);
  const json: JsonDiagnostic = {
    file,
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    endLine: d.range.end.line + 1,
    endColumn: d.range.end.character + 1,
    severity: SEVERITY[d.severity!]!,
    code,
    message: d.message,
  };
  if (d.relatedInformation?.length) {
    json.related = d.relatedInformation.map((r) => ({
      file: fileOf(r.location.uri),
      line: r.location.range.start.line + 1,
      column: r.location.range.start.character + 1,
      endLine: r.location.range.end.line + 1,
      endColumn: r.location.range.end.character + 1,
      message: r.message,
    }));
  }
  return json;
}

/** `check --explore`'s wall clock per playbook (cli/src/commands/explore.ts, CHECK_EXPLORE_SECONDS) */
const CHECK_EXPLORE_MS = 30_000;

/** What `kairoku-playbook check --explore --format json` prints from `root`, checking what it discovers there. */
function checkExplore(root: string): JsonDiagnostic[] {
  const run = spawnSync(process.execPath, [CLI, 'check', '--explore', '--format', 'json'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  expect([0, 1], run.stderr).toContain(run.status);
  return JSON.parse(run.stdout) as JsonDiagnostic[];
}

/**
 * `check --explore`'s diagnostics from check's: each playbook without an error explored (the machine's
 * `explorePlaybook`, with check's budget), its findings added and the PB903 of a suppression they use dropped.
 */
function withExplore(checked: readonly Diagnostic[], files: readonly { file: string; text: string }[]) {
  const found: Diagnostic[] = [];
  const used = new Set<string>();
  const failed = new Set(checked.filter((d) => d.severity === 'error').map((d) => d.file));
  for (const { file, text } of files) {
    if (!isExplored(file, failed.has(file))) continue;
    const explored = explorePlaybook(file, text, { maxMillis: CHECK_EXPLORE_MS });
    if (!explored) continue;
    found.push(...explored.diagnostics);
    for (const range of explored.used) used.add(`${file}\u0000${range.start}\u0000${range.end}`);
  }
  const kept = checked.filter(
    (d) => d.code !== 'PB903' || !used.has(`${d.file}\u0000${d.range.start}\u0000${d.range.end}`),
  );
  return sortDiagnostics([...kept, ...found]);
}

/** The text a client would send: decoded like `check` decodes it; undefined for files check refuses. */
function readText(path: string): string | undefined {
  return decodeSource(path, readFileSync(path)).text;
}

/** Each fixture: one file, or a folder of files checked together. */
function fixtures(): { name: string; paths: string[] }[] {
  const result: { name: string; paths: string[] }[] = [];
  for (const folder of ['test/fixtures/ok', 'test/fixtures/err']) {
    for (const name of readdirSync(join(REPO, folder)).sort()) {
      const path = join(REPO, folder, name);
      if (statSync(path).isDirectory()) {
        const paths = readdirSync(path)
          .filter((n) => /\.ya?ml$/.test(n))
          .sort()
          .map((n) => join(path, n));
        result.push({ name: `${folder}/${name}`, paths });
      } else if (/\.ya?ml$/.test(name)) result.push({ name: `${folder}/${name}`, paths: [path] });
    }
  }
  for (const name of readdirSync(join(REPO, 'playbooks')).sort()) {
    if (/\.ya?ml$/.test(name) && !/\.test\.ya?ml$/.test(name))
      result.push({ name: `playbooks/${name}`, paths: [join(REPO, 'playbooks', name)] });
  }
  return result;
}

describe('parity with check --format json, file by file', () => {
  let client: TestClient;
  beforeAll(async () => {
    buildServer();
    client = await startClient();
  }, 120_000);
  afterAll(async () => {
    await client.stop();
  });

  const all = fixtures();
  it('covers every fixture and sample playbook', () => {
    expect(all.length).toBeGreaterThan(100);
  });

  for (const fixture of all) {
    it(fixture.name, async () => {
      const files = fixture.paths
        .map((path) => ({ file: path, text: readText(path) }))
        .filter((f): f is { file: string; text: string } => f.text !== undefined);
      // Without a workspace folder, the server names a file by its path, as check does for a path outside cwd.
      const validation = validateWorkspace(files);
      const sources = new Map(
        [...validation.analyses, ...validation.tests].map(([file, a]) => [file, a.source]),
      );
      const diagnostics = withExplore(validation.diagnostics, files);
      for (const { file, text } of files) await client.open(fileUri(file), text);
      for (const { file } of files) {
        const published = await client.diagnosticsOf(fileUri(file), 1);
        const actual = checks(published).map((d) => toJson(file, d, (uri) => fileURLToPath(uri)));
        const expected = diagnostics
          .filter((d) => d.file === file)
          .map((d) => toJsonDiagnostic(d, (f) => sources.get(f)));
        expect(actual).toEqual(expected);
      }
      for (const { file } of files) await client.close(fileUri(file));
    });
  }
});

describe('parity with check --format json for the repository as a workspace', () => {
  it('gives every discovered playbook the diagnostics check gives it from the repository root', async () => {
    buildServer();
    const client = await startClient({
      workspaceFolders: [{ uri: fileUri(REPO.replace(/\/$/, '')), name: 'main' }],
    });
    // as check discovers them from the root: with the repository's `.kairoku/exclude` (its fixtures)
    const exclude = diskExcludes(REPO);
    const paths = walkFiles(REPO, diskLister, exclude ? { exclude } : {}).files;
    const files = paths
      .map((path) => ({ path, file: displayPath(path, REPO), text: readText(path) }))
      .filter((f): f is { path: string; file: string; text: string } => f.text !== undefined)
      // (as check: an Ansible playbook in a bare playbooks/ folder is not ours, SPEC §2)
      .filter((f) => isPlaybookFile(f.path, f.text));
    const checked = checkExplore(REPO);
    for (const { path, text } of files) await client.open(fileUri(path), text);
    for (const { path, file } of files) {
      const published = await client.diagnosticsOf(fileUri(path), 1);
      const actual = checks(published).map((d) =>
        toJson(file, d, (uri) => displayPath(fileURLToPath(uri), REPO)),
      );
      expect(actual, file).toEqual(checked.filter((d) => d.file === file));
    }
    expect(await client.stop()).toBe(0);
  }, 120_000);

  it('gives the same through a workspace pull, with no document open', async () => {
    await expectWorkspacePullParity(REPO.replace(/\/$/, ''));
  }, 120_000);
});

describe('parity with check --format json through a workspace pull', () => {
  it('gives every fixture, all on disk in one workspace and none open, what check gives it there', async () => {
    const root = tempDir('kp-lsp-parity-');
    mkdirSync(join(root, 'playbooks'));
    for (const fixture of fixtures()) {
      const name = fixture.name.replaceAll('/', '-').replace(/\.ya?ml$/, '');
      for (const path of fixture.paths) {
        const suffix = fixture.paths.length > 1 ? `-${basename(path)}` : extname(path);
        copyFileSync(path, join(root, 'playbooks', `${name}${suffix}`));
      }
    }
    const { files, diagnostics, explored } = await expectWorkspacePullParity(root);
    expect(files).toBeGreaterThan(100);
    expect(diagnostics).toBeGreaterThan(100);
    // the fixtures whose runs the explorer finds a step that can never run in (PB310)
    expect(explored).toBeGreaterThan(0);
    rmSync(root, { recursive: true, force: true });
  }, 240_000);
});

/**
 * Starts a server on a workspace folder, pulls the workspace's diagnostics with nothing open, and compares
 * them, file by file, with what `check` run from that folder gives its discovered playbooks. Returns how
 * many files and diagnostics were compared.
 */
async function expectWorkspacePullParity(
  root: string,
): Promise<{ files: number; diagnostics: number; explored: number }> {
  buildServer();
  const client = await startClient({
    workspaceFolders: [{ uri: fileUri(root), name: 'main' }],
    capabilities: { textDocument: { diagnostic: {} }, workspace: { diagnostics: { refreshSupport: false } } },
  });
  // the playbooks and the playbook tests, as check discovers them
  const exclude = diskExcludes(root);
  const files = walkFiles(root, diskLister, { accept: isDiscoveredPath, ...(exclude ? { exclude } : {}) })
    .files.map((path) => ({ path, file: displayPath(path, root), text: readText(path) }))
    .filter((f): f is { path: string; file: string; text: string } => f.text !== undefined)
    // (as check: an Ansible playbook in a bare playbooks/ folder is not ours, SPEC §2)
    .filter((f) => isPlaybookTest(f.path) || isPlaybookFile(f.path, f.text));
  // what check --explore prints from the root (it reads the playbook beside a test that discovery does not
  // find, for the test only, as the server does)
  const checked = checkExplore(root);
  const report = await client.request<WorkspaceDiagnosticReport>('workspace/diagnostic', {
    previousResultIds: [],
  });
  expect(report.items.map((item) => item.uri).sort()).toEqual(files.map((f) => fileUri(f.path)).sort());
  for (const { path, file } of files) {
    const item = report.items.find((i) => i.uri === fileUri(path)) as WorkspaceFullDocumentDiagnosticReport;
    expect(item.kind).toBe('full');
    const actual = checks(item.items).map((d) =>
      toJson(file, d, (uri) => displayPath(fileURLToPath(uri), root)),
    );
    expect(actual, file).toEqual(checked.filter((d) => d.file === file));
  }
  expect(await client.stop()).toBe(0);
  return {
    files: files.length,
    diagnostics: checked.length,
    explored: checked.filter((d) => d.code === 'PB310' || d.code === 'PB311').length,
  };
}
