import type { Ir } from '@kairoku-playbook/compiler';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { FILE_LIMITS, readTextBounded } from '@kairoku-playbook/compiler/disk';
import { join, resolve } from 'node:path';
import { RunHost, defaultHome, forTerminal, loadMaskKey, writeFileAtomic } from '@kairoku-playbook/runtime';
import { kairoku, paseo, resolveBindAddress } from '@kairoku-playbook/runtime/backends';
import type { RunEvent, RunState } from '@kairoku-playbook/runtime';
import { flag } from '../args.js';
import type { ParsedArgs } from '../args.js';
import { UsageError } from '../io.js';
import type { CommandIo } from '../io.js';
import { openRoom, openRoomFor } from './run-common.js';
import { driveRun, gateFlags } from './run-drive.js';
import type { LiveBackend } from './run-drive.js';
import { restartSecrets } from './run-inputs.js';
import type { Terminal } from './terminal.js';
import { paseoOptions } from './paseo-options.js';

/** What a live backend needs from the command line, once the run's id and branch are known. */
export interface LiveBackendRequest {
  ir: Ir;
  runId: string;
  branch: string;
  cwd: string;
  log: (line: string) => void;
}

export type LiveBackendFactory = (request: LiveBackendRequest) => Promise<LiveBackend>;

/**
 * `run --backend paseo|kairoku`: the run on a backend whose agents report later, driven by the
 * runtime's LiveRun (timeouts from a timer, gates asked without blocking). The run is saved after
 * every batch of events; Ctrl-C cancels it (stopping its agents), a second Ctrl-C leaves at once.
 */
export async function runLive(
  args: ParsedArgs,
  ir: Ir,
  inputs: Record<string, unknown>,
  io: CommandIo,
  terminal: Terminal | undefined,
  backendName: string,
  connect: LiveBackendFactory,
): Promise<number> {
  const json = args.flags.has('json');
  const gates = gateFlags(args.flags.get('gate') ?? [], ir);
  const now = Date.now;
  // Runs of a live backend outlive this process: another process may be driving one now, so none
  // is marked lost here (`runs restart` takes a run up again and applies the lost-agent rule).
  const { host, id, workspace } = openRoom(ir, io, backendName, () => true, now);
  // What backends log may quote a daemon, a runner or an agent.
  const log = (line: string) => io.stderr(`kairoku-playbook: ${forTerminal(line)}\n`);

  let live: LiveBackend;
  try {
    live = await connect({
      ir,
      runId: id,
      branch:
        ir.workspace === 'new-worktree' ? paseo.runBranch(ir.id, id) : (paseo.currentBranch(workspace) ?? ''),
      cwd: workspace,
      log,
    });
  } catch (error) {
    host.close();
    io.stderr(`kairoku-playbook: ${forTerminal((error as Error).message)}\n`);
    return error instanceof UsageError ? 2 : 1;
  }

  // The host creates the run under the id and branch the backend was connected for, and drives it.
  return driveRun({
    host,
    create: { ir, inputs, options: { id, branch: live.branch } },
    event: { type: 'start' },
    gates,
    live,
    io,
    terminal,
    json,
    now,
  });
}

/**
 * `runs restart ID --from STEP` (event `restart-from`) or `runs decide ID GATE CHOICE` (event
 * `gate-decided`) of a run on a live backend: the stored run taken up again on a backend connected
 * again for it (its branch, and with Paseo its worktree, found again), driven as `run` drives a new one. Secret inputs are never stored, so they are given again (`restartSecrets`).
 */
export async function restartLive(
  args: ParsedArgs,
  stored: RunState,
  event: RunEvent,
  io: CommandIo,
  terminal: Terminal | undefined,
  connect: LiveBackendFactory,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const json = args.flags.has('json');
  const gates = gateFlags(args.flags.get('gate') ?? [], stored.ir);
  const now = Date.now;
  const { store, workspace } = openRoomFor(stored, io);
  const maskKey = loadMaskKey(store.home);
  const given = await restartSecrets(stored, args, io.cwd, env, terminal, maskKey, (text) =>
    io.stderr(`kairoku-playbook: ${text}\n`),
  );
  for (const name of given.changed)
    io.stderr(
      `kairoku-playbook: warning: secret input "${name}" is not the value run ${stored.id} started with; both are masked\n`,
    );
  const loaded = given.state;
  let live: LiveBackend;
  try {
    live = await connect({
      ir: loaded.ir,
      runId: loaded.id,
      branch: loaded.branch,
      cwd: loaded.workspace ?? workspace,
      log: (line) => io.stderr(`kairoku-playbook: ${forTerminal(line)}\n`),
    });
  } catch (error) {
    io.stderr(`kairoku-playbook: ${forTerminal((error as Error).message)}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
  const { archivedAt: _archived, ...state } = loaded;
  return driveRun({
    host: new RunHost({
      home: store.home,
      workspace: state.workspace ?? workspace,
      backend: live.backend.name,
      clock: now,
    }),
    state,
    event,
    secrets: given.secrets,
    gates,
    live,
    io,
    terminal,
    json,
    now,
  });
}

/** The factory of the live backend a run names. */
export function liveFactory(
  backend: 'paseo' | 'kairoku',
  args: ParsedArgs,
  env: NodeJS.ProcessEnv,
  cwd: string,
): LiveBackendFactory {
  return backend === 'paseo' ? paseoFactory(args, env, cwd) : kairokuFactory(args, env, cwd);
}

/**
 * The paseo backend for one run: the daemon, its password, the default provider and model
 * (`paseoOptions`: --paseo-host, --paseo-password-file, --paseo-provider, --paseo-model, and the
 * PASEO_HOST and PASEO_PASSWORD variables).
 */
function paseoFactory(args: ParsedArgs, env: NodeJS.ProcessEnv, cwd: string): LiveBackendFactory {
  const daemon = paseoOptions(args, env, cwd);
  const parentAgentId = flag(args, 'parent-agent');
  return async (request) => {
    const backend = await paseo.PaseoBackend.connect({
      ...daemon,
      cwd: request.cwd,
      workspace: request.ir.workspace,
      runId: request.runId,
      playbook: request.ir.id,
      branch: request.branch,
      ...(parentAgentId ? { parentAgentId } : {}),
      log: (level, message) => {
        if (level !== 'info' && level !== 'debug') request.log(message);
      },
    });
    return { backend, branch: request.branch, close: () => backend.close() };
  };
}

/**
 * The kairoku backend for one run: the runner routes on --listen (default 127.0.0.1:0), under the app
 * credential from $KAIROKU_APP_TOKEN, --app-token-file, or else the home's kairoku/token.env (made on
 * first use, mode 0600), which runners are given with --token-file. Dispatches go to runners of this
 * checkout (its real path is the repository's id), starting from its current branch.
 */
function kairokuFactory(args: ParsedArgs, env: NodeJS.ProcessEnv, cwd: string): LiveBackendFactory {
  const listen = flag(args, 'listen') ?? '127.0.0.1:0';
  const parsed = kairoku.parseHostPort(listen);
  if (!parsed)
    throw new UsageError(
      `--listen takes HOST:PORT ([::1]:PORT for IPv6; 127.0.0.1:0 picks a free port), not "${listen}"`,
    );
  const allowNonLoopback = args.flags.has('allow-remote-runners');
  const tokenFlag = flag(args, 'app-token-file');
  const token = appToken(env, tokenFlag === undefined ? undefined : resolve(cwd, tokenFlag));
  return async (request) => {
    // Judged by what the host resolves to (`0`, `0x0` and `[::]` are the wildcard), before anything
    // listens; a refusal is a usage error. The address it resolved to is what is bound.
    let address: string;
    try {
      address = await resolveBindAddress(parsed.host, {
        what: `--listen ${listen}`,
        allowNonLoopback,
        howToAllow: 'add --allow-remote-runners (the routes are behind the app credential, over plain HTTP)',
      });
    } catch (error) {
      throw new UsageError((error as Error).message, { cause: error });
    }
    const baseBranch = paseo.currentBranch(request.cwd) ?? 'HEAD';
    const backend = new kairoku.KairokuBackend({
      appToken: token.value,
      target: { repository: request.cwd, baseBranch },
      onFault: (text) => request.log(`kairoku: ${text}`),
    });
    const url = await backend.listen(address, parsed.port, { allowNonLoopback });
    request.log(
      `serving Kairoku runners at ${url}: kairoku-playbook runner --app ${url} --token-file ${token.file ?? '<a file with $KAIROKU_APP_TOKEN>'} --repo ${request.cwd}`,
    );
    return { backend, branch: request.branch, close: () => backend.close() };
  };
}

/** The app credential, and the file runners can read it from (none when it came from the environment). */
function appToken(
  env: NodeJS.ProcessEnv,
  file: string | undefined,
): { value: string; file: string | undefined } {
  if (env.KAIROKU_APP_TOKEN) return { value: env.KAIROKU_APP_TOKEN, file };
  const path = file ?? join(defaultHome(env), 'kairoku', 'token.env');
  if (file === undefined && !existsSync(path)) {
    mkdirSync(join(defaultHome(env), 'kairoku'), { recursive: true, mode: 0o700 });
    writeFileAtomic(path, `KAIROKU_TOKEN=${randomBytes(24).toString('base64url')}\n`);
  }
  const read = readTextBounded(path, FILE_LIMITS.small, 'a token file');
  if (read.problem !== undefined) throw new UsageError(`--app-token-file ${path}: ${read.message}`);
  const text = read.text;
  const value =
    /^\s*(?:export\s+)?KAIROKU_TOKEN\s*=\s*["']?([^"'\s]+)["']?\s*$/m.exec(text)?.[1] ?? text.trim();
  if (value.length < 16) throw new UsageError(`the app token in ${path} is shorter than 16 characters`);
  return { value, file: path };
}
