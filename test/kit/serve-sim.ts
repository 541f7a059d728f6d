/**
 * `serve` in this process on the `sim` backend: a run host over a workspace and its HTTP API on a free
 * port, for tests that look at the host as well as the API. (The built CLI's `serve` as a process is
 * `startServe`, serve-process.ts; calls to either, with the bearer token, are in serve-api.ts.)
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunHost, simBackendFor, startServe as serveInProcess } from '@kairoku-playbook/runtime/serve';
import type { RunningServe, ServeOptions } from '@kairoku-playbook/runtime/serve';
import { REPO } from './cli.js';
import { serveApi } from './serve-api.js';
import type { ServeApi } from './serve-api.js';
import { removeDir, tempDir } from './temp.js';

export const BROKEN =
  'version: 1\nid: broken\ntitle: Broken\nsteps:\n  a:\n    needs: [nope]\n    prompt: x\n';

/** A temporary workspace with playbooks/pr.yml and a broken playbook (`BROKEN`), and a home for its runs. */
export function prWorkspace(): { root: string; home: string; cleanup: () => void } {
  const root = tempDir('serve-ws-');
  const home = tempDir('serve-home-');
  mkdirSync(join(root, 'playbooks'));
  copyFileSync(join(REPO, 'playbooks/pr.yml'), join(root, 'playbooks/pr.yml'));
  writeFileSync(join(root, 'playbooks/broken.yml'), BROKEN);
  return {
    root,
    home,
    cleanup: () => {
      removeDir(root);
      removeDir(home);
    },
  };
}

export interface Served {
  host: RunHost;
  serve: RunningServe;
  /** fetch with the bearer token */
  api: ServeApi;
  close: () => Promise<void>;
}

/** The run host of `root` on sim (`scenario`: its scripted reports and decisions) served on 127.0.0.1. */
export async function serveOnSim(
  root: string,
  home: string,
  options: Partial<ServeOptions> = {},
  scenario?: unknown,
): Promise<Served> {
  const host = new RunHost({ home, workspace: root, backend: 'sim', backendFor: simBackendFor(scenario) });
  host.recover();
  const serve = await serveInProcess({
    host,
    listen: { host: '127.0.0.1', port: 0 },
    watchPlaybooks: false,
    ...options,
  });
  const api = serveApi(serve.url, serve.token);
  return {
    host,
    serve,
    api,
    close: async () => {
      await serve.close();
      host.close();
    },
  };
}
