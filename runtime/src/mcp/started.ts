/**
 * What start_step answers about the attempt it started: the check's commands or the agent's brief,
 * and who does the work (a Paseo subagent being made, or the step agent's server to start).
 */
import type { RunState } from '@kairoku-playbook/machine';
import { BACKEND_OF } from './backend.js';
import type { StartEffect } from './backend.js';
import { STEP_TOKEN_VARIABLE, stepAgentToken } from '../store/step-token.js';

/** The started attempt, as start_step's result shows it. */
export function describeStart(
  state: RunState,
  effect: StartEffect,
  server: { home: string; managerAgent: string | undefined; selfCommand: readonly string[] | undefined },
): Record<string, unknown> {
  const started: Record<string, unknown> = { step: effect.step, attempt: effect.attempt };
  if (effect.type === 'start-check') {
    started.kind = 'check';
    started.commands = effect.commands;
    started.env = Object.keys(effect.env);
    started.cwd = effect.cwd;
  } else {
    started.kind = 'agent';
    started.title = effect.title;
    started.role = effect.role.name;
    started.instructions = effect.role.instructions;
    started.provider = effect.provider;
    started.model = effect.model;
    started.prompt = effect.prompt;
    started.feedback = effect.feedback;
    started.loopCount = effect.loopCount;
    started.brief = effect.brief;
    started.inputs = effect.inputs;
    started.readOnly = effect.readOnly;
  }
  started.timeoutMs = effect.timeoutMs;
  if (state.backend === BACKEND_OF.paseo && effect.type === 'start-agent') {
    const parent = server.managerAgent;
    started.paseo = {
      what: parent
        ? `a Paseo agent is being created as your subagent (paseo.parent-agent-id ${parent}); get_run shows its id once it runs`
        : 'a Paseo agent is being created for the step; get_run shows its id once it runs',
      wakeups: parent
        ? 'you are sent a message when it reports or is lost, while you are idle: end your turn to wait'
        : "no manager agent is known to this server: call get_run to see the step's report",
    };
  }
  if (state.backend === BACKEND_OF.external) {
    const command = server.selfCommand ?? ['kairoku-playbook'];
    started.stepAgent = {
      what: 'the MCP server to give this step agent: it exposes only report_step_result, bound to this attempt',
      command: command[0],
      args: [
        ...command.slice(1),
        'mcp',
        '--step-agent',
        '--run',
        state.id,
        '--step',
        effect.step,
        '--attempt',
        String(effect.attempt),
      ],
      // The token rides in the environment: a command line is visible to every user of the machine.
      env: {
        KAIROKU_PLAYBOOK_HOME: server.home,
        [STEP_TOKEN_VARIABLE]: stepAgentToken(server.home, state.id, effect.step, effect.attempt),
      },
    };
  }
  return started;
}
