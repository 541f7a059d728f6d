import { existsSync, realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { defaultHome, forTerminal, scenarioShapeErrors } from '@kairoku-playbook/runtime';
import { flag, oneOf, parseArgs } from '../args.js';
import type { ParsedArgs } from '../args.js';
import { panelFiles } from '../panel-files.js';
import { UsageError, readScenarioFile } from '../io.js';
import type { CommandIo } from '../io.js';
import { simDelay } from './run-common.js';
import type { RunHost } from '@kairoku-playbook/runtime/serve';
import type { ServeBackend, ServeBackendEntry } from './serve-backend.js';
import { KAIROKU_SERVE } from './serve-kairoku.js';
import { PASEO_SERVE } from './serve-paseo.js';
import { SERVE_HELP, SIM_SERVE_HELP } from './serve-help.js';
import { boundsByCompile } from './serve-bounds.js';

export { SERVE_HELP };

/** The sim backend as serve drives it: scripted by --scenario, each turn taking --sim-delay. */
const SIM_SERVE: ServeBackendEntry = {
  flags: { scenario: 'string', 'sim-delay': 'string' },
  help: SIM_SERVE_HELP,
  setup: async ({ args, io, log }) => {
    const delayMs = simDelay(flag(args, 'sim-delay'));
    const file = flag(args, 'scenario');
    const scenario = file === undefined ? undefined : readScenarioFile(file, io.cwd);
    // Its shape is refused at once; whether its names fit is the playbook's of each run (said in the log).
    const wrong = scenarioShapeErrors(scenario);
    if (wrong.length) throw new UsageError(`--scenario ${file}: ${wrong.join('; ')}`);
    const { simBackendFor } = await import('@kairoku-playbook/runtime/serve');
    return { backendFor: simBackendFor(scenario, delayMs ?? 0, log) };
  },
};

/** `--backend NAME`: the backends serve can start runs on, each with its flags and its wiring. */
const SERVE_BACKENDS: Record<string, ServeBackendEntry> = {
  sim: SIM_SERVE,
  paseo: PASEO_SERVE,
  kairoku: KAIROKU_SERVE,
};

/** Parses and checks the arguments at once (so --help and mistakes answer synchronously), then serves. */
export function runServe(argv: readonly string[], io: CommandIo): number | Promise<number> {
  const args = parseArgs(
    argv,
    {
      listen: 'string',
      port: 'string',
      backend: 'string',
      'panel-dir': 'string',
      'login-url': 'boolean',
      'archive-after': 'string',
      help: 'boolean',
      ...Object.assign({}, ...Object.values(SERVE_BACKENDS).map((entry) => entry.flags)),
    },
    { h: 'help' },
  );
  if (args.flags.has('help')) {
    io.stdout(`${SERVE_HELP}\n`);
    return 0;
  }
  if (args.positionals.length > 1)
    throw new UsageError(`serve takes one workspace folder, not ${args.positionals.length}`);
  const dir = resolve(io.cwd, args.positionals[0] ?? '.');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`serve: ${dir} is not a folder`);
  const workspace = realpathSync(dir);
  if (args.flags.has('login-url')) return printLoginUrl(io, workspace);
  const backend = oneOf(flag(args, 'backend'), Object.keys(SERVE_BACKENDS), 'backend', 'sim');
  const entry = SERVE_BACKENDS[backend]!;
  for (const [name, other] of Object.entries(SERVE_BACKENDS))
    for (const only of Object.keys(other.flags))
      if (args.flags.has(only) && !(only in entry.flags))
        throw new UsageError(`--${only} is for serve --backend ${name}`);
  const listen = listenAddress(args);
  const panelDir = flag(args, 'panel-dir');
  const archiveAfterDays = archiveAfter(flag(args, 'archive-after'));
  const home = defaultHome();
  const log = (line: string) => io.stderr(`kairoku-playbook: ${forTerminal(line)}\n`);

  return serveUntilStopped(io, {
    workspace,
    backend,
    listen,
    connect: () => entry.setup({ args, io, env: process.env, home, workspace, log }),
    panelDir,
    archiveAfterDays,
    home,
    log,
  });
}

/**
 * Where serve listens: `--listen HOST:PORT`, or `--port N` for 127.0.0.1:N (how `panel`, serve under the
 * contract's name, says it); 127.0.0.1:7420 when neither is given.
 */
function listenAddress(args: ParsedArgs): { host: string; port: number } {
  const port = flag(args, 'port');
  if (port !== undefined) {
    if (args.flags.has('listen')) throw new UsageError('--port N is --listen 127.0.0.1:N: give one of them');
    if (!/^\d{1,5}$/.test(port) || Number(port) > 65535)
      throw new UsageError(`--port takes a port number from 0 to 65535 (0 picks a free one), not "${port}"`);
    return { host: '127.0.0.1', port: Number(port) };
  }
  const listen = flag(args, 'listen') ?? '127.0.0.1:7420';
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(listen);
  if (!match || Number(match[2]) > 65535)
    throw new UsageError(`--listen takes HOST:PORT (127.0.0.1:0 picks a free port), not "${listen}"`);
  return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(match[2]) };
}

/** `--archive-after DAYS`: a number of days, 0 or more (fractions too: 0.5 is twelve hours). */
function archiveAfter(given: string | undefined): number | undefined {
  if (given === undefined) return undefined;
  const days = Number(given);
  if (given.trim() === '' || !Number.isFinite(days) || days < 0)
    throw new UsageError(`--archive-after takes a number of days (0 or more), not "${given}"`);
  return days;
}

/**
 * `serve --login-url`: a new login URL of the serve already running for the workspace (a login URL
 * works once, for ten minutes: this is how a second browser, or a later one, logs in).
 */
async function printLoginUrl(io: CommandIo, workspace: string): Promise<number> {
  const { findServe } = await import('@kairoku-playbook/runtime/serve');
  const running = findServe(defaultHome(), workspace);
  if (!running) throw new UsageError(`no serve runs for ${workspace}: start one with kairoku-playbook serve`);
  const answer = await fetch(`${running.url}/api/v1/login-urls`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${running.token}` },
  }).catch((error: unknown) => {
    throw new UsageError(`the serve at ${running.url} did not answer: ${(error as Error).message}`);
  });
  const body = (await answer.json().catch(() => ({}))) as { url?: string; refusal?: { message: string } };
  if (answer.status !== 201 || typeof body.url !== 'string')
    throw new UsageError(
      `the serve at ${running.url} made no login URL: ${body.refusal?.message ?? answer.status}`,
    );
  io.stdout(`${body.url}\n`);
  return 0;
}

interface ServeSettings {
  workspace: string;
  backend: string;
  listen: { host: string; port: number };
  /** the backend, connected (after the check that no other serve owns the workspace) */
  connect: () => Promise<ServeBackend>;
  panelDir: string | undefined;
  /** `--archive-after DAYS` */
  archiveAfterDays: number | undefined;
  home: string;
  log: (line: string) => void;
}

async function serveUntilStopped(
  io: CommandIo,
  { workspace, backend, listen, connect, panelDir, archiveAfterDays, home, log }: ServeSettings,
): Promise<number> {
  // Loaded only here: node:http and the server are for this command alone.
  const serve = await import('@kairoku-playbook/runtime/serve');
  // One serve per workspace: the lock comes before anything else (two serves started together would
  // otherwise both find no serve, both connect and both listen).
  const locked = serve.lockServe(home, workspace);
  if (!locked.ok) {
    const running = serve.findServe(home, workspace);
    throw new UsageError(
      `a serve (process ${locked.holder.pid}) already serves ${workspace}${running ? ` at ${running.url}` : ' (it is starting)'}; stop it first`,
    );
  }
  process.once('exit', locked.release);
  let connected: ServeBackend;
  try {
    connected = await connect();
  } catch (error) {
    locked.release();
    throw error;
  }
  const host = new serve.RunHost({
    home,
    workspace,
    backend,
    backendFor: connected.backendFor,
    ...(connected.managerExists ? { managerExists: connected.managerExists } : {}),
    ...(connected.adopt ? { adopt: connected.adopt } : {}),
  });
  takeUp(host, connected, log);
  let server: Awaited<ReturnType<typeof serve.startServe>>;
  try {
    server = await serve.startServe({
      host,
      listen,
      ...(panelDir !== undefined ? { assetsDir: resolve(io.cwd, panelDir) } : { panelFiles: panelFiles() }),
      ...backendStarts(connected, host),
      // the start form's worst case, worked out by `compile` in a process of its own
      bounds: boundsByCompile(host.workspace),
      ...(archiveAfterDays !== undefined ? { archiveAfterDays } : {}),
      // Answers that went well are not worth a line each; refusals and failures are.
      log: (line) => {
        if (!/ [23]\d\d$/.test(line)) log(line);
      },
    });
  } catch (error) {
    host.close();
    await connected.close?.();
    locked.release();
    throw new UsageError((error as Error).message, { cause: error });
  }
  serve.writeServeInfo(home, {
    pid: process.pid,
    url: server.url,
    port: server.port,
    token: server.token,
    workspace,
    backend,
  });
  io.stdout(`kairoku-playbook serve: ${workspace}\nlogin URL: ${server.loginUrl}\n`);
  for (const line of connected.banner ?? []) io.stdout(`${line}\n`);

  return untilSignal(
    () => {
      serve.removeServeInfo(home, workspace);
      locked.release();
      // The process ends only once the server has closed.
      return server.close().then(() => {
        host.close();
        return connected.close?.();
      });
    },
    () => serve.removeServeInfo(home, workspace),
  );
}

/** What the backend offers at start beyond serve's own runs (Paseo's manager agents), bound to the host. */
function backendStarts(connected: ServeBackend, host: RunHost) {
  return {
    ...(connected.startOptions ? { startOptions: connected.startOptions } : {}),
    ...(connected.startWithNewAgent
      ? { startWithNewAgent: connected.startWithNewAgent.bind(undefined, host) }
      : {}),
    ...(connected.currentAgent ? { currentAgent: connected.currentAgent } : {}),
    ...(connected.startWithCurrentAgent
      ? { startWithCurrentAgent: connected.startWithCurrentAgent.bind(undefined, host) }
      : {}),
    ...(connected.unofferedWhy ? { unofferedWhy: connected.unofferedWhy } : {}),
  };
}

/** The host's recovery of the workspace's runs, said once, then the backend's watch over them. */
function takeUp(host: RunHost, connected: ServeBackend, log: (line: string) => void): void {
  const recovered = host.recover();
  connected.recovered?.();
  connected.watch?.(host, recovered);
  sayRecovered(recovered, log);
}

/** What the host's recovery did with the workspace's stored runs, said once at start. */
function sayRecovered(
  recovered: {
    problems: { file: string; message: string }[];
    adopted: string[];
    otherBackends: string[];
    failed: string[];
  },
  log: (line: string) => void,
): void {
  for (const problem of recovered.problems) log(`warning: cannot read ${problem.file}: ${problem.message}`);
  if (recovered.adopted.length)
    log(`took up ${recovered.adopted.length} active run(s): ${recovered.adopted.join(', ')}`);
  if (recovered.otherBackends.length)
    log(
      `left ${recovered.otherBackends.length} active run(s) of another backend for a serve of theirs: ${recovered.otherBackends.join(', ')}`,
    );
  if (recovered.failed.length)
    log(`failed ${recovered.failed.length} run(s) whose manager is gone: ${recovered.failed.join(', ')}`);
}

/** Resolves to 0 once SIGINT or SIGTERM came and `stop` finished; `onExit` runs when the process exits. */
function untilSignal(stop: () => Promise<unknown>, onExit: () => void): Promise<number> {
  return new Promise<number>((done) => {
    let stopping = false;
    const once = () => {
      if (stopping) return;
      stopping = true;
      // A signal handler cannot wait: `done` comes once stop has finished.
      void stop().then(() => done(0));
    };
    process.once('SIGINT', once);
    process.once('SIGTERM', once);
    process.once('exit', onExit);
  });
}
