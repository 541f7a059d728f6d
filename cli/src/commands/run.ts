import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import type { Ir } from '@kairoku-playbook/compiler';
import {
  describeRoomConflict,
  findRoomConflict,
  findServe,
  RunStore,
  defaultHome,
  forTerminal,
  loadMaskKey,
  prepareInputs,
  readScenario,
  recoverRuns,
  runSim,
  advance,
  summarize,
  toText,
  vecSlice,
} from '@kairoku-playbook/runtime';
import type {
  OpenGate,
  Refusal,
  RunState,
  Scenario,
  ScriptedDecision,
  ServeInfo,
} from '@kairoku-playbook/runtime';
import { flag, oneOf, parseArgs } from '../args.js';
import type { ParsedArgs } from '../args.js';
import { UsageError, readScenarioFile } from '../io.js';
import { LiveView, isLiveTerminal, processLiveTerminal, progressLine } from '../live-view.js';
import type { CommandIo } from '../io.js';
import { compileFile } from './compile.js';
import {
  INPUT_FLAGS,
  INPUT_HELP,
  askSecrets,
  commandLineWarning,
  givenInputs,
  missingSecrets,
  secretHint,
  secretsOnCommandLine,
} from './run-inputs.js';
import type { Terminal } from './terminal.js';

export { progressLine };

export const RUN_HELP = `Usage: kairoku-playbook run FILE [--input NAME=VALUE...] [--backend sim|paseo|kairoku] [--json]

Runs a playbook. Reported outcomes are applied as reported (autopilot).
- sim (the default) runs it without a model: step agents and checks report what the scenario
  scripts, or their first declared outcome with outputs made from their types. Gates the scenario
  does not decide are asked at the terminal, or take their first choice without one. Scenarios and
  the --json output: docs/reference.md, "Scenarios and playbook tests".
- paseo runs each agent step as an agent of a Paseo daemon (PASEO_HOST, default 127.0.0.1:6767;
  its password from PASEO_PASSWORD) and check steps' commands in the run's worktree. See docs/paseo.md.
- kairoku serves Kairoku runner daemons, which claim the run's steps (see docs/kairoku-protocol.md).
With paseo and kairoku, gates are asked at the terminal (or decided by --gate), and Ctrl-C cancels
the run, stopping its agents.
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
sim:
  --scenario FILE      a scenario that scripts the sim backend
  --worktree DIR       the run's git worktree: each read-only role's turn (base reviewer, planner or
                       researcher) is checked with git, and a change fails the attempt; without it,
                       nothing is checked
  --sim-delay MS       each sim agent and check takes MS milliseconds, and the run is saved after
                       every event (for tests that need a run to last)
paseo and kairoku:
  --gate NAME=CHOICE[:COMMENT]
                       decide gate NAME with CHOICE each time it opens (repeatable); other gates
                       are asked at the terminal, and without one the run is canceled, saying why
  --paseo-host HOST:PORT
                       the Paseo daemon (default $PASEO_HOST, else 127.0.0.1:6767)
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
could not go on; 2 usage errors and inputs that do not fit.`;

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
  const backend = oneOf(flag(args, 'backend'), ['sim', 'paseo', 'kairoku'] as const, 'backend', 'sim');
  // --json asks nothing: not a gate, not a secret.
  const asking = args.flags.has('json') ? undefined : terminal;
  if (backend !== 'sim') {
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
  refuseFlags(args, Object.keys(LIVE_FLAGS), 'is for the paseo and kairoku backends');
  const json = args.flags.has('json');
  const serve = findServe(defaultHome(env), realpathSync(io.cwd));
  if (serve) return throughServe(serve, args, io, env, json);
  const delayMs = simDelay(flag(args, 'sim-delay'));
  const worktreeFlag = flag(args, 'worktree');
  const worktree = worktreeFlag === undefined ? undefined : resolve(io.cwd, worktreeFlag);
  const ir = compileFile(args.positionals, io, 'run');
  if (!ir) return 1;

  const scenario = loadScenario(flag(args, 'scenario'), ir, io.cwd);
  const given = givenInputs(args, ir, io.cwd, env);
  warnSecretsOnCommandLine(args, ir, io);
  return withSecretsAsked(ir, { ...scenario.inputs, ...given }, asking, (inputs) => {
    const now = Date.now;
    // Sim agents live in this process only: runs a killed sim process left behind lose theirs.
    const { store, id, workspace } = openRoom(ir, io, 'sim', () => false, now);

    const { interactive, progress, view } = runDisplay(json, terminal, io, now);
    const result = runSim({
      ir,
      scenario,
      inputs,
      id,
      workspace,
      clock: now,
      persist: (state) => store.save(state),
      maskKey: loadMaskKey(store.home),
      ...(delayMs ? { delayMs } : {}),
      ...(worktree !== undefined ? { worktree } : {}),
      ...(view
        ? { onTransition: (_before: RunState, after: RunState) => view.update(after) }
        : progress
          ? {
              onTransition: (before: RunState, after: RunState) => {
                for (const entry of vecSlice(after.history, before.history.size))
                  progress(`${progressLine(entry)}\n`);
              },
            }
          : {}),
      ...(interactive ? { askGate: (gate: OpenGate) => askGateLive(gate, interactive, view) } : {}),
    });
    if (!result.ok) {
      view?.close();
      return inputErrors(ir, result.inputErrors, io);
    }

    const state = settleSimRun(result.state, result.refusals, store, io, now);
    if (view) {
      view.update(state);
      view.close();
    }
    printRunEnd(state, json, io, interactive);
    return state.status === 'completed' ? 0 : 1;
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
    ['scenario', 'sim-delay', 'worktree'],
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

export function warnSecretsOnCommandLine(args: ParsedArgs, ir: Ir, io: CommandIo): void {
  for (const name of secretsOnCommandLine(args, ir))
    io.stderr(`kairoku-playbook: ${commandLineWarning(name)}\n`);
}

/** Inputs that do not fit: each error, and for a missing secret how to give it (exit 2). */
export function inputErrors(ir: Ir, errors: readonly string[], io: CommandIo): number {
  for (const error of errors) io.stderr(`kairoku-playbook: ${forTerminal(error)}\n`);
  const hint = secretHint(ir, errors);
  if (hint) io.stderr(`kairoku-playbook: ${hint}\n`);
  return 2;
}

/**
 * How a run is shown: drawn live on a terminal that can be drawn on, one progress line per event on
 * fake terminals and pipes, nothing with --json (which asks nothing either).
 */
export function runDisplay(
  json: boolean,
  terminal: Terminal | undefined,
  io: CommandIo,
  now: () => number,
): {
  /** the terminal to ask at (undefined with --json or without one) */
  interactive: Terminal | undefined;
  progress: ((text: string) => void) | undefined;
  view: LiveView | undefined;
} {
  const interactive = json ? undefined : terminal;
  const progress = json ? undefined : interactive ? interactive.write : io.stdout;
  const view =
    interactive && isLiveTerminal(interactive)
      ? new LiveView(interactive, {
          color: io.color,
          columns: interactive.screen.columns,
          rows: interactive.screen.rows,
          now,
        })
      : undefined;
  return { interactive, progress, view };
}

/** The flags of the live backends, shared by `run` and `runs restart`. */
export const LIVE_FLAGS = {
  gate: 'string',
  'paseo-host': 'string',
  'parent-agent': 'string',
  listen: 'string',
  'allow-remote-runners': 'boolean',
  'app-token-file': 'string',
} as const;

/** Flags that do not apply (a sim flag on a live backend, or the reverse) are usage errors. */
export function refuseFlags(args: ParsedArgs, names: readonly string[], why: string): void {
  for (const name of names) if (args.flags.has(name)) throw new UsageError(`--${name} ${why}`);
}

/**
 * The store, with runs a killed process left behind recovered (`agentExists` answers for their
 * agents), the room checked (one active run per workspace, limits.concurrency per playbook), and a
 * fresh run id.
 */
export function openRoom(
  ir: Ir,
  io: CommandIo,
  backend: string,
  agentExists: (agent: string | undefined) => boolean,
  now: () => number,
): { store: RunStore; id: string; workspace: string } {
  const store = new RunStore(defaultHome());
  const recovered = recoverRuns(store, { backend, agentExists, now: now() });
  for (const problem of recovered.problems)
    io.stderr(`kairoku-playbook: warning: cannot read ${problem.file}: ${problem.message}\n`);
  const workspace = realpathSync(io.cwd);
  const conflict = findRoomConflict(recovered.runs, ir, workspace);
  if (conflict) throw new UsageError(describeRoomConflict(conflict, ir, 'kairoku-playbook runs cancel'));
  let id: string;
  do id = `${ir.id}-${randomBytes(3).toString('hex')}`;
  while (store.exists(id));
  return { store, id, workspace };
}

/**
 * The store and room for reopening `state` (a restart): the same checks as a new run's, with the run
 * itself left out of the count.
 */
export function openRoomFor(state: RunState, io: CommandIo): { store: RunStore; workspace: string } {
  const store = new RunStore(defaultHome());
  const { runs } = store.loadAll();
  const workspace = state.workspace ?? realpathSync(io.cwd);
  const conflict = findRoomConflict(runs, state.ir, workspace, state.id);
  if (conflict)
    throw new UsageError(describeRoomConflict(conflict, state.ir, 'kairoku-playbook runs cancel'));
  return { store, workspace };
}

/** `--sim-delay MS`: a whole number of milliseconds, at most a minute. */
export function simDelay(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = Number(text);
  if (!/^\d+$/.test(text) || ms > 60_000)
    throw new UsageError(`--sim-delay takes milliseconds (0 to 60000), not "${text}"`);
  return ms;
}

/**
 * Where a sim run stopped: nothing else drives it, so a run still going is canceled, saying why
 * (a refused scripted event, a gate left open); refusals of a run that ended are warned about.
 */
export function settleSimRun(
  state: RunState,
  refusals: readonly Refusal[],
  store: RunStore,
  io: CommandIo,
  now: () => number,
): RunState {
  if (state.status === 'running' || state.status === 'paused') {
    // Nothing else drives a sim run: say why it stopped, and cancel it rather than leave it hanging.
    const why = refusals.length
      ? refusals.map(
          (r) => `${r.event.type} ${'step' in r.event ? r.event.step : ''} was refused: ${r.error}`,
        )
      : openGates(state).map((name) => `gate "${name}" was left open`);
    for (const line of why) io.stderr(`kairoku-playbook: ${forTerminal(line)}\n`);
    const canceled = advance(
      state,
      { type: 'cancel', reason: `the sim run could not go on: ${why.join('; ')}` },
      now(),
    );
    state = canceled.state;
    store.save(state);
  } else {
    for (const refusal of refusals)
      io.stderr(`kairoku-playbook: ${refusal.event.type} was refused: ${forTerminal(refusal.error)}\n`);
  }
  return state;
}

/**
 * The end of a run as `run` prints it: the SPEC §8 JSON (as the run holds it), or its status, reason
 * and outputs made safe for a terminal (they may quote agents).
 */
export function printRunEnd(state: RunState, json: boolean, io: CommandIo, terminal?: Terminal): void {
  if (json) io.stdout(`${JSON.stringify(summarize(state), null, 2)}\n`);
  else {
    const out = terminal ? terminal.write : io.stdout;
    const outputs = Object.entries(state.outputs ?? {});
    const text = `run ${state.id} ${state.status}${state.reason ? `: ${state.reason}` : ''}\n${
      outputs.length ? `outputs:\n${outputs.map(([k, v]) => `  ${k}: ${toText(v)}\n`).join('')}` : ''
    }`;
    out(forTerminal(text));
  }
}

export function loadScenario(file: string | undefined, ir: Ir, cwd: string): Scenario {
  const { scenario, errors } = readScenario(readScenarioFile(file, cwd), ir);
  if (errors.length) throw new UsageError(`scenario ${file}: ${errors.join(`\n  `)}`);
  return scenario;
}

function openGates(state: RunState): string[] {
  return Object.entries(summarize(state).steps)
    .filter(([, s]) => s.status === 'waiting')
    .map(([name]) => name);
}

/** A gate asked below the live view, which stops drawing while the prompt is open. */
function askGateLive(
  gate: OpenGate,
  terminal: Terminal,
  view: LiveView | undefined,
): ScriptedDecision | undefined {
  view?.pause();
  try {
    return askGate(gate, terminal);
  } finally {
    view?.resume();
  }
}

/** Asks a gate at the terminal: its choices, then a comment when the choice takes one. */
export function askGate(gate: OpenGate, terminal: Terminal): ScriptedDecision | undefined {
  const dialogue = new GateDialogue(gate);
  terminal.write(dialogue.intro());
  for (;;) {
    const answer = terminal.ask(dialogue.prompt());
    if (answer === undefined) return endOfInput(terminal);
    const step = dialogue.answer(answer);
    if ('decision' in step) return step.decision;
    if (step.say) terminal.write(step.say);
  }
}

/** The same dialogue without blocking the event loop, for runs whose agents answer meanwhile. */
export async function askGateAsync(
  gate: OpenGate,
  terminal: Terminal,
  signal: AbortSignal,
): Promise<ScriptedDecision | undefined> {
  const dialogue = new GateDialogue(gate);
  terminal.write(dialogue.intro());
  for (;;) {
    const answer = terminal.askAsync
      ? await terminal.askAsync(dialogue.prompt(), signal)
      : terminal.ask(dialogue.prompt());
    if (signal.aborted) return undefined;
    if (answer === undefined) return endOfInput(terminal);
    const step = dialogue.answer(answer);
    if ('decision' in step) return step.decision;
    if (step.say) terminal.write(step.say);
  }
}

/**
 * Deciding a gate at a prompt, as a state machine: the choice, then a comment when the choice takes
 * one; a wrong choice or a missing required comment is said and asked again. Each `answer` says what
 * to write and what comes next, so the synchronous (sim) and asynchronous (live) prompts share it.
 */
export class GateDialogue {
  private chosen: OpenGate['choices'][number] | undefined;

  constructor(private readonly gate: OpenGate) {}

  /** The gate as the terminal shows it; its title and summary may be rendered from agents' outputs. */
  intro(): string {
    const listed = this.gate.choices
      .map(
        (c) =>
          `${c.name}${c.label ? ` (${c.label})` : ''}${c.comment === 'required' ? ' [comment required]' : ''}`,
      )
      .join(', ');
    return forTerminal(
      `\n? ${this.gate.step}: ${forTerminal(this.gate.title, { oneLine: true })}\n${this.gate.summary ? `  ${this.gate.summary}\n` : ''}  choices: ${listed}\n`,
    );
  }

  prompt(): string {
    if (!this.chosen) return 'choice> ';
    return this.chosen.comment === 'required' ? 'comment> ' : 'comment (optional)> ';
  }

  answer(text: string): { decision: ScriptedDecision } | { say?: string } {
    const typed = text.trim();
    if (!this.chosen) {
      const choice = this.gate.choices.find((c) => c.name === typed);
      if (!choice)
        return {
          say: `  "${forTerminal(typed, { oneLine: true })}" is not a choice; type one of ${this.gate.choices.map((c) => c.name).join(', ')}\n`,
        };
      if (choice.comment === 'none') return { decision: { choice: choice.name } };
      this.chosen = choice;
      return {};
    }
    if (typed || this.chosen.comment === 'optional')
      return { decision: { choice: this.chosen.name, comment: typed } };
    return { say: `  choice "${this.chosen.name}" needs a comment\n` };
  }
}

/** End of input at a prompt: the gate stays open (and the sim run, which nothing else drives, is canceled). */
function endOfInput(terminal: Terminal): undefined {
  terminal.write('\n');
  return undefined;
}
