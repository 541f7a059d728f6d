import type { Effect } from '@kairoku-playbook/machine';

export type StartAgent = Extract<Effect, { type: 'start-agent' }>;

/** What the step may report, for the closing instructions (from the IR; optional). */
export interface ReportContract {
  outcomes: string[];
  /** `name: type` */
  outputs: string[];
}

/** The name of the playbook's MCP server in each step agent's `mcpServers`. */
export const MCP_SERVER_NAME = 'kairoku-playbook';

/**
 * A step agent's first message (seed 000): with `instructions` (a provider that ignores the system
 * prompt), the role's instructions first; the rendered step prompt, then the step's inputs with
 * their sources, the loop feedback of this attempt, the manager's brief, and how to report. Pure: the
 * same effect gives the same text. Sections that would be empty are left out.
 */
export function firstMessage(
  effect: StartAgent,
  contract?: ReportContract,
  options: { instructions?: boolean } = {},
): string {
  const sections: string[] = [];
  const instructions = effect.role.instructions?.trim();
  if (options.instructions && instructions)
    sections.push(`## Your role: ${effect.role.name}\n\n${instructions}`);
  const prompt = effect.prompt.trim();
  if (prompt) sections.push(prompt);
  if (effect.inputs.length)
    sections.push(
      ['## Inputs', ...effect.inputs.map((input) => describeInput(input.from, input.value))].join('\n\n'),
    );
  if (effect.feedback.trim())
    sections.push(
      `## Feedback (this step looped back ${times(effect.loopCount)})\n\n${effect.feedback.trim()}`,
    );
  if (effect.brief.trim()) sections.push(`## Brief from the manager\n\n${effect.brief.trim()}`);
  sections.push(reporting(effect, contract));
  return `${sections.join('\n\n')}\n`;
}

/** How to report: the tool, the step's outcomes and outputs, and the read-only rule. */
function reporting(effect: StartAgent, contract: ReportContract | undefined): string {
  const lines = [
    '## Reporting',
    '',
    `When your work is done, call the \`report_step_result\` tool of the \`${MCP_SERVER_NAME}\` MCP server once, then end your turn.`,
  ];
  if (contract) {
    lines.push(`- outcome: one of ${contract.outcomes.map((o) => `\`${o}\``).join(', ')}`);
    lines.push(
      contract.outputs.length
        ? `- outputs: ${contract.outputs.map((o) => `\`${o}\``).join(', ')}`
        : '- outputs: none',
    );
  }
  lines.push('- summary: what you did and found, in a few sentences, for the manager');
  if (effect.readOnly)
    lines.push(
      '',
      'Your role is read-only: do not change any file in the worktree. A change fails the step.',
    );
  return lines.join('\n');
}

/** One input: its path, where it comes from, and its value (text as is, anything else as JSON). */
function describeInput(from: string, value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  const head = `### \`${from}\` (${sourceOf(from)})`;
  return `${head}\n\n${fence(text ?? 'null')}`;
}

/** Where a derived input comes from, in words: `inputs.task` is a run input, `steps.plan.…` a step's. */
export function sourceOf(from: string): string {
  const parts = from.split('.');
  if (parts[0] === 'inputs') return 'an input of the run';
  if (parts[0] === 'steps' && parts[1]) {
    if (parts[2] === 'outputs') return `an output of step ${parts[1]}`;
    if (parts[2] === 'outcome') return `the outcome of step ${parts[1]}`;
    if (parts[2] === 'summary') return `the summary of step ${parts[1]}`;
    return `step ${parts[1]}`;
  }
  return parts[0] ?? from;
}

/** A fenced block long enough not to be closed by the text it holds. */
function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`{3,}/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}\n${text}\n${ticks}`;
}

function times(count: number): string {
  return count === 1 ? 'once' : count === 2 ? 'twice' : `${count} times`;
}
