import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
  return createHmac('sha256', key(home)).update(`${run}\n${step}\n${attempt}`).digest('hex').slice(0, 32);
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

function key(home: string): Buffer {
  const path = join(home, 'mcp.key');
  try {
    return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
  } catch {
    // made below
  }
  mkdirSync(home, { recursive: true, mode: 0o700 });
  // Written aside, then linked into place: a reader never sees a half-written key, and of two
  // processes making one at once, the first link wins and both use it.
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temp);
  }
  return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
}
