import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export const REPO = new URL('../../', import.meta.url).pathname;
/** The built CLI (`npm run build`), run as a user runs it. */
export const CLI = join(REPO, 'cli/dist/kairoku-playbook.js');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The built CLI with `args`, to its end: in `cwd`, with `home` as its store and `env` added. */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; home?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): CliResult {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const run = spawnSync(process.execPath, [CLI, ...args], {
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
