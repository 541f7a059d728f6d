import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FILE_LIMITS, readTextBounded } from '@kairoku-playbook/compiler/disk';
import { FileWriteError } from './atomic-write.js';

/**
 * The environment variable that carries a step agent's token to its server (`mcp --step-agent`): on
 * a command line, every user of the machine could read it (`ps`, /proc/PID/cmdline).
 */
export const STEP_TOKEN_VARIABLE = 'KAIROKU_STEP_TOKEN';

/**
 * A step agent's token binds its MCP server to one run, step and attempt: an HMAC of the three under
 * a key kept in the store's home (`mcp.key`, mode 0600, made on first use). The manager's server
 * hands it out with the command line and environment of the step agent's server, which checks it before it starts.
 * Nothing is saved per token, and run state holds none.
 */
export function stepAgentToken(home: string, run: string, step: string, attempt: number): string {
  return createHmac('sha256', storeKey(home))
    .update(`${run}\n${step}\n${attempt}`)
    .digest('hex')
    .slice(0, 32);
}

export function checkStepAgentToken(
  home: string,
  run: string,
  step: string,
  attempt: number,
  token: string,
): boolean {
  const expected = Buffer.from(stepAgentToken(home, run, step, attempt));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * The store's key (`mcp.key` in its home): step-agent tokens and the report tokens of a persistent
 * report endpoint (report-endpoint.ts) are HMACs under it, each with a message of its own form.
 */
export function storeKey(home: string): Buffer {
  const path = join(home, 'mcp.key');
  const existing = readKey(path);
  if (existing.problem === undefined) return Buffer.from(existing.text.trim(), 'hex');
  if (existing.problem !== 'missing') throw new Error(`cannot read the key ${path}: ${existing.message}`);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  // Written aside, then linked into place: a reader never sees a half-written key, and of two
  // processes making one at once, the first link wins and both use it.
  const temp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      const code = (error as NodeJS.ErrnoException).code;
      throw typeof code === 'string' ? new FileWriteError(path, code, (error as Error).message) : error;
    }
  } finally {
    rmSync(temp, { force: true });
  }
  const made = readKey(path);
  if (made.problem !== undefined) throw new Error(`cannot read the key ${path}: ${made.message}`);
  return Buffer.from(made.text.trim(), 'hex');
}

/** The key file: a line of hex, read only when it is a small regular file. */
function readKey(path: string) {
  return readTextBounded(path, FILE_LIMITS.small, 'a key file');
}
