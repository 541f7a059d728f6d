import { resolve } from 'node:path';
import { STEP_TOKEN_VARIABLE } from '@kairoku-playbook/runtime';
import { flag, oneOf, parseArgs } from '../args.js';
import { UsageError, readScenarioFile } from '../io.js';
import type { CommandIo } from '../io.js';
import { selfCommand } from '../self-command.js';
import { PASEO_FLAGS, PASEO_FLAGS_HELP, paseoOptions } from './paseo-options.js';
import { VERSION } from '../version.js';

export const MCP_HELP = `Usage: kairoku-playbook mcp [--workspace DIR] [--agents sim|external] [--scenario FILE] [--with-step-tools]
       kairoku-playbook mcp --agents paseo [--paseo-host HOST:PORT] [--manager-agent ID] [--workspace DIR]
                            [--paseo-password-file F] [--paseo-provider NAME] [--paseo-model NAME]
       kairoku-playbook mcp --step-agent --run RUN --step STEP --attempt N   (the token in $KAIROKU_STEP_TOKEN)

Serves the manager protocol over MCP on stdin and stdout, so any MCP-capable agent can be the
Playbook Manager: list_playbooks, start_playbook, start_step, complete_step, request_gate, resume,
nudge_step, get_run, list_runs, cancel_run, restart_run, validate_playbooks. The manager owns the
judgment; the runtime refuses what the playbook does not allow. Runs are saved under
$KAIROKU_PLAYBOOK_HOME/runs (default ~/.kairoku-playbook/runs) after every change.

Options:
  --workspace DIR      the workspace whose playbooks can be started (default: the current folder)
  --agents sim         started steps are sim agents: each reports at once, as --scenario scripts
                       or with its first declared outcome and generated outputs (the default)
  --agents external    nothing reports by itself: a started step waits for report_step_result
                       from a step agent's server (start_step returns its command line)
  --agents paseo       started steps are agents of a Paseo daemon, subagents of the manager agent,
                       in the run's workspace or worktree; their reports reach the run as they
                       come, and the manager agent is woken with a message while it is idle
                       (docs/paseo.md)
${PASEO_FLAGS_HELP}
  --manager-agent ID   the Paseo agent this server serves (default: $PASEO_AGENT_ID, which Paseo
                       sets in its agents' environment): step agents are labelled its children
                       (paseo.parent-agent-id) and it is sent the wake-ups; without one, wake-ups
                       are only the events of tool results
  --scenario FILE      a scenario scripting the sim agents (a playbook test works too: see
                       docs/reference.md, "Scenarios and playbook tests"); gates it decides are
                       decided as if in the panel, others wait for resume
  --with-step-tools    also expose report_step_result on this server (tests and harnesses that
                       play the step agents; never give such a server to a step agent)
  --step-agent         a step agent's server: only report_step_result, bound to --run, --step and
                       --attempt; $KAIROKU_STEP_TOKEN must hold the token start_step gave for that
                       attempt (start_step's stepAgent.env sets it; --token TOKEN works too, but
                       shows the token to every user of the machine)
  -h, --help           this help`;

export function runMcp(argv: readonly string[], io: CommandIo): number {
  const args = parseArgs(
    argv,
    {
      workspace: 'string',
      agents: 'string',
      scenario: 'string',
      'with-step-tools': 'boolean',
      'step-agent': 'boolean',
      ...PASEO_FLAGS,
      'manager-agent': 'string',
      run: 'string',
      step: 'string',
      attempt: 'string',
      token: 'string',
      help: 'boolean',
    },
    { h: 'help' },
  );
  if (args.flags.has('help')) {
    io.stdout(`${MCP_HELP}\n`);
    return 0;
  }
  if (args.positionals.length) throw new UsageError(`mcp takes no arguments, not "${args.positionals[0]}"`);
  const workspace = resolve(io.cwd, flag(args, 'workspace') ?? '.');
  const agents = oneOf(flag(args, 'agents'), ['sim', 'external', 'paseo'] as const, 'agents', 'sim');
  if (agents !== 'paseo')
    for (const only of [
      'paseo-host',
      'paseo-password-file',
      'paseo-provider',
      'paseo-model',
      'manager-agent',
    ])
      if (args.flags.has(only)) throw new UsageError(`--${only} goes with --agents paseo`);
  if (agents === 'paseo' && args.flags.has('scenario'))
    throw new UsageError('--scenario scripts sim agents; it does not go with --agents paseo');
  let stepAgent: { run: string; step: string; attempt: number; token: string } | undefined;
  if (args.flags.has('step-agent')) {
    const need = (name: string) => {
      const value = flag(args, name);
      if (value === undefined) throw new UsageError(`mcp --step-agent needs --${name}`);
      return value;
    };
    const attempt = need('attempt');
    if (!/^[1-9]\d*$/.test(attempt))
      throw new UsageError(`--attempt takes a positive whole number, not "${attempt}"`);
    for (const other of ['with-step-tools', 'scenario', 'agents'])
      if (args.flags.has(other))
        throw new UsageError(`--${other} is for the manager's server, not with --step-agent`);
    const token = flag(args, 'token') ?? (process.env[STEP_TOKEN_VARIABLE] || undefined);
    if (token === undefined)
      throw new UsageError(
        `mcp --step-agent needs its token in $${STEP_TOKEN_VARIABLE} (start_step gives it)`,
      );
    stepAgent = { run: need('run'), step: need('step'), attempt: Number(attempt), token };
  } else {
    for (const only of ['run', 'step', 'attempt', 'token'])
      if (args.flags.has(only)) throw new UsageError(`--${only} goes with --step-agent`);
  }
  const scenario = readScenarioFile(flag(args, 'scenario'), io.cwd);
  const log = (line: string) => process.stderr.write(`kairoku-playbook mcp: ${line}\n`);
  const env = process.env;
  const managerAgent = flag(args, 'manager-agent') ?? (env.PASEO_AGENT_ID || undefined);
  const paseo =
    agents === 'paseo'
      ? { ...paseoOptions(args, env, io.cwd), ...(managerAgent ? { managerAgent } : {}) }
      : undefined;

  // The MCP SDK loads only for this command; nothing may write to stdout but the server. Not awaited:
  // the command returns and the process lives as long as the server; a failure is logged and sets the
  // exit code (the .catch below).
  void import('@kairoku-playbook/runtime/mcp')
    .then(({ serveMcp }) =>
      serveMcp({
        version: VERSION,
        workspace,
        agents,
        ...(scenario !== undefined ? { scenario } : {}),
        ...(paseo ? { paseo } : {}),
        withStepTools: args.flags.has('with-step-tools'),
        ...(stepAgent ? { stepAgent } : {}),
        selfCommand: selfCommand(),
        log,
      }),
    )
    .catch((error: Error) => {
      log(error.message);
      process.exitCode = error.name === 'ToolError' ? 2 : 1;
    });
  return 0;
}
