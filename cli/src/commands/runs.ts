import { RunStore, defaultHome } from '@kairoku-playbook/runtime';
import type { RunEvent } from '@kairoku-playbook/runtime';
import { closest } from '@kairoku-playbook/grammar';
import { flag, parseArgs } from '../args.js';
import type { ParsedArgs } from '../args.js';
import { UsageError } from '../io.js';
import type { CommandIo } from '../io.js';
import { LIVE_FLAGS, refuseFlags } from './run-common.js';
import { INPUT_FLAGS } from './run-inputs.js';
import { load, workspaceServeOf, viaServe } from './runs-common.js';
import { decide, driveOn, isLiveBackend, refuseLiveFlags } from './runs-drive.js';
import { archive, cancel, pauseOrResume } from './runs-operate.js';
import { prune } from './runs-prune.js';
import { list, show } from './runs-view.js';
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
       kairoku-playbook runs prune --ended-before DATE [--unarchived] [--dry-run]

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
  prune                deletes the run files of archived runs that ended before --ended-before
                       DATE (2026-06-01, or an ISO time), naming each; --unarchived deletes ended
                       runs that are not archived too; --dry-run names them and deletes nothing.
                       A run with work going, or that another process drives, is never deleted

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
  --ended-before DATE  prune: the runs that ended before DATE (midnight UTC) or an ISO time
  --unarchived         prune: ended runs that are not archived go too
  --dry-run            prune: say what would be deleted; delete nothing
  -h, --help           this help

Exit codes: 0 done (restart, decide: the run completed); 1 refused (the run's rules do not allow
it) or, after restart or decide, the run did not complete; 2 usage errors and unknown runs; 3 the
run waits at a gate nobody here decided (as for \`run\`); 130 Ctrl-C canceled the run.`;

const SUBCOMMANDS = [
  'list',
  'show',
  'cancel',
  'pause',
  'resume',
  'restart',
  'decide',
  'archive',
  'prune',
] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

const RUNS_FLAGS: Record<string, 'boolean' | 'string'> = {
  all: 'boolean',
  json: 'boolean',
  from: 'string',
  scenario: 'string',
  reason: 'string',
  comment: 'string',
  help: 'boolean',
  'sim-delay': 'string',
  'ended-before': 'string',
  unarchived: 'boolean',
  'dry-run': 'boolean',
  ...INPUT_FLAGS,
  ...LIVE_FLAGS,
};

/** The flags each subcommand takes (the others are usage errors). */
const ALLOWED: Record<Subcommand, readonly string[]> = {
  list: ['all', 'json'],
  show: ['json'],
  cancel: ['reason'],
  pause: [],
  resume: [],
  restart: ['from', 'scenario', 'json', 'sim-delay', ...Object.keys(INPUT_FLAGS), ...Object.keys(LIVE_FLAGS)],
  decide: [
    'comment',
    'scenario',
    'json',
    'sim-delay',
    ...Object.keys(INPUT_FLAGS),
    ...Object.keys(LIVE_FLAGS),
  ],
  archive: [],
  prune: ['ended-before', 'unarchived', 'dry-run'],
};

export function runRuns(
  argv: readonly string[],
  io: CommandIo,
  terminal: Terminal | undefined = processTerminal(),
  env: NodeJS.ProcessEnv = process.env,
): number | Promise<number> {
  const args = parseArgs(argv, RUNS_FLAGS, { h: 'help' });
  if (args.flags.has('help')) {
    io.stdout(`${RUNS_HELP}\n`);
    return 0;
  }
  const [first = 'list', ...rest] = args.positionals;
  const sub = subcommandOf(first);
  for (const name of args.flags.keys())
    if (!ALLOWED[sub].includes(name)) throw new UsageError(`runs ${sub} takes no --${name}`);
  const store = new RunStore(defaultHome());
  const json = args.flags.has('json');
  if (sub === 'list') {
    if (rest.length) throw new UsageError(`runs list takes no arguments, not "${rest[0]}"`);
    return list(store, io, args.flags.has('all'), json);
  }
  if (sub === 'prune') {
    if (rest.length) throw new UsageError(`runs prune takes no arguments, not "${rest[0]}"`);
    return prune(store, io, {
      endedBefore: flag(args, 'ended-before'),
      unarchived: args.flags.has('unarchived'),
      dryRun: args.flags.has('dry-run'),
    });
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
    case 'restart':
      return restartRun(store, id, io, args, env, json ? undefined : terminal);
  }
}

function subcommandOf(given: string): Subcommand {
  if ((SUBCOMMANDS as readonly string[]).includes(given)) return given as Subcommand;
  const suggestion = closest(given, [...SUBCOMMANDS]);
  throw new UsageError(
    `unknown runs command "${given}"${suggestion ? `; did you mean "${suggestion}"?` : ''}; the commands are ${SUBCOMMANDS.join(', ')}`,
  );
}

/** `runs restart ID --from STEP`: through the serve that drives a sim run, else driven here. */
function restartRun(
  store: RunStore,
  id: string,
  io: CommandIo,
  args: ParsedArgs,
  env: NodeJS.ProcessEnv,
  terminal: Terminal | undefined,
): number | Promise<number> {
  const from = flag(args, 'from');
  if (from === undefined) throw new UsageError('runs restart needs --from STEP');
  const loaded = load(store, id);
  const event: RunEvent = { type: 'restart-from', step: from };
  if (!isLiveBackend(loaded.backend)) {
    refuseLiveFlags(args);
    const serve = workspaceServeOf(store, loaded);
    if (serve) {
      // The serve of the run's workspace drives it: it restarts it, and its gates wait there.
      refuseFlags(
        args,
        ['scenario', 'sim-delay', 'json', 'gate'],
        'does not apply while serve drives the run',
      );
      return viaServe(serve, id, 'restart', { step: from }, io);
    }
  }
  return driveOn(store, loaded, event, io, args, env, terminal);
}
