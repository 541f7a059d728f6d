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
import { PANEL_HELP, SERVE_HELP } from './commands/serve-help.js';
import { PLAYGROUND_HELP } from './commands/playground-help.js';
import { runTest } from './commands/test.js';
import { runComplete, runCompletion } from './commands/completion.js';
import { runHelp } from './commands/help.js';
import { runInit } from './commands/init.js';
import { USAGE as RUNNER_USAGE } from '@kairoku-playbook/runtime/runner/usage';
import { dispatch } from './dispatch.js';
import type { Command } from './dispatch.js';
import type { CommandIo } from './io.js';
import { HELP } from './help-text.js';

export { HELP };

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
  // (serve under the contract's name: its --port N is serve's, for --listen 127.0.0.1:N)
  panel: lazy(PANEL_HELP, () => import('./commands/serve.js').then((m) => m.runServe)),
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
  return dispatch(argv, io, COMMANDS, HELP);
}
