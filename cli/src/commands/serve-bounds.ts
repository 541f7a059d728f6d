/**
 * serve's bounds (`GET /api/v1/bounds`, the start form's "at most 17 agent turns"): `compile FILE` run by
 * this CLI in a process of its own, whose IR carries them. The explorer behind them can take seconds on a
 * playbook with nested loops; in serve's process that would stall every request and event meanwhile.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { Ir } from '@kairoku-playbook/compiler';
import { headlineBounds } from '@kairoku-playbook/machine';
import type { RunBounds } from '@kairoku-playbook/runtime/serve';
import { selfCommand } from '../self-command.js';

/** Past this the child is stopped and the start form says the bound could not be worked out. */
const BOUNDS_TIMEOUT_MS = 120_000;

export function boundsByCompile(workspace: string): (file: string, ir: Ir) => Promise<RunBounds | undefined> {
  return async (file) => {
    const [command, ...args] = selfCommand();
    const output = await childOutput(command!, [...args, 'compile', resolve(workspace, file)], workspace);
    const bounds = (JSON.parse(output) as Ir).bounds;
    return bounds && headlineBounds(bounds);
  };
}

/** The standard output of a command that must succeed within BOUNDS_TIMEOUT_MS. */
function childOutput(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((done, failed) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: BOUNDS_TIMEOUT_MS,
    });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-2000)));
    child.once('error', failed);
    child.once('close', (code, signal) => {
      if (code === 0) return done(Buffer.concat(out).toString('utf8'));
      const why = signal ? `stopped by ${signal} (over ${BOUNDS_TIMEOUT_MS / 1000} s?)` : `exit ${code}`;
      failed(new Error(`compile ended with ${why}${err.trim() ? `: ${err.trim().split('\n')[0]}` : ''}`));
    });
  });
}
