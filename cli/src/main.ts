import { IR_VERSION } from '@kairoku-playbook/compiler';
import { runCheck } from './commands/check.js';
import { runCompile } from './commands/compile.js';
import { runDiff } from './commands/diff.js';
import { FORMAT_HELP } from './commands/format-help.js';
import { runExplain } from './commands/explain.js';
import { runExplore } from './commands/explore.js';
import { runGraph } from './commands/graph.js';
import { LSP_HELP } from './commands/lsp-help.js';
import { MCP_HELP } from './commands/mcp-help.js';
import { runRun } from './commands/run.js';
import { runRuns } from './commands/runs.js';
import { runSchema } from './commands/schema.js';
import { SERVE_HELP } from './commands/serve-help.js';
import { PLAYGROUND_HELP } from './commands/playground-help.js';
import { runTest } from './commands/test.js';
import { runComplete, runCompletion } from './commands/completion.js';
import { runHelp, unknownCommand } from './commands/help.js';
import { runInit } from './commands/init.js';
import { assetText } from './assets.js';
import { FileWriteError } from '@kairoku-playbook/runtime';
import { USAGE as RUNNER_USAGE } from '@kairoku-playbook/runtime/runner/usage';
import { UsageError } from './io.js';
import type { CommandIo } from './io.js';
import { VERSION } from './version.js';

export const HELP = `kairoku-playbook ${VERSION}: check, compile, graph, run and test playbooks for teams of AI coding agents

Usage: kairoku-playbook COMMAND [options]

Commands:
  check [PATH...]     check playbooks and print diagnostics (text, json, sarif, github)
  format [PATH...]    format playbooks with Prettier's YAML printer (--check: list the unformatted)
  compile FILE        print the validated execution IR as JSON
  graph FILE          print the step graph (text, mermaid, dot)
  diff BASE HEAD      what a change does to playbooks' power: grants, gates, loops, secrets (git or files)
  explore FILE        explore every run: most attempts per step, worst-case agent turns, PB310, PB311
  run FILE            run a playbook: on the sim backend (scripted or generated agents, no model),
                      on a Paseo daemon (--backend paseo) or on Kairoku runners (--backend kairoku)
  runs [list|show|cancel|pause|resume|restart|decide|archive|prune]
                      list saved runs, show one, cancel, pause, resume, restart from a step,
                      decide a gate, archive, delete old ones
  test [PATH...]      run playbook tests (*.test.yml: a scenario and what to expect)
  init [DIR]          write a first playbook, its test and editor settings
  lsp --stdio         start the language server (LSP over stdin/stdout)
  mcp                 serve the manager protocol over MCP (stdio): any MCP agent can manage runs
  serve [DIR]         serve the Playbooks panel and its HTTP API; owns the workspace's active runs
  playground [FILE]   serve the playground page: check, graph and explore a playbook as it is typed
  runner --app URL    the reference Kairoku runner daemon: claims steps from run --backend kairoku
  explain [CODE]      print a diagnostic code's reference (what it means, an example, the fix)
  schema [--ir]       print the JSON Schema of playbooks (for editors), or of the IR
  help [COMMAND]      this help, or a command's (as COMMAND --help)
  completion SHELL    print the shell completion script for bash, zsh or fish

Run kairoku-playbook help COMMAND for a command's options; kairoku-playbook --version prints the
versions of the CLI, of the playbook language and of the IR.`;

type Command = (argv: readonly string[], io: CommandIo) => number | Promise<number>;

/**
 * A command whose module (and what it imports: the language server, Prettier, the MCP SDK, the
 * playground's page) is loaded when it runs, so every other command starts without evaluating it
 * (measured in bench/README.md). Its
 * `--help` answers at once from the help text kept apart; its usage errors come with its exit code.
 */
function lazy(help: string, load: () => Promise<Command>, server = false): Command {
  return (argv, io) => {
    if (argv.includes('--help') || argv.includes('-h')) {
      io.stdout(`${help}\n`);
      return 0;
    }
    return load().then((run) => {
      const code = run(argv, io);
      // A server on standard input (lsp, mcp) answers 0 at once and runs on: the process ends when the
      // server ends it, not when this promise settles (which would exit now).
      return server && code === 0 ? new Promise<number>(() => undefined) : code;
    });
  };
}

const COMMANDS: Record<string, Command> = {
  check: runCheck,
  format: lazy(FORMAT_HELP, () => import('./commands/format.js').then((m) => m.runFormat)),
  compile: runCompile,
  graph: runGraph,
  diff: runDiff,
  explore: runExplore,
  run: (argv, io) => runRun(argv, io),
  runs: (argv, io) => runRuns(argv, io),
  test: runTest,
  lsp: lazy(LSP_HELP, () => import('./commands/lsp.js').then((m) => m.runLsp), true),
  mcp: lazy(MCP_HELP, () => import('./commands/mcp.js').then((m) => m.runMcp), true),
  explain: runExplain,
  schema: runSchema,
  serve: lazy(SERVE_HELP, () => import('./commands/serve.js').then((m) => m.runServe)),
  playground: lazy(PLAYGROUND_HELP, () => import('./commands/playground.js').then((m) => m.runPlayground)),
  runner: (argv, io) => {
    // Its help through `io` and at once, as every other command's (`help runner`, docs/cli.md's copy).
    if (argv.includes('--help') || argv.includes('-h')) {
      io.stdout(`${RUNNER_USAGE}\n`);
      return 0;
    }
    return import('@kairoku-playbook/runtime/runner').then((runner) => runner.runRunner(argv));
  },
  init: runInit,
  help: (argv, io) => runHelp(argv, io, main),
  completion: runCompletion,
  __complete: runComplete,
};

/** A command's exit code; a run on a live backend answers when the run ends. */
export function main(argv: readonly string[], io: CommandIo): number | Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h') {
    io.stdout(`${HELP}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === '--version' || command === '-v') {
    io.stdout(versionText());
    return 0;
  }
  const run = COMMANDS[command];
  try {
    if (!run) throw new UsageError(unknownCommand(command, Object.keys(COMMANDS)));
    const code = run(rest, io);
    return typeof code === 'number' ? code : code.catch((error: unknown) => usageOrThrow(error, io));
  } catch (error) {
    return usageOrThrow(error, io);
  }
}

/**
 * The three versions (docs/versioning.md): the CLI's, the playbook language's a playbook declares
 * with `version:` (the one the surface schema accepts), and the IR's that compile writes as `ir:`.
 */
export function versionText(): string {
  const schema = JSON.parse(assetText('playbookSchema')) as { properties: { version: { const: number } } };
  return (
    `kairoku-playbook ${VERSION}\n` +
    `playbook language: version ${schema.properties.version.const}\n` +
    `execution IR: ir ${IR_VERSION}\n`
  );
}

/**
 * Usage errors and files that could not be written (a full disk, a read-only one, wherever the error
 * comes from) are the user's to fix: one line, exit 2. Anything else is a bug, thrown on to the process's handler (bin.ts), which
 * says so and exits 70.
 */
function usageOrThrow(error: unknown, io: CommandIo): number {
  const refusal = refusalOf(error);
  if (refusal === undefined) throw error;
  io.stderr(`kairoku-playbook: ${refusal}\n`);
  return 2;
}

/** The sentence of an error that is the user's or the machine's to fix (exit 2), or undefined for a bug. */
export function refusalOf(error: unknown): string | undefined {
  if (error instanceof UsageError) return error.message;
  return FileWriteError.from(error)?.message;
}
