/**
 * What a bundle's entry runs: the process around a `main` (bin.ts: every command; bin-check.ts: the
 * commands a cold start must answer fast, see launcher.ts). Output gathered and written once, exit
 * codes, and the handling of a bug.
 */
import type { CommandIo } from './io.js';
import { refusalOf } from './refusal.js';
import { VERSION } from './version.js';

export type Main = (argv: readonly string[], io: CommandIo) => number | Promise<number>;

/**
 * The exit code of a bug (an exception no command expected): 70, EX_SOFTWARE in sysexits.h, "an
 * internal software error". Not 1, which says "your playbook has errors", nor 2, "a usage or I/O error
 * you can fix": a script or a CI job can tell a crash from findings.
 */
const INTERNAL_ERROR = 70;

const env = process.env;
const wantsColor = (stream: NodeJS.WriteStream) =>
  env.NO_COLOR === undefined &&
  (env.FORCE_COLOR !== undefined ? env.FORCE_COLOR !== '0' : stream.isTTY === true);
const debug = env.KAIROKU_PLAYBOOK_DEBUG !== undefined && env.KAIROKU_PLAYBOOK_DEBUG !== '0';

// Output is gathered and written once at the end, and the streams drain before exiting, so piped
// output is never cut short. A command that answers later (a live run) writes as it goes instead.
let direct = false;
let out = '';
let err = '';
let crashed = false;

/**
 * A bug: a short message on standard error that says so and what to report, the stack only with
 * KAIROKU_PLAYBOOK_DEBUG=1, exit 70. Output gathered for standard output is dropped, so `--format json`
 * never prints half an answer (or anything that is not JSON).
 */
function crash(error: unknown): void {
  if (crashed) return;
  crashed = true;
  // A full disk met outside a command's own handling (a live run's save, between events) is still
  // the machine's state, said in its sentence, exit 2: never reported as a bug.
  const refusal = refusalOf(error);
  if (refusal !== undefined) {
    process.stderr.write(`${err}kairoku-playbook: ${refusal}\n`, () => process.exit(2));
    out = err = '';
    return;
  }
  const summary = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const lines = [
    `kairoku-playbook: internal error: ${summary.split('\n')[0]!.slice(0, 500)}`,
    `This is a bug in kairoku-playbook ${VERSION}, not a problem with your input. Please report it with the command`,
    'you ran and the files it read' +
      (debug
        ? ', and this stack trace:'
        : '; run it again with KAIROKU_PLAYBOOK_DEBUG=1 to add the stack trace.'),
  ];
  if (debug) lines.push(error instanceof Error && error.stack ? error.stack : String(error));
  const text = `${err}${lines.join('\n')}\n`;
  out = err = '';
  process.stderr.write(text, () => process.exit(INTERNAL_ERROR));
}

/** Runs `main` on the process's arguments and exits with its code. */
export function start(main: Main): void {
  const argv = process.argv.slice(2);
  // The language server (`lsp`) keeps its own handlers: a bug in one request must not end the server.
  if (argv[0] !== 'lsp') {
    process.on('uncaughtException', crash);
    process.on('unhandledRejection', crash);
    // A reader that went away (`check | head -1`) is not a bug: stop quietly, as other tools do.
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      else crash(error);
    });
  }

  let code: number | Promise<number> | undefined;
  try {
    code = main(argv, {
      cwd: process.cwd(),
      stdout: (text) => (direct ? process.stdout.write(text) : (out += text)),
      stderr: (text) => (direct ? process.stderr.write(text) : (err += text)),
      color: wantsColor(process.stdout),
      colorStderr: wantsColor(process.stderr),
    });
  } catch (error) {
    crash(error);
  }
  if (typeof code === 'number') finish(code);
  else if (code !== undefined) {
    direct = true;
    if (err) process.stderr.write(err);
    if (out) process.stdout.write(out);
    out = err = '';
    code.then((exit) => process.stdout.write('', () => process.exit(exit)), crash);
  }
}

function finish(exit: number): void {
  if (err) process.stderr.write(err);
  if (out) process.stdout.write(out, () => process.exit(exit));
  else process.exitCode = exit;
}
