import { checkDuplicateIds } from './checks/duplicate-ids.js';
import { analyzeFile, sortDiagnostics } from './compile.js';
import type { FileAnalysis } from './compile.js';
import type { Diagnostic } from './diagnostic.js';
import type { PlaybookModel } from './model/model.js';

export interface WorkspaceFile {
  /** the path as it should appear in diagnostics (relative to the workspace) */
  file: string;
  text: string;
}

export interface Validation {
  diagnostics: Diagnostic[];
  analyses: Map<string, FileAnalysis>;
}

/**
 * THE validation function. The CLI's `check`, the language server, the runtime's
 * `validate_playbooks` and the panel all print what this returns, unchanged.
 * `previous` lets an editor reuse the analyses of files whose text did not change.
 */
export function validateWorkspace(
  files: readonly WorkspaceFile[],
  previous?: ReadonlyMap<string, FileAnalysis>,
): Validation {
  const analyses = new Map<string, FileAnalysis>();
  const diagnostics: Diagnostic[] = [];
  for (const { file, text } of files) {
    const cached = previous?.get(file);
    const analysis = cached && cached.text === text ? cached : analyzeFile(file, text);
    analyses.set(file, analysis);
    for (const diagnostic of analysis.diagnostics) diagnostics.push(diagnostic);
  }
  const models = [...analyses.values()]
    .map((a) => a.model)
    .filter((m): m is PlaybookModel => m !== undefined);
  for (const diagnostic of checkDuplicateIds(models)) diagnostics.push(diagnostic);
  return { diagnostics: sortDiagnostics(diagnostics), analyses };
}

/** Validates files and returns only the diagnostics. */
export function validate(files: readonly WorkspaceFile[]): Diagnostic[] {
  return validateWorkspace(files).diagnostics;
}

/**
 * Decodes a file's bytes as UTF-8 (without a BOM). Binary and non-UTF-8 files are refused with one
 * PB100 diagnostic pointing at the first bad byte, instead of being checked as garbage.
 */
export function decodeSource(
  file: string,
  bytes: Uint8Array,
): { text: string; diagnostic?: undefined } | { text: undefined; diagnostic: Diagnostic } {
  const refuse = (message: string): { text: undefined; diagnostic: Diagnostic } => ({
    text: undefined,
    diagnostic: { file, range: { start: 0, end: 0 }, severity: 'error', code: 'PB100', message },
  });
  const nul = bytes.indexOf(0);
  if (nul >= 0) return refuse(`this is a binary file, not a YAML playbook (a NUL byte at byte ${nul})`);
  try {
    let text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return { text };
  } catch {
    const bad = firstInvalidUtf8(bytes);
    return refuse(
      `this file is not valid UTF-8 (an invalid byte 0x${(bytes[bad] ?? 0).toString(16).padStart(2, '0')} at byte ${bad}); save it as UTF-8`,
    );
  }
}

function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    const length =
      b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (length === 0 || i + length > bytes.length) return i;
    for (let k = 1; k < length; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    i += length;
  }
  return 0;
}
