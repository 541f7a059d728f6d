/**
 * code-server, installed by scripts/setup-vscode-e2e.mjs and run by its Node 24: everything it writes goes to
 * one temporary folder (its user data, extensions, config and HOME), it listens on 127.0.0.1 only, and it runs
 * in its own process group, so that stopping it stops the extension host and the language server too.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODE_SERVER, NODE } from '../../../scripts/setup-vscode-e2e.mjs';

export interface Sandbox {
  /** The temporary folder everything lives in. */
  dir: string;
  home: string;
  userData: string;
  extensions: string;
}

/** User settings that keep dialogs, tips, the chat view and the marketplace out of the way. */
export const USER_SETTINGS = {
  'security.workspace.trust.enabled': false,
  'workbench.startupEditor': 'none',
  // VS Code in a browser saves a second after each edit by default; the desktop's default (off) is what our
  // users have, and with it Ctrl+S is what writes the file.
  'files.autoSave': 'off',
  'workbench.tips.enabled': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.disableAIFeatures': true,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
};

export function makeSandbox(dir: string): Sandbox {
  const sandbox = {
    dir,
    home: join(dir, 'home'),
    userData: join(dir, 'user-data'),
    extensions: join(dir, 'extensions'),
  };
  mkdirSync(join(sandbox.userData, 'User'), { recursive: true });
  mkdirSync(sandbox.home, { recursive: true });
  mkdirSync(join(dir, 'tmp'), { recursive: true });
  mkdirSync(sandbox.extensions, { recursive: true });
  writeFileSync(
    join(sandbox.userData, 'User', 'settings.json'),
    `${JSON.stringify(USER_SETTINGS, null, 2)}\n`,
  );
  return sandbox;
}

/**
 * HOME, the XDG folders and TMPDIR (VS Code's sockets) inside the sandbox; no marketplace (an empty gallery);
 * nothing of the calling npm.
 */
export function sandboxEnv(sandbox: Sandbox): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('npm_') || key === 'NODE_OPTIONS' || key === 'NODE') continue;
    env[key] = value;
  }
  return {
    ...env,
    HOME: sandbox.home,
    XDG_CONFIG_HOME: join(sandbox.home, '.config'),
    XDG_DATA_HOME: join(sandbox.home, '.local', 'share'),
    XDG_CACHE_HOME: join(sandbox.home, '.cache'),
    XDG_STATE_HOME: join(sandbox.home, '.local', 'state'),
    TMPDIR: join(sandbox.dir, 'tmp'),
    EXTENSIONS_GALLERY: '{}',
  };
}

function codeServerArgs(sandbox: Sandbox): string[] {
  return [CODE_SERVER, '--user-data-dir', sandbox.userData, '--extensions-dir', sandbox.extensions];
}

/** `code-server --install-extension <vsix>`; returns the id it installed. */
export function installExtension(sandbox: Sandbox, vsix: string): string {
  const out = execFileSync(NODE, [...codeServerArgs(sandbox), '--install-extension', vsix], {
    env: sandboxEnv(sandbox),
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (!/was successfully installed/.test(out)) throw new Error(`--install-extension ${vsix} said:\n${out}`);
  const listed = execFileSync(NODE, [...codeServerArgs(sandbox), '--list-extensions', '--show-versions'], {
    env: sandboxEnv(sandbox),
    encoding: 'utf8',
    timeout: 120_000,
  });
  return listed.trim();
}

export interface CodeServer {
  /** http://127.0.0.1:PORT/ */
  url: string;
  /** What it printed so far. */
  log(): string;
  /** Stops it and every process it started; safe to call more than once. */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts code-server on a free port of 127.0.0.1 and resolves once it listens. */
export async function startCodeServer(sandbox: Sandbox, folder: string): Promise<CodeServer> {
  const child = spawn(
    NODE,
    [
      ...codeServerArgs(sandbox),
      '--bind-addr',
      '127.0.0.1:0',
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      folder,
    ],
    { detached: true, env: sandboxEnv(sandbox), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const pid = child.pid!;
  let output = '';

  const groupAlive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  };
  // Should the test process exit without afterAll (process.exit, an uncaught error), the group goes with it.
  const onExit = () => signalGroup('SIGKILL');
  process.on('exit', onExit);

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      signalGroup('SIGTERM');
      for (let i = 0; i < 50 && groupAlive(); i++) await sleep(100);
      if (groupAlive()) signalGroup('SIGKILL');
      for (let i = 0; i < 50 && groupAlive(); i++) await sleep(100);
      process.off('exit', onExit);
      if (groupAlive()) throw new Error(`code-server's process group ${pid} is still alive after SIGKILL`);
    })());

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error('code-server did not listen within 60 s')), 60_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(new Error(`${error.message}\n--- code-server's output ---\n${output}`));
    };
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.length > 1_000_000) output = output.slice(-500_000);
      const match = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('error', fail);
    child.on('exit', (code, signal) =>
      fail(new Error(`code-server exited (${code ?? signal}) before it listened`)),
    );
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url, log: () => output, stop };
}
