import type { IrAfterTask, IrStep } from '@kairoku-playbook/compiler';
import { stepIr } from '@kairoku-playbook/machine';
import type { Effect, RunState } from '@kairoku-playbook/machine';
import { DEFAULT_WALL_CLOCK_MS, isFixedRole } from './protocol.js';
import type { Dispatch } from './protocol.js';

export type StartAgent = Extract<Effect, { type: 'start-agent' }>;
export type StartCheck = Extract<Effect, { type: 'start-check' }>;

/** Where a run's dispatches go: which repository a runner must serve, and which machine, if any. */
export interface RunTarget {
  /** the repository's id, as runners name it in their claims */
  repository: string;
  /** the branch a dispatch's worktree starts from */
  baseBranch: string;
  /** a machine the run's dispatches must run on; undefined for any */
  machine?: string;
}

/**
 * The dispatch document of a start-agent or start-check effect (docs/kairoku-protocol.md). The role
 * it names is always the playbook role's base from the fixed table (RF-009): a custom role such as
 * `security-reviewer` goes out as `reviewer`, with its own name, instructions and narrowed tool policy
 * beside it, so a runner's allowlist sees only the four roles it knows.
 */
export function buildDispatch(
  id: string,
  effect: StartAgent | StartCheck,
  state: RunState,
  target: RunTarget,
  report: { url: string; token: string } | undefined,
): Dispatch {
  const ir = stepIr(state, effect.step);
  const common = {
    id,
    run: state.id,
    playbook: state.playbook,
    step: effect.step,
    attempt: effect.attempt,
    repository: target.repository,
    baseBranch: target.baseBranch,
    branch: state.branch,
    machine: target.machine ?? null,
    wallClockMs: effect.timeoutMs > 0 ? effect.timeoutMs : DEFAULT_WALL_CLOCK_MS,
  };
  if (effect.type === 'start-check') {
    return {
      ...common,
      kind: 'check',
      title: effect.step,
      check: { commands: effect.commands, env: effect.env, cwd: effect.cwd },
    };
  }
  if (!report) throw new Error(`an agent dispatch needs a report endpoint and token (${effect.step})`);
  const role = effect.role;
  // The compiler allows only fixed-table bases; this guards the promise that no other role goes out.
  if (!isFixedRole(role.base))
    throw new Error(`role "${role.name}" has base "${role.base}", not a fixed role`);
  const outcomes = ir ? ir.outcomes.map((o) => o.name) : [];
  return {
    ...common,
    kind: 'agent',
    title: effect.title,
    agent: {
      role: role.base,
      playbookRole: role.name,
      instructions: role.instructions,
      provider: effect.provider,
      model: effect.model,
      mode: role.mode,
      policy: {
        read: role.tools.read,
        edit: role.tools.edit,
        write: role.tools.write,
        network: role.tools.network,
        run: role.tools.run,
        mcp: role.tools.mcp,
      },
      readOnly: effect.readOnly,
      firstMessage: dispatchFirstMessage(effect, ir, outcomes),
      outcomes,
      report: { url: report.url, token: report.token, tool: 'report_step_result' },
    },
  };
}

/**
 * The first message of a step agent (seed 000): the rendered prompt, the step's inputs with their
 * sources, the loop feedback, the manager's brief, and how to report.
 */
export function dispatchFirstMessage(
  effect: StartAgent,
  ir: IrStep | IrAfterTask | undefined,
  outcomes: string[],
): string {
  const parts = [effect.prompt.trim()];
  if (effect.inputs.length)
    parts.push(
      `Inputs of this step:\n${effect.inputs.map((i) => `- ${i.from}: ${JSON.stringify(i.value)}`).join('\n')}`,
    );
  if (effect.feedback)
    parts.push(`Feedback for this attempt (loop ${effect.loopCount}):\n${effect.feedback.trim()}`);
  if (effect.brief) parts.push(`From the manager:\n${effect.brief.trim()}`);
  const outputs = ir?.outputs ?? [];
  parts.push(
    [
      `When you are done, call the MCP tool report_step_result once, then end your turn.`,
      `outcome: one of ${outcomes.join(', ') || 'done'}.`,
      `outputs: ${outputs.length ? outputs.map((o) => `${o.name}: ${o.type}`).join(', ') : 'none'}.`,
    ].join('\n'),
  );
  return parts.filter((p) => p !== '').join('\n\n');
}

/** `name: type` of a step's outputs, for the report tool's description. */
export function outputLines(ir: IrStep | IrAfterTask | undefined): string[] {
  return (ir?.outputs ?? []).map((o) => `${o.name}: ${o.type}`);
}
