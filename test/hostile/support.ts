/**
 * Helpers for the hostile-input suites: run the built CLI on a file as a user would (the test kit's
 * `runCliBounded`: the heap bounded, a guard against hangs), and check what every answer to bad input must
 * satisfy.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODES, MAX_MESSAGE } from '@kairoku-playbook/compiler';
import type { Diagnostic, JsonDiagnostic } from '@kairoku-playbook/compiler';
import { removeDir, runCliBounded, tempDir } from '../kit/index.js';
import type { BoundedCliResult } from '../kit/index.js';

/** The heap a checked file may take (the bar of issue 11: 1 GiB), enforced by V8 in the child. */
export const HEAP_MB = 1024;

export interface CliRun extends BoundedCliResult {
  /** stdout parsed as JSON, when it is JSON */
  json: unknown;
}

/** The kit's `runCliBounded` with the heap capped at `heapMb` (default `HEAP_MB`), stdout read as JSON too. */
async function runCli(
  args: readonly string[],
  cwd: string,
  { heapMb = HEAP_MB, guardMs = 120_000 }: { heapMb?: number; guardMs?: number } = {},
): Promise<CliRun> {
  const run = await runCliBounded(args, cwd, { heapMb, guardMs });
  let json: unknown;
  try {
    json = JSON.parse(run.stdout);
  } catch {
    json = undefined;
  }
  return { ...run, json };
}

/**
 * Writes `content` to `fileName` in a new temporary folder and runs `check FILE --format json` there.
 * The folder is removed afterwards.
 */
export async function checkJson(
  content: string | Uint8Array,
  {
    fileName = 'hostile.playbook.yml',
    ...options
  }: { fileName?: string; heapMb?: number; guardMs?: number } = {},
): Promise<CliRun & { diagnostics: JsonDiagnostic[] | undefined }> {
  const dir = tempDir('kairoku-hostile-');
  try {
    writeFileSync(join(dir, fileName), content);
    const run = await runCli(['check', fileName, '--format', 'json'], dir, options);
    return { ...run, diagnostics: Array.isArray(run.json) ? (run.json as JsonDiagnostic[]) : undefined };
  } finally {
    removeDir(dir);
  }
}

/**
 * What is wrong with diagnostics given for `text` (an empty list when nothing): each has a known code,
 * a message of some words and at most `MAX_MESSAGE` characters (related ones too), and a range inside
 * the text.
 */
export function faultsOf(diagnostics: readonly Diagnostic[], text: string): string[] {
  const faults: string[] = [];
  for (const d of diagnostics) {
    const at = `${d.code} at ${d.range.start}`;
    if (!Object.prototype.hasOwnProperty.call(CODES, d.code)) faults.push(`${at}: unknown code`);
    if (d.message.length < 10) faults.push(`${at}: message too short: ${JSON.stringify(d.message)}`);
    if (d.message.length > MAX_MESSAGE) faults.push(`${at}: message of ${d.message.length} characters`);
    for (const related of d.related ?? [])
      if (related.message.length > MAX_MESSAGE)
        faults.push(`${at}: related message of ${related.message.length}`);
    if (!(0 <= d.range.start && d.range.start <= d.range.end && d.range.end <= text.length))
      faults.push(`${at}: range ${d.range.start}-${d.range.end} outside the text (${text.length})`);
  }
  return faults;
}

/** The same checks on the CLI's JSON: known codes, bounded messages, 1-based positions. */
export function jsonFaultsOf(diagnostics: readonly JsonDiagnostic[]): string[] {
  const faults: string[] = [];
  for (const d of diagnostics) {
    const at = `${d.code} at ${d.line}:${d.column}`;
    if (!Object.prototype.hasOwnProperty.call(CODES, d.code)) faults.push(`${at}: unknown code`);
    if (d.message.length > MAX_MESSAGE) faults.push(`${at}: message of ${d.message.length} characters`);
    if (!(d.line >= 1 && d.column >= 1 && d.endLine >= d.line)) faults.push(`${at}: bad position`);
  }
  return faults;
}
