/**
 * What `run` and the commands around it share (`runs`, `serve`, the live run in run-live.ts): inputs and
 * their errors, the run's room in the store, its display and end, scenarios, and asking a person at a gate.
 * Apart from run.ts so that run-live.ts, which run.ts loads lazily, imports no module that imports it.
 */
import { realpathSync } from 'node:fs';
import type { Ir } from '@kairoku-playbook/compiler';
import { closest } from '@kairoku-playbook/grammar';
import {
  describeRoomConflict,
  findRoomConflict,
  RunHost,
  RunStore,
  StoreBusyError,
  defaultHome,
  forTerminal,
  readScenario,
  summarize,
  toText,
  vecGet,
} from '@kairoku-playbook/runtime';
import type { OpenGate, Refusal, RunState, Scenario, ScriptedDecision } from '@kairoku-playbook/runtime';
import type { ParsedArgs } from '../args.js';
import { UsageError, readScenarioFile } from '../io.js';
import { LiveView, isLiveTerminal } from '../live-view.js';
import type { CommandIo } from '../io.js';
import { commandLineWarning, secretHint, secretsOnCommandLine } from './run-inputs.js';
import { PASEO_FLAGS } from './paseo-options.js';
import type { Terminal } from './terminal.js';

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
  ...PASEO_FLAGS,
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
 * The run host of a new run (`RunHost`, which creates it: `startDriven`), with runs a killed process
 * left behind recovered first (`agentExists` answers for their agents), the room looked at before
 * anything else is done (one active run per workspace, limits.concurrency per playbook; the host
 * checks it again, under the store's lock, as it creates the run), and a fresh run id for a backend
 * that is connected for the run before it is created.
 */
export function openRoom(
  ir: Ir,
  io: CommandIo,
  backend: string,
  agentExists: (agent: string | undefined) => boolean,
  now: () => number,
): { host: RunHost; id: string; workspace: string } {
  const workspace = realpathSync(io.cwd);
  const host = new RunHost({
    home: defaultHome(),
    workspace,
    backend,
    clock: now,
    roomHelp: { cancel: cancelCommand, decide: decideCommand },
  });
  const recovered = busyAsUsage(() => host.loseGone(agentExists));
  for (const problem of recovered.problems)
    io.stderr(`kairoku-playbook: warning: cannot read ${problem.file}: ${problem.message}\n`);
  const refusal = host.room(ir);
  if (refusal) {
    host.close();
    throw new UsageError(refusal.message);
  }
  return { host, id: host.store.newId(ir.id), workspace };
}

/**
 * `action` (a change under the run store's lock), with a store that stayed locked by another live
 * process turned into a refusal the user can act on (it says to try again), not a crash.
 */
export function busyAsUsage<T>(action: () => T): T {
  try {
    return action();
  } catch (error) {
    if (error instanceof StoreBusyError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/** The commands a refusal for want of room names, for the run in the way. */
const cancelCommand = (id: string) => `kairoku-playbook runs cancel ${id}`;
const decideCommand = (id: string, gate: string) => `kairoku-playbook runs decide ${id} ${gate} CHOICE`;

/**
 * The store and room for reopening `state` (a restart): the same checks as a new run's, with the run
 * itself left out of the count.
 */
export function openRoomFor(state: RunState, io: CommandIo): { store: RunStore; workspace: string } {
  const store = new RunStore(defaultHome());
  const { runs } = store.loadActive();
  const workspace = state.workspace ?? realpathSync(io.cwd);
  const conflict = findRoomConflict(runs, state.ir, workspace, state.id);
  if (conflict) throw new UsageError(describeRoomConflict(conflict, state.ir, cancelCommand, decideCommand));
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
 * Where a sim run stopped after the scenario scripted an event the run refused: nothing else drives a
 * sim run, so a run still going is canceled, saying why (`cancel`: through the run's driver, so the
 * host writes it while it still holds the run); refusals of a run that ended are warned about.
 */
export function settleSimRun(
  state: RunState,
  refusals: readonly Refusal[],
  io: CommandIo,
  cancel: (reason: string) => RunState,
): RunState {
  if (state.status === 'running' || state.status === 'paused') {
    const why = refusals.map(
      (r) => `${r.event.type} ${'step' in r.event ? r.event.step : ''} was refused: ${r.error}`,
    );
    for (const line of why) io.stderr(`kairoku-playbook: ${forTerminal(line)}\n`);
    state = cancel(`the sim run could not go on: ${why.join('; ')}`);
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
    const simulated = state.backend === 'sim' ? ' · sim (simulated agents, no model)' : '';
    const text = `run ${state.id} ${state.status}${state.reason ? `: ${state.reason}` : ''}${simulated}\n${
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

/**
 * Asks a gate at the terminal (its choices, then a comment when the choice takes one) without blocking
 * the event loop: agents report and Ctrl-C is heard while a person reads the gate. Undefined at end of
 * input, or when `signal` aborts (the gate closed meanwhile). `headingShown`: the line just above the
 * prompt already says which gate waits and its title (`gateLineLast`), so the gate is not headed twice.
 */
export async function askGateAsync(
  gate: OpenGate,
  terminal: Terminal,
  signal: AbortSignal,
  headingShown = false,
): Promise<ScriptedDecision | undefined> {
  const dialogue = new GateDialogue(gate);
  terminal.write(dialogue.intro(headingShown));
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
 * Whether the run's last history line is this gate opening ("? ship is waiting for a decision: TITLE"):
 * the line progress printed, and the live view's last line, just above where the gate is asked.
 */
export function gateLineLast(state: RunState, gate: OpenGate): boolean {
  const last = state.history.size ? vecGet(state.history, state.history.size - 1) : undefined;
  return last?.kind === 'gate-opened' && last.step === gate.step;
}

/**
 * Deciding a gate at a prompt, as a state machine: the choice, then a comment when the choice takes
 * one; a wrong choice or a missing required comment is said and asked again. Each `answer` says what
 * to write and what comes next.
 */
class GateDialogue {
  private chosen: OpenGate['choices'][number] | undefined;

  constructor(private readonly gate: OpenGate) {}

  /**
   * The gate as the terminal shows it: its title (unless the line above shows it: `headingShown`), its
   * summary (every line indented under it), and its choices numbered; title and summary may be rendered
   * from agents' outputs.
   */
  intro(headingShown: boolean): string {
    const listed = this.gate.choices
      .map(
        (c, i) =>
          `    ${i + 1}. ${c.name}${c.label && c.label !== c.name ? ` (${c.label})` : ''}${c.comment === 'required' ? ' [comment required]' : ''}\n`,
      )
      .join('');
    const summary = this.gate.summary
      ? forTerminal(this.gate.summary)
          .replace(/\s+$/, '')
          .split('\n')
          .map((line) => `  ${line}\n`)
          .join('')
      : '';
    const heading = headingShown
      ? ''
      : `\n? ${this.gate.step}: ${forTerminal(this.gate.title, { oneLine: true })}\n`;
    return forTerminal(`${heading}${summary}  choices (a number or a name):\n${listed}`);
  }

  prompt(): string {
    if (!this.chosen) return 'choice> ';
    return this.chosen.comment === 'required' ? 'comment> ' : 'comment (optional)> ';
  }

  answer(text: string): { decision: ScriptedDecision } | { say?: string } {
    const typed = text.trim();
    if (!this.chosen) {
      const choice = this.choiceFor(typed);
      if (!choice) {
        const names = this.gate.choices.map((c) => c.name);
        const suggestion = typed ? closest(typed.toLowerCase(), names) : undefined;
        return {
          say: `  "${forTerminal(typed, { oneLine: true })}" is not a choice${suggestion ? ` (did you mean "${forTerminal(suggestion, { oneLine: true })}"?)` : ''}; type its number (1 to ${this.gate.choices.length}) or one of ${names.join(', ')}\n`,
        };
      }
      if (choice.comment === 'none') return { decision: { choice: choice.name } };
      this.chosen = choice;
      return {};
    }
    if (typed || this.chosen.comment === 'optional')
      return { decision: { choice: this.chosen.name, comment: typed } };
    return { say: `  choice "${this.chosen.name}" needs a comment\n` };
  }

  /** The choice typed: its number as listed (1..n), its name or its label, in any case. */
  private choiceFor(typed: string): OpenGate['choices'][number] | undefined {
    const choices = this.gate.choices;
    if (/^\d+$/.test(typed)) return choices[Number(typed) - 1];
    const folded = typed.toLowerCase();
    return (
      choices.find((c) => c.name.toLowerCase() === folded) ??
      choices.find((c) => c.label?.toLowerCase() === folded)
    );
  }
}

/** End of input at a prompt: the gate stays open, and the run waits at it. */
function endOfInput(terminal: Terminal): undefined {
  terminal.write('\n');
  return undefined;
}
