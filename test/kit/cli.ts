import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp.js';

export const REPO = new URL('../../', import.meta.url).pathname;
/** The built CLI (`npm run build`), run as a user runs it. */
export const CLI = join(REPO, 'cli/dist/kairoku-playbook.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

function builtCli(): string {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  return CLI;
}

/** The built CLI with `args`, to its end: in `cwd`, with `home` as its store and `env` added. */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; home?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): CliResult {
  const run = spawnSync(process.execPath, [builtCli(), ...args], {
    cwd: options.cwd ?? REPO,
    env: {
      ...process.env,
      ...(options.home !== undefined ? { KAIROKU_PLAYBOOK_HOME: options.home } : {}),
      ...options.env,
    },
    encoding: 'utf8',
    ...(options.input !== undefined ? { input: options.input } : {}),
    timeout: 120_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

export interface BoundedCliResult extends CliResult {
  signal: NodeJS.Signals | null;
  /** killed by the guard: the child did not answer in time */
  hung: boolean;
}

/**
 * The built CLI with `args` in `cwd`, without blocking this process: its heap capped at `heapMb` (V8
 * enforces it in the child), killed (`hung`) when it has not ended after `guardMs`.
 */
export function runCliBounded(
  args: readonly string[],
  cwd: string,
  { heapMb, guardMs = 120_000 }: { heapMb?: number; guardMs?: number } = {},
): Promise<BoundedCliResult> {
  const heap = heapMb !== undefined ? [`--max-old-space-size=${heapMb}`] : [];
  const child = spawn(process.execPath, [...heap, builtCli(), ...args], {
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
  return new Promise((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(guard);
      reject(error);
    });
    child.on('close', (status, signal) => {
      clearTimeout(guard);
      const stdout = Buffer.concat(out).toString('utf8');
      resolve({ status, signal, stdout, stderr: Buffer.concat(err).toString('utf8'), hung });
    });
  });
}

/**
 * A temporary folder holding a `kairoku-playbook` command that runs the built CLI, to put first on
 * `PATH` (for shells, editors and scripts that call it by name).
 */
export function cliOnPath(): string {
  const folder = tempDir('kp-bin-');
  const command = join(folder, 'kairoku-playbook');
  writeFileSync(command, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(command, 0o755);
  return folder;
}
