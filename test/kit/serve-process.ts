import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { afterAll } from 'vitest';
import { findServe } from '@kairoku-playbook/runtime/serve';
import { CLI } from './cli.js';

export interface ServeProcessOptions {
  workspace: string;
  /** the store's home (`KAIROKU_PLAYBOOK_HOME`) */
  home: string;
  /** more arguments (`--backend paseo`, `--scenario F`, `--sim-delay 500`); serve listens on a free port */
  args?: readonly string[];
  /** the environment (default: this process's, without the Paseo variables of whoever runs the tests) */
  env?: NodeJS.ProcessEnv;
  /** where it runs (default this process's folder: relative paths in `args` are read from there) */
  cwd?: string;
  /** what standard output must show before serve counts as up (default: the login URL line) */
  until?: RegExp;
  /** `panel` starts it by the contract's name, with `--port 0` (default `serve`, `--listen 127.0.0.1:0`) */
  command?: 'serve' | 'panel';
}

export interface ServeProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** the first login URL (`/?login=NONCE`): it logs one browser in, once */
  login: string;
  /** the API token, from serve's discovery file (a login URL holds none) */
  token: string;
  /** `until`'s match on standard output */
  match: RegExpExecArray;
  stderr(): string;
  exited: Promise<number | null>;
  /** SIGTERM, then the end of the process */
  stop(): Promise<void>;
}

const LOGIN = /login URL: ((http:\/\/127\.0\.0\.1:\d+)\/\?login=[A-Za-z0-9_-]+)/;
const children = new Set<ChildProcess>();
// The file's serve processes a test did not stop are killed after its last test (as temp.ts removes its
// folders: vitest ends its worker processes without their 'exit' event).
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

/**
 * The built CLI's `serve` for a workspace, as a process (real HTTP on 127.0.0.1), resolved once it
 * prints its login URL (and `until`); rejected, with its standard error, when it exits first. Killed
 * after the test file's last test if the test did not stop it.
 */
export function startServe(options: ServeProcessOptions): Promise<ServeProcess> {
  const env: NodeJS.ProcessEnv = {
    ...(options.env ?? withoutPaseo(process.env)),
    KAIROKU_PLAYBOOK_HOME: options.home,
  };
  const child = spawn(
    process.execPath,
    options.command === 'panel'
      ? [CLI, 'panel', options.workspace, '--port', '0', ...(options.args ?? [])]
      : [CLI, 'serve', options.workspace, '--listen', '127.0.0.1:0', ...(options.args ?? [])],
    { env, cwd: options.cwd ?? process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.add(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const login = LOGIN.exec(out);
      const match = (options.until ?? LOGIN).exec(out);
      if (!login || !match) return;
      // (serve writes its discovery file, with the API token, before it prints the login URL)
      const info = findServe(options.home, realpathSync(options.workspace));
      if (!info) return reject(new Error(`serve printed ${login[1]} but has no discovery file`));
      resolve({
        child,
        url: login[2]!,
        login: login[1]!,
        token: info.token,
        match,
        stderr: () => err,
        exited,
        stop: () => stop(child),
      });
    });
    // An exit before the login URL fails the wait; after it, rejecting a settled promise does nothing.
    void exited.then((code) => reject(new Error(`serve exited (${code}) before it listened: ${err}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function withoutPaseo(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { PASEO_HOST: _host, PASEO_PASSWORD: _password, ...rest } = env;
  return rest;
}
