import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import { processIsAlive } from './process-alive.js';

/**
 * How other processes (`run`, `runs cancel`, the MCP server) find the `serve` of a workspace: a small
 * file under the store, `HOME/serve/<workspace hash>.json`, mode 0600 (it holds the session token),
 * written once the server listens and removed when it stops. A file whose process is gone (a
 * `kill -9`) is stale: it is ignored, and removed by the next `serve`.
 */
export interface ServeInfo {
  pid: number;
  url: string;
  port: number;
  token: string;
  workspace: string;
  /** the backend its runs are started on (`sim`, `paseo`); absent in the file of an older serve: `sim` */
  backend?: string;
}

export function serveInfoPath(home: string, workspace: string): string {
  const hash = createHash('sha256').update(workspace).digest('hex').slice(0, 16);
  return join(home, 'serve', `${hash}.json`);
}

export function writeServeInfo(home: string, info: ServeInfo): string {
  const path = serveInfoPath(home, info.workspace);
  mkdirSync(join(home, 'serve'), { recursive: true, mode: 0o700 });
  writeFileAtomic(path, `${JSON.stringify(info)}\n`, 0o600);
  return path;
}

/** The live `serve` of a workspace, or undefined (none, or a stale file of a process that is gone). */
export function findServe(home: string, workspace: string): ServeInfo | undefined {
  const path = serveInfoPath(home, workspace);
  let info: ServeInfo;
  try {
    info = JSON.parse(readFileSync(path, 'utf8')) as ServeInfo;
  } catch {
    return undefined;
  }
  if (typeof info?.pid !== 'number' || typeof info.url !== 'string' || typeof info.token !== 'string')
    return undefined;
  if (info.workspace !== workspace || !processIsAlive(info.pid)) return undefined;
  return info;
}

/** Removes the file if it is this process's (a later `serve` may have replaced it). */
export function removeServeInfo(home: string, workspace: string, pid = process.pid): void {
  const path = serveInfoPath(home, workspace);
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as ServeInfo;
    if (info.pid !== pid && processIsAlive(info.pid)) return;
  } catch {
    // unreadable: ours to remove
  }
  rmSync(path, { force: true });
}
