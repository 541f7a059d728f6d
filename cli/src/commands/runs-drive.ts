/**
 * `runs restart` and `runs decide`: a stored run set going again (a restart from a step, a gate
 * decided) and driven here on its own backend as `run` drives a new one, or through `serve`.
 */
import { RunHost, advance, forTerminal, loadMaskKey } from '@kairoku-playbook/runtime';
import type { RunEvent, RunState, RunStore } from '@kairoku-playbook/runtime';
import { flag } from '../args.js';
import type { ParsedArgs } from '../args.js';
import { UsageError } from '../io.js';
import type { CommandIo } from '../io.js';
import { LIVE_FLAGS, busyAsUsage, loadScenario, openRoomFor, refuseFlags, simDelay } from './run-common.js';
import { driveRun, gateFlags, simBackend } from './run-drive.js';
import { INPUT_FLAGS, restartSecrets } from './run-inputs.js';
import type { RestartSecrets } from './run-inputs.js';
import { load, workspaceServeOf, viaServe } from './runs-common.js';
import type { Terminal } from './terminal.js';

// ---- restart -----------------------------------------------------------------------------------

function restart(
  store: RunStore,
  stored: RunState,
  event: RunEvent,
  io: CommandIo,
  args: ParsedArgs,
  env: NodeJS.ProcessEnv,
  options: { json: boolean; scenario: string | undefined; delayMs: number | undefined; terminal?: Terminal },
): number | Promise<number> {
  const now = Date.now;
  const id = stored.id;
  // The host that drives the run here (`driveRun`) and writes it, from recovery on.
  const host = new RunHost({
    home: store.home,
    workspace: stored.workspace ?? '',
    backend: 'sim',
    clock: now,
  });
  // As `run` does: sim agents of a killed process are gone, so their steps are lost first (a run
  // another live process claims is left to it: its agents are at work there).
  const recovered = busyAsUsage(() => host.loseGone(() => false));
  for (const problem of recovered.problems)
    io.stderr(`kairoku-playbook: warning: cannot read ${problem.file}: ${problem.message}\n`);
  const loaded = load(store, id);
  if (loaded.backend !== 'sim')
    throw new UsageError(
      `run ${id} runs on the ${loaded.backend} backend; this build restarts sim runs only (use the manager's restart_run)`,
    );
  // A reopened run needs room as a new one does (one active run per workspace, limits.concurrency),
  // as a live run's restart does; the run itself is not counted (a decision on a run waiting at a gate).
  openRoomFor(loaded, io);
  const scenario = loadScenario(options.scenario, loaded.ir, io.cwd);
  const gates = gateFlags(args.flags.get('gate') ?? [], loaded.ir);
  const { terminal, json } = options;
  // Secrets are never stored: given again, or asked at the terminal (`restartSecrets`).
  const maskKey = loadMaskKey(store.home);
  const go = (given: RestartSecrets): number | Promise<number> => {
    for (const name of given.changed)
      io.stderr(
        `kairoku-playbook: warning: secret input "${name}" is not the value run ${id} started with; both are masked\n`,
      );
    const { archivedAt: _archived, ...state } = given.state;
    return driveRun({
      host,
      state,
      event,
      secrets: given.secrets,
      gates,
      live: simBackend({ scenario, delayMs: options.delayMs }),
      io,
      terminal,
      json,
      now,
    });
  };
  const given = restartSecrets(
    loaded,
    args,
    io.cwd,
    env,
    terminal,
    maskKey,
    (text) => io.stderr(`kairoku-playbook: ${text}\n`),
    scenario.inputs,
  );
  return given instanceof Promise ? given.then(go) : go(given);
}

// ---- decide ------------------------------------------------------------------------------------

/**
 * `runs decide ID GATE CHOICE [--comment TEXT]`: a gate a run waits at, decided. Through the `serve`
 * of the run's workspace when one is up (it drives the run on); refused while another process drives
 * the run (it asks at its own terminal); otherwise decided here, and the run driven on from there on its
 * own backend, as `run` drives it, to its end or its next gate.
 */
export function decide(
  store: RunStore,
  state: RunState,
  gate: string,
  choice: string,
  io: CommandIo,
  args: ParsedArgs,
  env: NodeJS.ProcessEnv,
  terminal: Terminal | undefined,
): number | Promise<number> {
  const comment = flag(args, 'comment');
  const serve = workspaceServeOf(store, state);
  if (serve) {
    refuseFlags(
      args,
      ['scenario', 'sim-delay', 'json', 'gate', ...Object.keys(INPUT_FLAGS), ...Object.keys(LIVE_FLAGS)],
      'does not apply while serve drives the run',
    );
    return viaServe(
      serve,
      state.id,
      `gates/${gate}`,
      comment === undefined ? { choice } : { choice, comment },
      io,
    );
  }
  const owner = store.owner(state.id);
  if (owner !== undefined) {
    io.stderr(
      `kairoku-playbook: run ${state.id} is driven by process ${owner}, which asks its gates at its own terminal: decide "${gate}" there (or cancel the run with kairoku-playbook runs cancel ${state.id})\n`,
    );
    return 1;
  }
  const event: RunEvent = {
    type: 'gate-decided',
    step: gate,
    choice,
    ...(comment !== undefined ? { comment } : {}),
  };
  // Checked before anything is connected or driven: a refused decision changes nothing.
  const refusal = advance(state, event, Date.now()).error;
  if (refusal !== undefined) {
    io.stderr(`kairoku-playbook: run ${state.id}: ${forTerminal(refusal)}\n`);
    return 1;
  }
  return driveOn(store, state, event, io, args, env, terminal);
}

export function isLiveBackend(backend: string): backend is 'paseo' | 'kairoku' {
  return backend === 'paseo' || backend === 'kairoku';
}

export function refuseLiveFlags(args: ParsedArgs): void {
  refuseFlags(
    args,
    Object.keys(LIVE_FLAGS).filter((name) => name !== 'gate'),
    'is for paseo and kairoku runs',
  );
}

/**
 * A stored run set going again by `event` (`runs restart`'s restart-from, `runs decide`'s
 * gate-decided) and driven here on its own backend, as `run` drives a new one. `terminal` is
 * undefined with --json (it asks nothing).
 */
export function driveOn(
  store: RunStore,
  state: RunState,
  event: RunEvent,
  io: CommandIo,
  args: ParsedArgs,
  env: NodeJS.ProcessEnv,
  terminal: Terminal | undefined,
): number | Promise<number> {
  const backend = state.backend;
  if (isLiveBackend(backend)) {
    refuseFlags(args, ['scenario', 'sim-delay'], 'is for sim runs only');
    return import('./run-live.js').then((live) =>
      live.restartLive(args, state, event, io, terminal, live.liveFactory(backend, args, env, io.cwd), env),
    );
  }
  refuseLiveFlags(args);
  return restart(store, state, event, io, args, env, {
    json: args.flags.has('json'),
    scenario: flag(args, 'scenario'),
    delayMs: simDelay(flag(args, 'sim-delay')),
    terminal,
  });
}
