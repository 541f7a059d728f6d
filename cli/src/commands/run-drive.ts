/**
 * Driving a run to where it stops, for every backend (`run`, `runs restart`, `runs decide`): the
 * runtime's RunHost (`drive`: autopilot, every write, the claim on the run, other processes'
 * requests), gates decided by a scenario or `--gate`, else asked at the terminal
 * without blocking, else left open (the run waits: the tool never decides a human gate), and Ctrl-C
 * canceling the run. Apart from run-live.ts, which brings the live backends' modules, so that a sim run
 * loads none of them.
 */
import type { Ir } from '@kairoku-playbook/compiler';
import { SimBackend, forTerminal, vecGet, vecSlice } from '@kairoku-playbook/runtime';
import type {
  Backend,
  CreateOptions,
  DriveOptions,
  GateAsker,
  LiveRun,
  OpenGate,
  RunEvent,
  RunHost,
  RunState,
  Scenario,
  ScriptedDecision,
} from '@kairoku-playbook/runtime';
import { UsageError } from '../io.js';
import type { CommandIo } from '../io.js';
import { progressLine } from '../live-view.js';
import {
  askGateAsync,
  busyAsUsage,
  gateLineLast,
  printRunEnd,
  runDisplay,
  settleSimRun,
} from './run-common.js';
import type { Terminal } from './terminal.js';

/** `run`'s exit code when the run waits at a gate nobody here could decide (docs/cli.md). */
export const EXIT_WAITING_AT_GATE = 3;
/** `run`'s exit code when Ctrl-C (SIGINT) or SIGTERM canceled the run: 128 + SIGINT, as shells do. */
export const EXIT_INTERRUPTED = 130;

/** A backend connected for one run; `close` lets go of its daemon, runners or timers. */
export interface LiveBackend {
  backend: Backend;
  /** the run's branch as the backend names it (a new worktree's) */
  branch: string;
  close(): Promise<void> | void;
  /** a decision this backend scripts for a gate (a sim scenario's), taken before anyone is asked */
  decideGate?: (gate: OpenGate) => ScriptedDecision | undefined;
}

/** The sim backend for a run driven here: its agents take `delayMs` on a timer, so Ctrl-C is heard. */
export function simBackend(options: {
  scenario: Scenario;
  delayMs?: number | undefined;
  worktree?: string | undefined;
}): LiveBackend {
  const backend = new SimBackend({
    scenario: options.scenario,
    timers: true,
    ...(options.delayMs ? { delayMs: options.delayMs } : {}),
    ...(options.worktree !== undefined ? { worktree: options.worktree } : {}),
  });
  return {
    backend,
    branch: '',
    // Not awaited: the sim backend's close only clears its timers, done before it returns; it cannot fail.
    close: () => void backend.close(),
    decideGate: (gate) => backend.scripted(gate),
  };
}

interface RunDriveCommon {
  /** what sets the run going: `start`, `restart-from`, a `gate-decided` */
  event: RunEvent;
  /** `--gate` decisions, by gate name */
  gates: Map<string, ScriptedDecision>;
  live: LiveBackend;
  io: CommandIo;
  terminal: Terminal | undefined;
  json: boolean;
  now: () => number;
}

/**
 * The run to drive, by the command's run host (closed once the run stops here): a stored one taken up
 * again (a restart, a decision: `RunHost.drive`), or a new one the host creates as it starts driving it
 * (`RunHost.startDriven`: the checks and refusals every run gets).
 */
export type RunDrive = RunDriveCommon & { host: RunHost } & (
    | { state: RunState; secrets: Record<string, unknown> }
    | { create: { ir: Ir; inputs: Record<string, unknown>; options?: CreateOptions } }
  );

/**
 * Drives a run to its end, or to a gate nobody here can decide; the exit code (0 completed, 1 failed
 * or canceled, 3 waiting at a gate, 130 canceled by Ctrl-C). Synchronous when the run settles without
 * waiting for anything (a sim run without a delay or a prompt), so its output comes at once.
 */
export function driveRun(drive: RunDrive): number | Promise<number> {
  const { live, io, json } = drive;
  const display = runDisplay(json, drive.terminal, io, drive.now);
  const { interactive, view } = display;
  // The one place runs are created, driven (and saved, and claimed): a host of this process, for this
  // one run; its backend stays this command's, connected before and closed after.
  const { host } = drive;
  const run = openRun(drive, driveOptions(drive, display));
  if (run instanceof Promise) return run;
  const id = run.state.id;
  const interrupts = cancelOnInterrupt(run, io);
  const letGo = (): Promise<void> | void => {
    interrupts.stop();
    host.close();
    return live.close();
  };
  const then = <T>(closing: Promise<void> | void, value: () => T): T | Promise<T> =>
    closing instanceof Promise ? closing.then(value) : value();

  const refusal = run.begin(drive.event);
  if (refusal !== undefined) {
    view?.close();
    io.stderr(`kairoku-playbook: run ${id}: ${forTerminal(refusal)}\n`);
    return then(letGo(), () => 1);
  }
  const finish = (reached: RunState): Promise<number> | number => {
    let end = reached;
    if (live.backend.name === 'sim' && run.refusals.length)
      end = settleSimRun(end, run.refusals, io, (reason) => {
        run.cancel(reason);
        return run.state;
      });
    const closing = letGo();
    view?.update(end);
    view?.close();
    if (end.status === 'running' && run.waiting.length) {
      if (json) printRunEnd(end, json, io);
      sayWaiting(end, run.waiting, io);
      return then(closing, () => EXIT_WAITING_AT_GATE);
    }
    printRunEnd(end, json, io, interactive);
    const code = end.status === 'completed' ? 0 : interrupts.interrupted() ? EXIT_INTERRUPTED : 1;
    return then(closing, () => code);
  };
  const settled = run.settled;
  if (settled) return finish(settled);
  // The process stays up while the run goes on, even when nothing else holds it (a paused run
  // waiting for \`runs resume\` from another terminal): it never ends without saying how the run stands.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  return run.done.then((end) => {
    clearInterval(keepAlive);
    return finish(end);
  });
}

/**
 * How the host drives the run here: the backend, gates decided by the backend's script or `--gate`,
 * else asked at the terminal, and each transition shown.
 */
function driveOptions(
  drive: RunDrive,
  { interactive, progress, view }: ReturnType<typeof runDisplay>,
): Omit<DriveOptions, 'secrets'> {
  const { gates, live } = drive;
  const askGate: GateAsker | undefined = interactive
    ? async (gate: OpenGate, state: RunState, signal: AbortSignal) => {
        view?.pause();
        try {
          const terminal = view ? view.below(interactive) : interactive;
          return await askGateAsync(gate, terminal, signal, gateLineLast(state, gate));
        } finally {
          view?.resume();
        }
      }
    : undefined;
  return {
    backend: live.backend,
    decideGate: (gate) => live.decideGate?.(gate) ?? gates.get(gate.step),
    ...(askGate ? { askGate } : {}),
    onTransition: (before, after) => {
      if (view) view.update(after);
      else if (progress)
        for (const entry of vecSlice(after.history, before.history.size))
          progress(`${progressLine(entry)}\n`);
    },
  };
}

/**
 * The run driven: a stored one taken up again, or a new one the host creates; a refused creation
 * (the promise of its refusal) once the backend connected for it is let go.
 */
function openRun(drive: RunDrive, options: Omit<DriveOptions, 'secrets'>): LiveRun | Promise<number> {
  const { host, live, io } = drive;
  if (!('create' in drive)) return host.drive(drive.state, { ...options, secrets: drive.secrets });
  const { ir, inputs, options: start } = drive.create;
  // Nothing created (no room: another run took it since it was looked at; a store that stayed busy;
  // a failed write): the backend connected for the run is let go before the refusal is said.
  const refuse = (error: unknown): Promise<number> => {
    host.close();
    const closing = live.close();
    if (closing instanceof Promise)
      return closing.then(() => {
        throw error;
      });
    throw error;
  };
  let started: ReturnType<RunHost['startDriven']>;
  try {
    started = busyAsUsage(() => host.startDriven(ir, inputs, start ?? {}, options));
  } catch (error) {
    return refuse(error);
  }
  if (!started.ok) return refuse(new UsageError(started.refusal.message));
  for (const warning of started.value.warnings)
    io.stderr(`kairoku-playbook: warning: ${forTerminal(warning)}\n`);
  return started.value.run;
}

/** Ctrl-C (or SIGTERM) cancels the run; a second one leaves at once. */
function cancelOnInterrupt(run: LiveRun, io: CommandIo): { interrupted(): boolean; stop(): void } {
  let interrupted = false;
  const onInterrupt = () => {
    // The first Ctrl-C's cancel is on disk already (each save is whole: write, fsync, rename), so
    // leaving at once loses nothing but the wait for agents to stop.
    if (interrupted) process.exit(EXIT_INTERRUPTED);
    interrupted = true;
    io.stderr('\nkairoku-playbook: canceling the run (Ctrl-C again to leave at once)\n');
    run.cancel('canceled at the terminal (Ctrl-C)');
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  return {
    interrupted: () => interrupted,
    stop: () => {
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onInterrupt);
    },
  };
}

/**
 * A run left waiting at gates: which, and the exact command that decides each (or the panel). The
 * run's file is whole; `runs decide` drives it on, and a `serve` started later takes it up.
 */
function sayWaiting(state: RunState, waiting: readonly string[], io: CommandIo): void {
  for (const name of waiting) {
    const ir = state.ir.steps.find((s) => s.name === name);
    const run = ir ? vecGet(state.steps, ir.index) : undefined;
    const choices = ir?.outcomes.map((o) => o.name) ?? [];
    const comment = ir?.outcomes.some((o) => o.comment === 'required') ? ' [--comment TEXT]' : '';
    io.stderr(
      forTerminal(
        `kairoku-playbook: run ${state.id} waits at gate "${name}"${run?.gate ? ` (${forTerminal(run.gate.title, { oneLine: true })})` : ''}: ` +
          `no terminal to ask at and no --gate ${name}=CHOICE, so nothing decided it.\n` +
          `  decide it with: kairoku-playbook runs decide ${state.id} ${name} CHOICE${comment}   (choices: ${choices.join(', ')})\n` +
          `  or in the panel of kairoku-playbook serve; the run goes on from there.\n`,
      ),
    );
  }
}

/** `--gate NAME=CHOICE[:COMMENT]`: how a gate is decided each time it opens, without asking anyone. */
export function gateFlags(pairs: readonly string[], ir: Ir): Map<string, ScriptedDecision> {
  const gates = new Map<string, ScriptedDecision>();
  for (const pair of pairs) {
    const match = /^([^=]+)=([^:]+)(?::(.*))?$/s.exec(pair);
    if (!match) throw new UsageError(`--gate takes NAME=CHOICE or NAME=CHOICE:COMMENT, not "${pair}"`);
    const [, name, choice, comment] = match as unknown as [string, string, string, string | undefined];
    const gate = ir.steps.find((s) => s.name === name && s.kind === 'gate');
    if (!gate)
      throw new UsageError(
        `--gate ${name}: the playbook has no gate "${name}" (its gates: ${ir.steps
          .filter((s) => s.kind === 'gate')
          .map((s) => s.name)
          .join(', ')})`,
      );
    const declared = gate.outcomes.find((o) => o.name === choice);
    if (!declared)
      throw new UsageError(
        `--gate ${name}: "${choice}" is not a choice of the gate (its choices: ${gate.outcomes.map((o) => o.name).join(', ')})`,
      );
    if (declared.comment === 'required' && !comment)
      throw new UsageError(`--gate ${name}=${choice} needs a comment: ${name}=${choice}:COMMENT`);
    gates.set(name, comment ? { choice, comment } : { choice });
  }
  return gates;
}
