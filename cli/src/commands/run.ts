import { realpathSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import type { Ir } from '@kairoku-playbook/compiler';
import { findServe, RunStore, defaultHome, prepareInputs } from '@kairoku-playbook/runtime';
import type { ServeInfo } from '@kairoku-playbook/runtime';
import { flag, oneOf, parseArgs } from '../args.js';
import type { ParsedArgs } from '../args.js';
import { UsageError } from '../io.js';
import { processLiveTerminal } from '../live-view.js';
import type { CommandIo } from '../io.js';
import { compileFile } from './compile.js';
import { INPUT_FLAGS, INPUT_HELP, askSecrets, givenInputs, missingSecrets } from './run-inputs.js';
import {
  LIVE_FLAGS,
  inputErrors,
  loadScenario,
  openRoom,
  printRunEnd,
  refuseFlags,
  simDelay,
  warnSecretsOnCommandLine,
} from './run-common.js';
import { driveRun, gateFlags, simBackend } from './run-drive.js';
import { PASEO_FLAGS_HELP } from './paseo-options.js';
import type { Terminal } from './terminal.js';

export const RUN_HELP = `Usage: kairoku-playbook run FILE [--input NAME=VALUE...] [--backend sim|paseo|kairoku] [--json]

Runs a playbook. Reported outcomes are applied as reported (autopilot).
- sim (the default) runs it without a model: step agents and checks report what the scenario
  scripts, or their first declared outcome with outputs made from their types. Scenarios and the
  --json output: docs/reference.md, "Scenarios and playbook tests".
- paseo runs each agent step as an agent of a Paseo daemon (PASEO_HOST, default 127.0.0.1:6767;
  its password from PASEO_PASSWORD or --paseo-password-file) and check steps' commands in the run's
  worktree. See docs/paseo.md.
- kairoku serves Kairoku runner daemons, which claim the run's steps (see docs/kairoku-protocol.md).
Gates are decided by the scenario (sim) or --gate, else asked at the terminal (a number or a name).
The tool never decides a human gate itself: with no terminal (or --json) the run waits at the gate,
its file whole, and the command says how to decide it (kairoku-playbook runs decide ID GATE CHOICE,
which drives the run on, or the panel of kairoku-playbook serve) and exits 3.
Ctrl-C cancels the run on every backend, stopping its agents (exit 130); a second Ctrl-C leaves at
once, the run's file already saying canceled.
On a terminal the run is drawn live, as the rows of its graph; otherwise (a pipe, a log, --json)
it prints one progress line per event.
The run is saved under $KAIROKU_PLAYBOOK_HOME/runs (default ~/.kairoku-playbook/runs); secret
inputs never reach it.

Options:
${INPUT_HELP}
                       Inputs given here win over the scenario's.
  --backend NAME       sim (default), paseo or kairoku
  --json               print the final run state as JSON and ask nothing
  -h, --help           this help
  --gate NAME=CHOICE[:COMMENT]
                       decide gate NAME with CHOICE each time it opens (repeatable); other gates
                       are asked at the terminal, and without one the run waits at them
sim:
  --scenario FILE      a scenario that scripts the sim backend
  --worktree DIR       the run's git worktree: each read-only role's turn (base reviewer, planner or
                       researcher) is checked with git, and a change fails the attempt; without it,
                       nothing is checked
  --sim-delay MS       each sim agent and check takes MS milliseconds, and the run is saved after
                       every event (for tests that need a run to last)
paseo and kairoku:
${PASEO_FLAGS_HELP}
  --parent-agent ID    a Paseo agent managing this run (paseo): step agents are labelled its
                       children (paseo.parent-agent-id)
  --listen HOST:PORT   where runners dial in (kairoku; default 127.0.0.1:0, a free port, said on
                       stderr with the runner's command line); loopback only, judged by what HOST
                       resolves to (the wildcard, 0.0.0.0 or ::, however spelled, is always refused)
  --allow-remote-runners
                       let --listen bind an interface other machines can reach (kairoku)
  --app-token-file F   the app credential runners present (kairoku; default $KAIROKU_APP_TOKEN, else
                       $KAIROKU_PLAYBOOK_HOME/kairoku/token.env, made on first use)

Exit codes: 0 the run completed; 1 the playbook has errors, or the run failed, was canceled or
could not go on; 2 usage errors and inputs that do not fit; 3 the run waits at a gate nobody here
could decide; 130 Ctrl-C (or SIGTERM) canceled the run.`;

export function runRun(
  argv: readonly string[],
  io: CommandIo,
  terminal: Terminal | undefined = processLiveTerminal(),
  env: NodeJS.ProcessEnv = process.env,
): number | Promise<number> {
  const args = parseArgs(
    argv,
    {
      ...INPUT_FLAGS,
      backend: 'string',
      scenario: 'string',
      json: 'boolean',
      help: 'boolean',
      'sim-delay': 'string',
      worktree: 'string',
      ...LIVE_FLAGS,
    },
    { h: 'help' },
  );
  if (args.flags.has('help')) {
    io.stdout(`${RUN_HELP}\n`);
    return 0;
  }
  const asked = flag(args, 'backend');
  const backend = oneOf(asked, ['sim', 'paseo', 'kairoku'] as const, 'backend', 'sim');
  // --json asks nothing: not a gate, not a secret.
  const asking = args.flags.has('json') ? undefined : terminal;
  const serve = findServe(defaultHome(env), realpathSync(io.cwd));
  if (serve) {
    // serve starts the workspace's runs on its own backend: a run asked for on another is refused
    // rather than started somewhere the command line did not say.
    const served = serve.backend ?? 'sim';
    if (asked !== undefined && backend !== served)
      throw new UsageError(
        `kairoku-playbook serve (process ${serve.pid}) drives this workspace's runs on ${served}: run it with --backend ${served} (or leave --backend out), or stop serve to run it on ${backend} here`,
      );
    return throughServe(serve, args, io, env, args.flags.has('json'));
  }
  if (backend !== 'sim') return runOnLiveBackend(backend, args, io, terminal, asking, env);
  return runOnSim(args, io, asking, env);
}

/** `run --backend paseo|kairoku`: the live backend's modules are loaded once the inputs fit. */
function runOnLiveBackend(
  backend: 'paseo' | 'kairoku',
  args: ParsedArgs,
  io: CommandIo,
  terminal: Terminal | undefined,
  asking: Terminal | undefined,
  env: NodeJS.ProcessEnv,
): number | Promise<number> {
  refuseFlags(args, ['scenario', 'sim-delay', 'worktree'], 'is for the sim backend only');
  const ir = compileFile(args.positionals, io, 'run');
  if (!ir) return 1;
  const given = givenInputs(args, ir, io.cwd, env);
  warnSecretsOnCommandLine(args, ir, io);
  return withSecretsAsked(ir, given, asking, (inputs) => {
    // Inputs are checked before anything is loaded or any daemon asked.
    const prepared = prepareInputs(ir, inputs);
    if (!prepared.ok) return inputErrors(ir, prepared.errors, io);
    // Loaded only here: the live backends bring ws, node:http and the MCP SDK's HTTP transport, which
    // every other command (check above all) would otherwise load at start.
    return import('./run-live.js').then((live) =>
      live.runLive(
        args,
        ir,
        prepared.inputs,
        io,
        terminal,
        backend,
        live.liveFactory(backend, args, env, io.cwd),
      ),
    );
  });
}

/** `run` on the sim backend: a scenario (or first outcomes) reports, and this process drives the run. */
function runOnSim(
  args: ParsedArgs,
  io: CommandIo,
  asking: Terminal | undefined,
  env: NodeJS.ProcessEnv,
): number | Promise<number> {
  refuseFlags(
    args,
    Object.keys(LIVE_FLAGS).filter((name) => name !== 'gate'),
    'is for the paseo and kairoku backends',
  );
  const json = args.flags.has('json');
  const delayMs = simDelay(flag(args, 'sim-delay'));
  const worktreeFlag = flag(args, 'worktree');
  const worktree = worktreeFlag === undefined ? undefined : resolve(io.cwd, worktreeFlag);
  const ir = compileFile(args.positionals, io, 'run');
  if (!ir) return 1;

  const scenario = loadScenario(flag(args, 'scenario'), ir, io.cwd);
  const gates = gateFlags(args.flags.get('gate') ?? [], ir);
  const given = givenInputs(args, ir, io.cwd, env);
  warnSecretsOnCommandLine(args, ir, io);
  return withSecretsAsked(ir, { ...scenario.inputs, ...given }, asking, (inputs) => {
    const prepared = prepareInputs(ir, inputs);
    if (!prepared.ok) return inputErrors(ir, prepared.errors, io);
    const now = Date.now;
    // Sim agents live in this process only: runs a killed sim process left behind lose theirs.
    const { host } = openRoom(ir, io, 'sim', () => false, now);
    // The host creates the run (the room checked again under the store's lock) and drives it;
    // secret inputs stay in its memory.
    return driveRun({
      host,
      create: { ir, inputs: prepared.inputs },
      event: { type: 'start' },
      gates,
      live: simBackend({ scenario, delayMs, worktree }),
      io,
      terminal: asking,
      json,
      now,
    });
  });
}

/**
 * `run` while a `serve` owns this workspace (docs/serve.md): the run is started through it, which drives
 * it and is the only writer of its file; this command follows it to its end and prints it as usual.
 * Sim-only flags would script a run this process does not drive, so they are refused.
 */
function throughServe(
  serve: ServeInfo,
  args: ParsedArgs,
  io: CommandIo,
  env: NodeJS.ProcessEnv,
  json: boolean,
): number | Promise<number> {
  refuseFlags(
    args,
    ['scenario', 'sim-delay', 'worktree', ...Object.keys(LIVE_FLAGS)],
    `does not apply while kairoku-playbook serve (process ${serve.pid}) drives this workspace's runs`,
  );
  const ir = compileFile(args.positionals, io, 'run');
  if (!ir) return 1;
  const file = realpathSync(resolve(io.cwd, args.positionals[0]!));
  const playbook = relative(serve.workspace, file).split(sep).join('/');
  if (playbook.startsWith('..'))
    throw new UsageError(
      `${args.positionals[0]} is outside the workspace ${serve.workspace} that serve owns`,
    );
  const inputs = givenInputs(args, ir, io.cwd, env);
  warnSecretsOnCommandLine(args, ir, io);
  const store = new RunStore(defaultHome(env));
  return import('./serve-client.js').then((client) =>
    client.runThroughServe(serve, playbook, inputs, io, json, (id) => {
      const state = store.load(id)!;
      printRunEnd(state, json, io);
      return state.status === 'completed' ? 0 : 1;
    }),
  );
}

/**
 * Goes on with the inputs given, and the required secret inputs they lack asked at the terminal
 * first (without echo); synchronous when nothing is asked.
 */
function withSecretsAsked(
  ir: Ir,
  given: Record<string, unknown>,
  terminal: Terminal | undefined,
  go: (inputs: Record<string, unknown>) => number | Promise<number>,
): number | Promise<number> {
  const missing = missingSecrets(ir, given);
  if (!missing.length || !terminal?.askSecret) return go(given);
  return askSecrets(ir, missing, terminal).then((asked) => go({ ...given, ...asked }));
}
