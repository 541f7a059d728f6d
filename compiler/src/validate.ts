import { checkDuplicateIds } from './checks/duplicate-ids.js';
import { analyzeFile, policyOf } from './compile.js';
import { analyzeEdited } from './incremental.js';
import type { FileAnalysis } from './compile.js';
import { sortDiagnostics } from './diagnostic.js';
import type { Diagnostic } from './diagnostic.js';
import type { PlaybookModel } from './model/model.js';
import { SourceText } from './source-text.js';
import { unreadable } from './yaml/read-yaml.js';
import { analyzeTestFile } from './playbook-tests/test-file.js';
import type { TestFileAnalysis } from './playbook-tests/test-file.js';
import { isPlaybookTest, playbookFilesOf } from './workspace/discovery.js';
import { DEFAULT_POLICY, analyzePolicyFile, isPolicyFile, samePolicy } from './policy-file/policy-file.js';
import type { ApprovalPolicy } from './policy-file/policy-file.js';

export interface WorkspaceFile {
  /** the path as it should appear in diagnostics (relative to the workspace) */
  file: string;
  text: string;
  /**
   * A playbook read only for the playbook tests beside it (`check pr.test.yml` reads `pr.yml`): analysed,
   * but its own diagnostics are not reported and it takes no part in the workspace's checks (PB110).
   */
  forTests?: boolean;
}

export interface Validation {
  diagnostics: Diagnostic[];
  /** the playbooks' analyses, by file */
  analyses: Map<string, FileAnalysis>;
  /** the playbook tests' analyses (`*.test.yml|yaml` among the files), by file */
  tests: Map<string, TestFileAnalysis>;
}

export interface ValidationOptions {
  /** how a person runs the CLI where the diagnostics are shown, for hints (PB802; default `kairoku-playbook`) */
  command?: string;
}

/**
 * THE validation function. The CLI's `check`, the language server, the runtime's
 * `validate_playbooks` and the panel all print what this returns, unchanged.
 * `previous` lets an editor reuse the analyses of files whose text did not change, and analyse an edited
 * one from its previous analysis (incremental.ts; that analysis is taken over: read the returned ones).
 */
export function validateWorkspace(
  files: readonly WorkspaceFile[],
  previous?: ReadonlyMap<string, FileAnalysis>,
  options: ValidationOptions = {},
): Validation {
  const analyses = new Map<string, FileAnalysis>();
  const tests = new Map<string, TestFileAnalysis>();
  const diagnostics: Diagnostic[] = [];
  const testFiles: WorkspaceFile[] = [];
  const models: PlaybookModel[] = [];
  // The workspace's approval policy (SPEC §4 PB700): the first `.kairoku/policy.yml` among the files
  // applies (each is checked). Each is listed among the analyses (no model) so the edges find its text.
  let policy: ApprovalPolicy | undefined;
  for (const entry of files) {
    if (!isPolicyFile(entry.file)) continue;
    const read = analyzePolicyFile(entry.file, entry.text);
    policy ??= read.policy;
    analyses.set(read.file, {
      file: read.file,
      text: read.text,
      source: read.source,
      diagnostics: read.diagnostics,
      model: undefined,
      semantic: undefined,
    });
    for (const diagnostic of read.diagnostics) diagnostics.push(diagnostic);
  }
  policy ??= DEFAULT_POLICY;
  for (const entry of files) {
    if (isPolicyFile(entry.file)) continue;
    const { file, text } = entry;
    // A playbook test is checked against its playbook, once every playbook is analysed.
    if (isPlaybookTest(file)) {
      testFiles.push(entry);
      continue;
    }
    const cached = previous?.get(file);
    // (a cached analysis checked under another policy is analysed again: its PB700s may differ)
    const analysis =
      cached?.file === file && samePolicy(policyOf(cached), policy)
        ? analyzeEdited(cached, text)
        : analyzeFile(file, text, { policy });
    analyses.set(file, analysis);
    if (entry.forTests) continue;
    for (const diagnostic of analysis.diagnostics) diagnostics.push(diagnostic);
    if (analysis.model) models.push(analysis.model);
  }
  for (const diagnostic of checkDuplicateIds(models)) diagnostics.push(diagnostic);
  for (const { file, text } of testFiles) {
    const playbook = playbookFilesOf(file)
      .map((name) => analyses.get(name))
      .find((a) => a !== undefined);
    const analysis = analyzeTestFile(file, text, playbook, options.command);
    tests.set(file, analysis);
    for (const diagnostic of analysis.diagnostics) diagnostics.push(diagnostic);
  }
  return { diagnostics: sortDiagnostics(diagnostics), analyses, tests };
}

/** Validates files and returns only the diagnostics. */
export function validate(files: readonly WorkspaceFile[]): Diagnostic[] {
  return validateWorkspace(files).diagnostics;
}

/** A file `decodeSource` refused: one PB100, and the text as far as it could be read. */
export interface RefusedSource {
  text: undefined;
  diagnostic: Diagnostic;
  /**
   * The bytes decoded with U+FFFD for each bad sequence: the diagnostic's range is an offset into it, so
   * an edge that turns ranges into lines and columns can place it (with `new SourceText(shownText)`).
   */
  shownText: string;
}

/**
 * Decodes a file's bytes as UTF-8 (without a BOM). Binary and non-UTF-8 files are refused with one
 * PB100 diagnostic pointing at the first bad byte, instead of being checked as garbage.
 */
export function decodeSource(
  file: string,
  bytes: Uint8Array,
): { text: string; diagnostic?: undefined } | RefusedSource {
  const refuse = (at: number, message: (where: string) => string): RefusedSource => {
    // (the prefix before `at` is valid UTF-8: its UTF-16 length is where the bad byte shows)
    const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
    const prefix = decoder.decode(bytes.subarray(bom, Math.max(bom, at)));
    const shownText = prefix + decoder.decode(bytes.subarray(Math.max(bom, at)));
    const start = prefix.length;
    const { line, character } = new SourceText(prefix).positionAt(start);
    return {
      text: undefined,
      shownText,
      diagnostic: unreadable(
        file,
        { start, end: Math.min(start + 1, shownText.length) },
        message(`at byte ${at}, line ${line + 1}, column ${character + 1}`),
      ),
    };
  };
  const nul = bytes.indexOf(0);
  if (nul >= 0)
    return refuse(nul, (where) => `this is a binary file, not a YAML playbook (a NUL byte ${where})`);
  let text: string;
  try {
    // (the decoder's own check is native; the byte walk that says where runs only when it fails)
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    const bad = firstInvalidUtf8(bytes);
    if (bad < 0) throw error;
    const byte = bytes[bad]!.toString(16).padStart(2, '0');
    return refuse(
      bad,
      (where) => `this file is not valid UTF-8 (an invalid byte 0x${byte} ${where}); save it as UTF-8`,
    );
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { text };
}

/**
 * The offset of the first byte that does not begin a well-formed UTF-8 sequence, or -1. Well-formed as
 * the Unicode standard's table 3-7 says (which `TextDecoder` follows): no overlong forms (C0, C1, E0 80–9F,
 * F0 80–8F), no surrogates (ED A0–BF), nothing past U+10FFFF (F4 90–BF, F5–FF).
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const length = bytes.length;
  for (let i = 0; i < length;) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let size: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) size = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      size = 3;
      if (b === 0xe0) low = 0xa0;
      else if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      size = 4;
      if (b === 0xf0) low = 0x90;
      else if (b === 0xf4) high = 0x8f;
    } else return i;
    if (i + size > length) return i;
    const second = bytes[i + 1]!;
    if (second < low || second > high) return i;
    for (let k = 2; k < size; k++) {
      const next = bytes[i + k]!;
      if (next < 0x80 || next > 0xbf) return i;
    }
    i += size;
  }
  return -1;
}
