import { resolve } from 'node:path';
import { STEP_TOKEN_VARIABLE } from '@kairoku-playbook/runtime';
import { flag, oneOf, parseArgs } from '../args.js';
import type { ParsedArgs } from '../args.js';
import { UsageError, readScenarioFile } from '../io.js';
import type { CommandIo } from '../io.js';
import { selfCommand } from '../self-command.js';
import { PASEO_FLAGS, paseoOptions } from './paseo-options.js';
import { VERSION } from '../version.js';
import { MCP_HELP } from './mcp-help.js';

export { MCP_HELP };

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
      'managed-run': 'string',
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
      'managed-run',
    ])
      if (args.flags.has(only)) throw new UsageError(`--${only} goes with --agents paseo`);
  if (agents === 'paseo' && args.flags.has('scenario'))
    throw new UsageError('--scenario scripts sim agents; it does not go with --agents paseo');
  const stepAgent = stepAgentOf(args);
  const scenario = readScenarioFile(flag(args, 'scenario'), io.cwd);
  const log = (line: string) => process.stderr.write(`kairoku-playbook mcp: ${line}\n`);
  const env = process.env;
  const managerAgent = flag(args, 'manager-agent') ?? (env.PASEO_AGENT_ID || undefined);
  const managerOfRun = flag(args, 'managed-run');
  const paseo =
    agents === 'paseo'
      ? {
          ...paseoOptions(args, env, io.cwd),
          ...(managerAgent ? { managerAgent } : {}),
          ...(managerOfRun !== undefined ? { managerOfRun } : {}),
        }
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

/**
 * `--step-agent`: the run, step and attempt a step agent's server reports for, and its token (from
 * the environment, where start_step puts it); the binding flags without it are usage errors.
 */
function stepAgentOf(
  args: ParsedArgs,
): { run: string; step: string; attempt: number; token: string } | undefined {
  if (!args.flags.has('step-agent')) {
    for (const only of ['run', 'step', 'attempt', 'token'])
      if (args.flags.has(only)) throw new UsageError(`--${only} goes with --step-agent`);
    return undefined;
  }
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
    throw new UsageError(`mcp --step-agent needs its token in $${STEP_TOKEN_VARIABLE} (start_step gives it)`);
  return { run: need('run'), step: need('step'), attempt: Number(attempt), token };
}
