/* eslint-disable max-lines -- over the bound when the rule came in (2026-12-06): to be split, issue 22 */
import {
  RunHost,
  RunStore,
  allSteps,
  defaultHome,
  findServe,
  forTerminal,
  isEnded,
  loadMaskKey,
  advance,
  summarize,
  toText,
  vecSlice,
} from '@kairoku-playbook/runtime';
import type {
  Operation,
  OperatorRequest,
  RunEvent,
  RunState,
  ServeInfo,
  StepRun,
} from '@kairoku-playbook/runtime';
import { closest } from '@kairoku-playbook/grammar';
import { flag, parseArgs } from '../args.js';
import type { ParsedArgs } from '../args.js';
import { UsageError } from '../io.js';
import { progressLine } from '../live-view.js';
import type { CommandIo } from '../io.js';
import { LIVE_FLAGS, busyAsUsage, loadScenario, openRoomFor, refuseFlags, simDelay } from './run-common.js';
import { driveRun, gateFlags, simBackend } from './run-drive.js';
import { INPUT_FLAGS, restartSecrets } from './run-inputs.js';
import type { RestartSecrets } from './run-inputs.js';
import type { operateThroughServe as OperateThroughServe } from './serve-client.js';
import { processTerminal } from './terminal.js';
import type { Terminal } from './terminal.js';

export const RUNS_HELP = `Usage: kairoku-playbook runs [list] [--all] [--json]
       kairoku-playbook runs show ID [--json]
       kairoku-playbook runs cancel ID [--reason TEXT]
       kairoku-playbook runs pause ID | runs resume ID
       kairoku-playbook runs restart ID --from STEP [--input-env NAME=VAR | --input-file FILE ...]
                                     [--scenario FILE] [--json]
       kairoku-playbook runs decide ID GATE CHOICE [--comment TEXT]
       kairoku-playbook runs archive ID

The runs saved under $KAIROKU_PLAYBOOK_HOME/runs (default ~/.kairoku-playbook/runs).

Commands:
  list                 id, playbook, status, start time and steps done/total of each run, active
                       ones first; archived runs only with --all
  show ID              a run's steps with their status, attempts and outcomes, its loops, outputs
                       and last history entries; --json prints the run as \`run --json\` does
  cancel ID            cancels a running or paused run (on an ended run, its running after-tasks);
                       a run another process is driving is asked to cancel
  pause ID             pauses a running run: running steps finish their turn, nothing new starts,
                       wake-ups are held (a run another process drives is asked)
  resume ID            resumes a paused run
  restart ID           reopens an ended run from a step whose needs completed (--from STEP), then
                       runs it on its own backend as \`run\` does: sim (--scenario scripts its
                       agents), paseo (the daemon from --paseo-host or $PASEO_HOST) or kairoku
                       (runners dial in at --listen)
  decide ID GATE CHOICE
                       decides a gate the run waits at (one \`run\` left open: no terminal, no
                       --gate), then drives the run on from there as \`run\` does, to its end or its
                       next gate; through \`serve\` when one owns the run's workspace (it drives on)
  archive ID           hides an ended run from \`list\` (\`list --all\` still shows it)

Options:
  --all                list: include archived runs
  --json               list, show, restart, decide: JSON
  --from STEP          restart: the step to restart from
  --comment TEXT       decide: the decision's comment (a choice may require one)
  --scenario FILE      restart, decide: a scenario that scripts the sim backend
  --sim-delay MS       restart, decide: each sim agent and check takes MS milliseconds
  --input-env NAME=VAR, --input-file FILE, --input NAME=VALUE
                       restart, decide: the run's secret inputs, given again (they are never stored); on a
                       terminal, those not given are asked for without echo. A value other than the
                       one the run started with is taken (both are masked), with a warning
  --gate NAME=CHOICE   restart, decide: decide a gate without asking, each time it opens
  --paseo-host, --paseo-password-file, --paseo-provider, --paseo-model,
  --parent-agent, --listen, --app-token-file
                       restart, decide: as for \`run\`
  --reason TEXT        cancel: why (recorded in the run's history)
  -h, --help           this help

Exit codes: 0 done (restart, decide: the run completed); 1 refused (the run's rules do not allow
it) or, after restart or decide, the run did not complete; 2 usage errors and unknown runs; 3 the
run waits at a gate nobody here decided (as for \`run\`); 130 Ctrl-C canceled the run.`;

const SUBCOMMANDS = ['list', 'show', 'cancel', 'pause', 'resume', 'restart', 'decide', 'archive'] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

// eslint-disable-next-line max-lines-per-function -- over the bound when the rule came in (2026-12-06): to be split, issue 22
export function runRuns(
  argv: readonly string[],
  io: CommandIo,
  terminal: Terminal | undefined = processTerminal(),
  env: NodeJS.ProcessEnv = process.env,
): number | Promise<number> {
  const args = parseArgs(
    argv,
    {
      all: 'boolean',
      json: 'boolean',
      from: 'string',
      scenario: 'string',
      reason: 'string',
      comment: 'string',
      help: 'boolean',
      'sim-delay': 'string',
      ...INPUT_FLAGS,
      ...LIVE_FLAGS,
    },
    { h: 'help' },
  );
  if (args.flags.has('help')) {
    io.stdout(`${RUNS_HELP}\n`);
    return 0;
  }
  const [first = 'list', ...rest] = args.positionals;
  if (!(SUBCOMMANDS as readonly string[]).includes(first)) {
    const suggestion = closest(first, [...SUBCOMMANDS]);
    throw new UsageError(
      `unknown runs command "${first}"${suggestion ? `; did you mean "${suggestion}"?` : ''}; the commands are ${SUBCOMMANDS.join(', ')}`,
    );
  }
  const sub = first as Subcommand;
  const allowed: Record<Subcommand, string[]> = {
    list: ['all', 'json'],
    show: ['json'],
    cancel: ['reason'],
    pause: [],
    resume: [],
    restart: [
      'from',
      'scenario',
      'json',
      'sim-delay',
      ...Object.keys(INPUT_FLAGS),
      ...Object.keys(LIVE_FLAGS),
    ],
    decide: [
      'comment',
      'scenario',
      'json',
      'sim-delay',
      ...Object.keys(INPUT_FLAGS),
      ...Object.keys(LIVE_FLAGS),
    ],
    archive: [],
  };
  for (const name of args.flags.keys())
    if (!allowed[sub].includes(name)) throw new UsageError(`runs ${sub} takes no --${name}`);
  const store = new RunStore(defaultHome());
  const json = args.flags.has('json');
  if (sub === 'list') {
    if (rest.length) throw new UsageError(`runs list takes no arguments, not "${rest[0]}"`);
    return list(store, io, args.flags.has('all'), json);
  }
  if (sub === 'decide') {
    if (rest.length !== 3)
      throw new UsageError(
        'runs decide takes a run id, a gate and a choice: kairoku-playbook runs decide ID GATE CHOICE [--comment TEXT]',
      );
    const [id, gate, choice] = rest as [string, string, string];
    return decide(store, load(store, id), gate, choice, io, args, env, json ? undefined : terminal);
  }
  if (rest.length !== 1)
    throw new UsageError(`runs ${sub} takes one run id; see kairoku-playbook runs --help`);
  const id = rest[0]!;
  switch (sub) {
    case 'show':
      return show(load(store, id), io, json);
    case 'cancel':
      return cancel(store, load(store, id), io, flag(args, 'reason'));
    case 'pause':
    case 'resume':
      return pauseOrResume(store, load(store, id), io, sub);
    case 'archive':
      return archive(store, load(store, id), io);
    case 'restart': {
      const from = flag(args, 'from');
      if (from === undefined) throw new UsageError('runs restart needs --from STEP');
      const loaded = load(store, id);
      const event: RunEvent = { type: 'restart-from', step: from };
      if (!isLiveBackend(loaded.backend)) {
        refuseLiveFlags(args);
        const serve = serveOf(store, loaded);
        if (serve) {
          // The serve of the run's workspace drives it: it restarts it, and its gates wait there.
          refuseFlags(
            args,
            ['scenario', 'sim-delay', 'json', 'gate'],
            'does not apply while serve drives the run',
          );
          return operateThroughServe(serve, id, 'restart', { step: from }, io);
        }
      }
      return driveOn(store, loaded, event, io, args, env, json ? undefined : terminal);
    }
  }
}

function load(store: RunStore, id: string): RunState {
  let state: RunState | undefined;
  try {
    state = store.load(id);
  } catch (error) {
    throw new UsageError(`cannot read run ${id}: ${(error as Error).message}`);
  }
  if (state) return state;
  const ids = store.loadAll().runs.map((r) => r.id);
  const suggestion = closest(id, ids);
  throw new UsageError(
    `no run "${id}" in ${store.folder}${suggestion ? `; did you mean "${suggestion}"?` : ''}`,
  );
}

function warnProblems(store: RunStore, io: CommandIo): RunState[] {
  const { runs, problems } = store.loadAll();
  for (const problem of problems)
    io.stderr(`kairoku-playbook: warning: cannot read ${problem.file}: ${problem.message}\n`);
  return runs;
}

// ---- list --------------------------------------------------------------------------------------

interface ListedRun {
  id: string;
  playbook: string;
  status: RunState['status'];
  startedAt: string | null;
  endedAt: string | null;
  steps: { done: number; total: number };
  archivedAt?: string;
}

function list(store: RunStore, io: CommandIo, all: boolean, json: boolean): number {
  const runs = warnProblems(store, io)
    .filter((r) => all || !r.archivedAt)
    .sort(
      (a, b) =>
        Number(isEnded(a.status)) - Number(isEnded(b.status)) || b.createdAt.localeCompare(a.createdAt),
    );
  const listed: ListedRun[] = runs.map((r) => {
    const entry: ListedRun = {
      id: r.id,
      playbook: r.playbook,
      status: r.status,
      startedAt: r.startedAt,
      endedAt: r.endedAt,
      steps: { done: r.settled, total: r.steps.size },
    };
    if (r.archivedAt) entry.archivedAt = r.archivedAt;
    return entry;
  });
  if (json) {
    io.stdout(`${JSON.stringify(listed, null, 2)}\n`);
    return 0;
  }
  if (!listed.length) {
    io.stdout(all ? 'no runs\n' : 'no runs (archived ones are listed with --all)\n');
    return 0;
  }
  const rows = [
    ['ID', 'PLAYBOOK', 'STATUS', 'STARTED', 'STEPS'],
    ...listed.map((r) =>
      [
        r.id,
        r.playbook,
        r.archivedAt ? `${r.status} (archived)` : r.status,
        r.startedAt ?? '-',
        `${r.steps.done}/${r.steps.total}`,
        // A run file is read as it is on disk: nothing in it reaches the terminal raw.
      ].map((cell) => forTerminal(cell, { oneLine: true })),
    ),
  ];
  io.stdout(table(rows));
  return 0;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '),
    )
    .join('\n')
    .concat('\n');
}

// ---- show --------------------------------------------------------------------------------------

const HISTORY_SHOWN = 15;

function show(state: RunState, io: CommandIo, json: boolean): number {
  if (json) {
    io.stdout(`${JSON.stringify(summarize(state), null, 2)}\n`);
    return 0;
  }
  const lines: string[] = [];
  lines.push(`run ${state.id}: ${state.playbook} (${state.title})`);
  lines.push(`status: ${state.status}${state.reason ? ` (${state.reason})` : ''}`);
  lines.push(`backend: ${state.backend}${state.branch ? `, branch ${state.branch}` : ''}`);
  lines.push(
    `started: ${state.startedAt ?? '-'}${state.endedAt ? `, ended: ${state.endedAt}` : ''}${state.archivedAt ? `, archived: ${state.archivedAt}` : ''}`,
  );
  lines.push(`steps (${state.settled}/${state.steps.size} done):`);
  for (const run of allSteps(state)) lines.push(...stepLines(run));
  if (state.after.length) {
    lines.push('after:');
    for (const run of state.after) lines.push(...stepLines(run));
  }
  const loops = Object.entries(state.loops).filter(([, n]) => n > 0);
  if (loops.length) lines.push(`loops: ${loops.map(([k, n]) => `${k}=${n}`).join(', ')}`);
  const outputs = Object.entries(state.outputs ?? {});
  if (outputs.length) {
    lines.push('outputs:');
    for (const [name, value] of outputs) lines.push(`  ${name}: ${toText(value)}`);
  }
  const history = vecSlice(state.history, state.history.size - HISTORY_SHOWN);
  lines.push(`history (last ${history.length} of ${state.history.size}):`);
  for (const entry of history) lines.push(`  ${entry.at} ${progressLine(entry)}`);
  // Reasons, outputs, gate titles and history quote agents: shown without their control sequences
  // (`--json` and the run file keep them as they are).
  io.stdout(`${forTerminal(lines.join('\n'))}\n`);
  return 0;
}

function stepLines(run: StepRun): string[] {
  const attempts = run.attempts.map((a) => a.outcome ?? a.ended ?? (a.endedAt ? 'ended' : 'open'));
  const head = `  ${run.name.padEnd(12)} ${run.status.padEnd(9)}`;
  const tried = attempts.length
    ? ` ${attempts.length} attempt${attempts.length === 1 ? '' : 's'}: ${attempts.join(', ')}`
    : '';
  const lines = [`${head}${tried}${run.reason ? ` (${run.reason})` : ''}`.trimEnd()];
  if (run.gate) lines.push(`    gate open: ${run.gate.title}`);
  return lines;
}

// ---- cancel, archive ---------------------------------------------------------------------------

/** An operation through the serve (its client brings node:http: loaded only then). */
function operateThroughServe(...args: Parameters<typeof OperateThroughServe>): Promise<number> {
  return import('./serve-client.js').then((client) => client.operateThroughServe(...args));
}

/** The `serve` that owns the run's workspace, when one is up: operations then go through it. */
function serveOf(store: RunStore, state: RunState): ServeInfo | undefined {
  return state.workspace === undefined ? undefined : findServe(store.home, state.workspace);
}

function cancel(
  store: RunStore,
  state: RunState,
  io: CommandIo,
  reason: string | undefined,
): number | Promise<number> {
  return operate(store, state, io, reason === undefined ? { type: 'cancel' } : { type: 'cancel', reason });
}

/** Pauses or resumes a run. */
function pauseOrResume(
  store: RunStore,
  state: RunState,
  io: CommandIo,
  what: 'pause' | 'resume',
): number | Promise<number> {
  return operate(store, state, io, { type: what });
}

/**
 * An operator's event on a run: through the `serve` of its workspace when one is up (it hosts the
 * run); otherwise the run host's one `operate` routes it (asked of the live process driving it, or
 * applied in place with its effects saved on the run for its next host).
 */
function operate(
  store: RunStore,
  state: RunState,
  io: CommandIo,
  event: OperatorRequest,
): number | Promise<number> {
  const serve = serveOf(store, state);
  if (serve)
    return operateThroughServe(
      serve,
      state.id,
      event.type,
      event.type === 'cancel' && event.reason !== undefined ? { reason: event.reason } : {},
      io,
    );
  const operation: Operation =
    event.type === 'cancel'
      ? { type: 'cancel', reason: event.reason ?? 'canceled by kairoku-playbook runs cancel' }
      : event;
  let asked: number | undefined;
  const result = withHostOf(store, state, (host) =>
    host.operate(state.id, operation, (owner) => (asked = owner)),
  );
  if (!result.ok) {
    if (result.refusal.kind === 'not-found') throw new UsageError(result.refusal.message);
    io.stderr(`kairoku-playbook: run ${state.id}: ${forTerminal(result.refusal.message)}\n`);
    return 1;
  }
  if (asked !== undefined)
    io.stdout(`run ${state.id}: asked process ${asked}, which is driving it, to ${event.type} it\n`);
  else io.stdout(`run ${state.id} ${result.value.status}\n`);
  return 0;
}

function archive(store: RunStore, state: RunState, io: CommandIo): number | Promise<number> {
  const serve = serveOf(store, state);
  if (serve) return operateThroughServe(serve, state.id, 'archive', {}, io);
  if (state.archivedAt) {
    io.stdout(`run ${state.id} was already archived at ${state.archivedAt}\n`);
    return 0;
  }
  const archived = withHostOf(store, state, (host) => host.operate(state.id, { type: 'archive' }));
  if (!archived.ok) {
    if (archived.refusal.kind === 'not-found') throw new UsageError(archived.refusal.message);
    io.stderr(`kairoku-playbook: ${forTerminal(archived.refusal.message)}\n`);
    return 1;
  }
  io.stdout(`run ${state.id} archived\n`);
  return 0;
}

/**
 * `change` by a run host of this process, for one write to a run no process drives: under the store's
 * lock, and written as every write is (a store that stays busy is a usage refusal that says to try
 * again).
 */
function withHostOf<T>(store: RunStore, state: RunState, change: (host: RunHost) => T): T {
  const host = new RunHost({ home: store.home, workspace: state.workspace ?? '', backend: state.backend });
  try {
    return busyAsUsage(() => change(host));
  } finally {
    host.close();
  }
}

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
function decide(
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
  const serve = serveOf(store, state);
  if (serve) {
    refuseFlags(
      args,
      ['scenario', 'sim-delay', 'json', 'gate', ...Object.keys(INPUT_FLAGS), ...Object.keys(LIVE_FLAGS)],
      'does not apply while serve drives the run',
    );
    return operateThroughServe(
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

function isLiveBackend(backend: string): backend is 'paseo' | 'kairoku' {
  return backend === 'paseo' || backend === 'kairoku';
}

function refuseLiveFlags(args: ParsedArgs): void {
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
function driveOn(
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
