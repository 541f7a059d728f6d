/**
 * Finding the `serve` of a workspace the way the CLI does (runtime/src/store/serve-discovery.ts; a test holds
 * the two equal): `$KAIROKU_PLAYBOOK_HOME/serve/<sha256 of the workspace, 16 hex>.json`, mode 0600, with
 * the server's pid, URL, port and token, ignored when its process is gone. The extension imports nothing
 * of the playbook packages, so this is restated here. No `vscode` here.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface ServeInfo {
  pid: number;
  url: string;
  port: number;
  token: string;
  workspace: string;
}

/** The store's folder: `KAIROKU_PLAYBOOK_HOME`, else `~/.kairoku-playbook`. */
export function defaultHome(env: Record<string, string | undefined> = process.env): string {
  return env.KAIROKU_PLAYBOOK_HOME || join(homedir(), '.kairoku-playbook');
}

export function serveInfoPath(home: string, workspace: string): string {
  const hash = createHash('sha256').update(workspace).digest('hex').slice(0, 16);
  return join(home, 'serve', `${hash}.json`);
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is someone else's
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live `serve` of a workspace (its real path, as serve records it), or undefined. */
export function findWorkspaceServe(home: string, workspace: string): ServeInfo | undefined {
  let info: Partial<ServeInfo> | null;
  try {
    info = JSON.parse(readFileSync(serveInfoPath(home, workspace), 'utf8')) as Partial<ServeInfo> | null;
  } catch {
    return undefined;
  }
  if (
    typeof info !== 'object' ||
    info === null ||
    typeof info.pid !== 'number' ||
    typeof info.url !== 'string' ||
    typeof info.token !== 'string' ||
    typeof info.port !== 'number' ||
    info.workspace !== workspace ||
    !isLoopbackUrl(info.url) ||
    !processIsAlive(info.pid)
  )
    return undefined;
  return info as ServeInfo;
}

/** serve listens on loopback only; anything else in the file is not a serve this extension talks to. */
export function isLoopbackUrl(url: string): boolean {
  try {
    const { protocol, hostname } = new URL(url);
    return protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(hostname);
  } catch {
    return false;
  }
}
