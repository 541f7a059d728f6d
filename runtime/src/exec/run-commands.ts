import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { constants } from 'node:os';
import { BoundedOutput } from './bounded-output.js';
import { CountReader } from './counts/index.js';
import { LineSplitter } from './line-splitter.js';
import { maskText, secretValues } from './mask.js';
import { ProcessGroup } from './process-group.js';

/** Output kept of a check's commands, head and tail together, when the caller does not say. */
export const DEFAULT_OUTPUT_LIMIT_BYTES = 64 * 1024;
/** Between SIGTERM to a command's process group and SIGKILL to what is left of it. */
export const DEFAULT_KILL_GRACE_MS = 2000;
/** A check's summary (its line and the tail of its output) stays within this many bytes. */
export const SUMMARY_LIMIT_BYTES = 4096;
/** `exit_code` of a command that could not be started (its directory is missing, say) */
export const EXIT_NOT_STARTED = -1;

const SHELL = '/bin/sh';
/** setTimeout's largest delay; a longer one would fire at once */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** after a command's group is gone, how long its pipes may stay open (held by a process that left it) */
const PIPE_DRAIN_MS = 500;
const TIMEOUT = Symbol('timeout');

export interface RunCommandsOptions {
  /** shell command lines, run one after another with `/bin/sh -c` */
  commands: string[];
  /** where they run (a directory that exists) */
  cwd: string;
  /** added to this process's environment; its values are masked in the output */
  env: Record<string, string>;
  /** the wall clock of all the commands together */
  timeoutMs: number;
  /** aborting it (cancel, shutdown) kills the running command's group; no further command runs */
  signal?: AbortSignal;
  outputLimitBytes?: number;
  killGraceMs?: number;
}

export interface CheckOutputs {
  passed: number;
  failed: number;
  skipped: number;
  todo: number;
  exit_code: number;
}

export interface CheckRun {
  /** `pass` when every command exited 0 and no test failed (SPEC §3.1) */
  outcome: 'pass' | 'fail';
  /** the check step's outputs; the counts are 0 when no runner's summary was recognised */
  outputs: CheckOutputs;
  /** one line saying what happened, then the tail of the output: at most `SUMMARY_LIMIT_BYTES` */
  summary: string;
  /** the commands' combined stdout and stderr, bounded (head and tail), secrets masked */
  output: string;
  /** the step's wall clock ran out: the running command's group was killed */
  timedOut: boolean;
  /** the signal was aborted (or `killAllChecks` called) while a command ran or before all had run */
  aborted: boolean;
  /** commands started (the last of them is the one that failed, timed out or was stopped) */
  commandsRun: number;
}

/** Checks in progress, for `killAllChecks`. */
const running = new Set<{ halt: AbortController; done: Promise<CheckRun> }>();

/**
 * Runs a check step's commands (SPEC §3.1, `run`): each with `/bin/sh -c` in the given directory, in
 * its own process group, one after another, stopping at the first that exits non-zero. Stdout and
 * stderr are one stream (the shell's stderr is its stdout), kept within `outputLimitBytes`; test
 * counts are read off it as it streams, summed over the commands.
 *
 * The step's timeout and the signal end the running command's whole group: SIGTERM, then SIGKILL
 * after `killGraceMs`. A command that exits leaving processes behind in its group has them ended the
 * same way. `exit_code` is the last command's: 128 + the signal's number when a signal ended it (143
 * for SIGTERM, 137 for SIGKILL, as shells say), `EXIT_NOT_STARTED` (-1) when it could not start.
 */
export function runCheckCommands(options: RunCommandsOptions): Promise<CheckRun> {
  const halt = new AbortController();
  const entry = { halt, done: execute(options, halt) };
  running.add(entry);
  const forget = () => void running.delete(entry);
  entry.done.then(forget, forget);
  return entry.done;
}

/**
 * Stops every check in progress (daemon shutdown): each one's running command group gets SIGTERM, then
 * SIGKILL after its grace; no further command starts. Resolves once every check has ended (each
 * `runCheckCommands` promise resolves with `aborted: true`). Should this process exit without it,
 * an exit hook still sends SIGKILL to the groups left.
 */
export async function killAllChecks(reason = 'shutdown'): Promise<void> {
  const all = [...running];
  for (const check of all) check.halt.abort(reason);
  await Promise.allSettled(all.map((check) => check.done));
}

interface CommandResult {
  code: number;
  /** the halt came while the command ran: it was killed, not finished */
  halted: boolean;
  error?: string;
}

async function execute(options: RunCommandsOptions, halt: AbortController): Promise<CheckRun> {
  const secrets = secretValues(options.env);
  const output = new BoundedOutput(options.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT_BYTES);
  const counter = new CountReader();
  const env = { ...process.env, ...options.env };
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const timer = setTimeout(() => halt.abort(TIMEOUT), Math.max(1, Math.min(options.timeoutMs, MAX_TIMER_MS)));
  const onAbort = () => halt.abort(reasonText(options.signal?.reason));
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();

  let commandsRun = 0;
  let last: CommandResult = { code: 0, halted: false };
  let interrupted = false;
  let problem = directoryProblem(options.cwd);
  try {
    if (problem) {
      output.write(`${problem}\n`);
      last = { code: EXIT_NOT_STARTED, halted: false };
    } else {
      for (const command of options.commands) {
        if (halt.signal.aborted) {
          interrupted = true;
          break;
        }
        commandsRun++;
        last = await runOne(command, { cwd: options.cwd, env, graceMs, halt: halt.signal, output, counter });
        if (last.error) output.write(`${last.error}\n`);
        if (last.halted) interrupted = true;
        if (last.halted || last.code !== 0) break;
      }
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }

  const timedOut = interrupted && halt.signal.reason === TIMEOUT;
  const aborted = interrupted && !timedOut;
  const counts = counter.counts() ?? { passed: 0, failed: 0, skipped: 0, todo: 0 };
  const outputs: CheckOutputs = { ...counts, exit_code: last.code };
  const pass = !problem && !interrupted && last.code === 0 && counts.failed === 0;
  const shown = output.text(secrets);
  const command = options.commands[commandsRun - 1] ?? '';
  const which = `command ${commandsRun} of ${options.commands.length} (${clip(command)})`;
  const during = commandsRun ? `in ${which}` : 'before any command ran';
  if (!problem && last.error) problem = `${which} could not start: ${last.error}`;
  let line: string;
  if (problem) line = `fail: ${problem}`;
  else if (timedOut) line = `fail: timed out after ${duration(options.timeoutMs)} ${during}`;
  else if (aborted) line = `fail: stopped (${reasonText(halt.signal.reason)}) ${during}`;
  else if (last.code !== 0) line = `fail: ${which} exited with ${last.code}`;
  else if (counts.failed > 0) line = `fail: ${counts.failed} failed though every command exited 0`;
  else if (commandsRun === 0) line = 'pass: no command to run';
  else line = `pass: ${commandsRun === 1 ? 'the command' : `all ${commandsRun} commands`} exited 0`;
  const runners = counter.runners();
  if (runners.length)
    line += `; ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped, ${counts.todo} todo (${runners.join(', ')})`;
  line = maskText(line, secrets);
  return {
    outcome: pass ? 'pass' : 'fail',
    outputs,
    summary: withTail(line, shown),
    output: shown,
    timedOut,
    aborted,
    commandsRun,
  };
}

interface CommandContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  graceMs: number;
  halt: AbortSignal;
  output: BoundedOutput;
  counter: CountReader;
}

/** One command in its own process group, until it and everything it left in its group are gone. */
async function runOne(command: string, context: CommandContext): Promise<CommandResult> {
  const { halt, output, counter } = context;
  let child: ChildProcess;
  try {
    // `exec 2>&1` first: stderr joins stdout in the shell itself, so the two keep their order.
    child = spawn(SHELL, ['-c', `exec 2>&1\n${command}`], {
      cwd: context.cwd,
      env: context.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    return { code: EXIT_NOT_STARTED, halted: false, error: (error as Error).message };
  }
  if (child.pid === undefined) {
    const error = await new Promise<Error>((resolve) => child.once('error', resolve));
    return { code: EXIT_NOT_STARTED, halted: false, error: error.message };
  }
  const group = new ProcessGroup(child.pid, context.graceMs);
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  // After a successful spawn, an error is a failed kill of a process already gone: nothing to do.
  child.on('error', () => undefined);
  const splitters = [child.stdout!, child.stderr!].map((stream) => {
    const splitter = new LineSplitter((line) => counter.line(line));
    stream.on('data', (chunk: Buffer) => {
      output.write(chunk);
      splitter.write(chunk);
    });
    return splitter;
  });

  let halted = false;
  const onHalt = () => {
    halted = true;
    // A listener cannot wait: started here, awaited below (terminate returns the same promise again).
    void group.terminate();
  };
  halt.addEventListener('abort', onHalt, { once: true });
  if (halt.aborted) onHalt();
  const exit = await exited;
  halt.removeEventListener('abort', onHalt);
  const killed = halted;
  // What the command left running in its group goes too (a check must not leave processes behind).
  await group.terminate();
  // Once the group is gone its pipes close; a process that left the group could hold them open.
  const cut = setTimeout(() => {
    child.stdout?.destroy();
    child.stderr?.destroy();
  }, PIPE_DRAIN_MS);
  await closed;
  clearTimeout(cut);
  group.release();
  for (const splitter of splitters) splitter.end();
  const code = exit.signal ? 128 + (constants.signals[exit.signal] ?? 0) : (exit.code ?? EXIT_NOT_STARTED);
  return { code, halted: killed };
}

function directoryProblem(cwd: string): string | undefined {
  try {
    if (!statSync(cwd).isDirectory()) return `the check's directory ${cwd} is not a directory`;
    return undefined;
  } catch {
    return `the check's directory ${cwd} does not exist`;
  }
}

/** The summary: its line, then as much of the output's end as fits, from a line start. */
function withTail(line: string, output: string): string {
  const room = SUMMARY_LIMIT_BYTES - Buffer.byteLength(line) - 2;
  const text = output.trimEnd();
  if (room <= 0 || !text) return truncateBytes(line, SUMMARY_LIMIT_BYTES);
  const bytes = Buffer.from(text);
  if (bytes.length <= room) return `${line}\n\n${text}`;
  let tail = bytes.subarray(bytes.length - room).toString('utf8');
  const start = tail.indexOf('\n');
  if (start >= 0 && start < tail.length - 1) tail = tail.slice(start + 1);
  // a character cut in two decodes as U+FFFD (3 bytes for 1-2): trim until it fits
  while (Buffer.byteLength(tail) > room) tail = tail.slice(1);
  return `${line}\n\n${tail}`;
}

function truncateBytes(text: string, limit: number): string {
  if (Buffer.byteLength(text) <= limit) return text;
  let cut = Buffer.from(text)
    .subarray(0, limit - 3)
    .toString('utf8');
  while (Buffer.byteLength(cut) > limit - 3) cut = cut.slice(0, -1);
  return `${cut}...`;
}

function clip(command: string): string {
  const flat = command.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat;
}

function reasonText(reason: unknown): string {
  if (typeof reason === 'string' && reason) return reason;
  if (reason instanceof Error && reason.message) return reason.message;
  return 'aborted';
}

function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
