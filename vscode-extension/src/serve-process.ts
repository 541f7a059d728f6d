/**
 * The `serve` a workspace's Playbooks view talks to: the one already running for the workspace (its
 * discovery file, serve-discovery.ts), else one started here (`CLI serve WORKSPACE --listen
 * 127.0.0.1:0`: loopback, a free port) from the CLI `kairokuPlaybook.server.path` names or the one
 * bundled with the extension (server-command.ts's serveCommand), and stopped with the extension. No `vscode` here.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import { findWorkspaceServe, isLoopbackUrl } from './serve-discovery.js';
import type { ServeAddress } from './serve-client.js';

export interface ServeConnection extends ServeAddress {
  workspace: string;
  pid: number;
  /** whether this process started it (and so stops it) */
  started: boolean;
  /** stops a serve started here (SIGTERM, SIGKILL after `graceMs`); nothing for one found running */
  stop(graceMs?: number): Promise<void>;
  /** called once if a serve started here exits by itself */
  onExit(listener: (why: string) => void): void;
}

export interface ServeProcessOptions {
  /** the CLI to run: a .js file run with `execPath` */
  cli: string;
  /** `cli` is an executable (an installed `kairoku-playbook`), run as it is, not with `execPath` */
  executable?: boolean;
  /** the workspace folder (its real path is what serve records) */
  workspace: string;
  /** the store (`KAIROKU_PLAYBOOK_HOME`) */
  home: string;
  /** Node: VS Code's own (ELECTRON_RUN_AS_NODE makes Electron one) */
  execPath?: string;
  env?: NodeJS.ProcessEnv;
  /** more arguments for serve (a test's `--sim-delay`) */
  args?: string[];
  /** each line serve writes to standard error */
  log?: (line: string) => void;
  /** how long serve may take to print its URL */
  timeoutMs?: number;
}

const LISTENING = /^login URL: (http:\/\/127\.0\.0\.1:(\d+))\/\?login=[A-Za-z0-9_-]+\s*$/m;

/** The workspace's serve: found running, or started. */
export async function connectServe(options: ServeProcessOptions): Promise<ServeConnection> {
  const workspace = realpathSync(options.workspace);
  const running = findWorkspaceServe(options.home, workspace);
  if (running) return found(running.url, running.token, running.pid, workspace);
  try {
    return await spawnWorkspaceServe({ ...options, workspace });
  } catch (error) {
    // Another window (or a terminal) started one meanwhile: use it.
    const raced = findWorkspaceServe(options.home, workspace);
    if (raced) return found(raced.url, raced.token, raced.pid, workspace);
    throw error;
  }
}

function found(url: string, token: string, pid: number, workspace: string): ServeConnection {
  return {
    url,
    token,
    pid,
    workspace,
    started: false,
    stop: () => Promise.resolve(),
    onExit: () => undefined,
  };
}

/**
 * Starts `serve` and resolves once it listens (it prints `login URL: http://127.0.0.1:PORT/?login=…`, after
 * writing its discovery file, where the API token is: a login URL holds none).
 */
export function spawnWorkspaceServe(options: ServeProcessOptions): Promise<ServeConnection> {
  const serveArgs = ['serve', options.workspace, '--listen', '127.0.0.1:0', ...(options.args ?? [])];
  const child = spawn(
    options.executable ? options.cli : (options.execPath ?? process.execPath),
    options.executable ? serveArgs : [options.cli, ...serveArgs],
    {
      cwd: options.workspace,
      env: {
        ...(options.env ?? process.env),
        ELECTRON_RUN_AS_NODE: '1',
        KAIROKU_PLAYBOOK_HOME: options.home,
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
      // npm installs the CLI as a .cmd shim on Windows, which only a shell starts (as client.ts does)
      shell: Boolean(options.executable) && process.platform === 'win32',
    },
  );
  let stderr = '';
  let exited: string | undefined;
  const exitListeners: ((why: string) => void)[] = [];
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
    for (const line of chunk.split('\n')) if (line.trim()) options.log?.(line);
  });
  child.on('exit', (code, signal) => {
    exited = `serve exited (${signal ?? code})${stderr.trim() ? `: ${stderr.trim().split('\n').pop()}` : ''}`;
    exitListeners.splice(0).forEach((listener) => listener(exited!));
  });

  return new Promise<ServeConnection>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not print its address within ${(options.timeoutMs ?? 30_000) / 1000} s`));
    }, options.timeoutMs ?? 30_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(exited));
    });
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const match = LISTENING.exec(out);
      if (!match || !isLoopbackUrl(match[1]!)) return;
      clearTimeout(timer);
      child.stdout!.resume();
      const info = findWorkspaceServe(options.home, realpathSync(options.workspace));
      if (!info || info.url !== match[1]) {
        child.kill('SIGTERM');
        reject(new Error(`serve listens at ${match[1]} but its discovery file does not say so`));
        return;
      }
      resolve({
        url: match[1]!,
        token: info.token,
        pid: child.pid!,
        workspace: options.workspace,
        started: true,
        stop: (graceMs = 5000) => stopChild(child, graceMs),
        onExit: (listener) => {
          if (exited !== undefined) listener(exited);
          else exitListeners.push(listener);
        },
      });
    });
  });
}

function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    // SIGTERM: serve removes its discovery file and closes; the runs stay on disk.
    child.kill('SIGTERM');
  });
}

/** The playbook's id as serve names it: its path relative to the workspace, `/` separators; or undefined. */
export function playbookIdOf(workspace: string, file: string): string | undefined {
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  };
  const path = relative(real(workspace), real(file));
  if (!path || path === '..' || path.startsWith(`..${sep}`) || isAbsolute(path)) return undefined;
  return path.split(sep).join('/');
}
