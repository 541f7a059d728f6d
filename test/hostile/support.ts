/**
 * Helpers for the hostile-input suites: run the built CLI on a file as a user would, with the heap
 * bounded and a guard against hangs, and check what every answer to bad input must satisfy.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { CODES, MAX_MESSAGE } from '@kairoku-playbook/compiler';
import type { Diagnostic, JsonDiagnostic } from '@kairoku-playbook/compiler';

export const REPO = new URL('../../', import.meta.url).pathname;
export const CLI = join(REPO, 'cli/dist/kairoku-playbook.js');

/** The heap a checked file may take (the bar of issue 11: 1 GiB), enforced by V8 in the child. */
export const HEAP_MB = 1024;

export interface CliRun {
  /** the exit code (`null` when the child was killed) */
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** killed by the guard: the child did not answer in time */
  hung: boolean;
  /** stdout parsed as JSON, when it is JSON */
  json: unknown;
}

/** Runs the built CLI with `args` in `cwd`, the heap capped at `heapMb`, killed after `guardMs`. */
export function runCli(
  args: readonly string[],
  cwd: string,
  { heapMb = HEAP_MB, guardMs = 120_000 }: { heapMb?: number; guardMs?: number } = {},
): Promise<CliRun> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${heapMb}`, CLI, ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    let hung = false;
    const guard = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, guardMs);
    child.on('error', (error) => {
      clearTimeout(guard);
      reject(error);
    });
    child.on('close', (status, signal) => {
      clearTimeout(guard);
      const stdout = Buffer.concat(out).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ status, signal, stdout, stderr: Buffer.concat(err).toString('utf8'), hung, json });
    });
  });
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
  const dir = mkdtempSync(join(os.tmpdir(), 'kairoku-hostile-'));
  try {
    writeFileSync(join(dir, fileName), content);
    const run = await runCli(['check', fileName, '--format', 'json'], dir, options);
    return { ...run, diagnostics: Array.isArray(run.json) ? (run.json as JsonDiagnostic[]) : undefined };
  } finally {
    rmSync(dir, { recursive: true, force: true });
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
