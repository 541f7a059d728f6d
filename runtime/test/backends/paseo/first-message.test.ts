import { describe, expect, it } from 'vitest';
import { agentTitle } from '../../../src/backends/paseo/backend.js';
import { firstMessage, sourceOf } from '../../../src/backends/paseo/first-message.js';
import type { StartAgent } from '../../../src/backends/paseo/first-message.js';

const role = {
  name: 'implementer',
  base: 'implementer' as const,
  instructions: 'You implement exactly what the step asks.',
  provider: null,
  model: null,
  mode: null,
  tools: { read: true, edit: true, write: true, network: false, run: true, mcp: false },
};

function effect(patch: Partial<StartAgent> = {}): StartAgent {
  return {
    type: 'start-agent',
    step: 'implement',
    attempt: 1,
    title: 'implement',
    role,
    provider: null,
    model: null,
    prompt: 'Implement this plan:\nadd the flag\n',
    feedback: '',
    loopCount: 0,
    brief: '',
    inputs: [],
    readOnly: false,
    timeoutMs: 3_600_000,
    ...patch,
  };
}

describe('the first message of a step agent', () => {
  it('holds the prompt, the inputs with their sources, the feedback, the brief and how to report', () => {
    const text = firstMessage(
      effect({
        attempt: 3,
        inputs: [
          { from: 'inputs.task', value: 'add a --json flag' },
          { from: 'steps.plan.outputs.files', value: ['a.ts', 'b.ts'] },
          { from: 'steps.qa.outcome', value: 'fail' },
        ],
        feedback: 'Tests failed: 2 failing',
        loopCount: 2,
        brief: 'Keep the old flag working.',
      }),
      { outcomes: ['done'], outputs: ['branch: string'] },
    );
    expect(text).toBe(
      [
        'Implement this plan:',
        'add the flag',
        '',
        '## Inputs',
        '',
        '### `inputs.task` (an input of the run)',
        '',
        '```',
        'add a --json flag',
        '```',
        '',
        '### `steps.plan.outputs.files` (an output of step plan)',
        '',
        '```',
        '[',
        '  "a.ts",',
        '  "b.ts"',
        ']',
        '```',
        '',
        '### `steps.qa.outcome` (the outcome of step qa)',
        '',
        '```',
        'fail',
        '```',
        '',
        '## Feedback (this step looped back twice)',
        '',
        'Tests failed: 2 failing',
        '',
        '## Brief from the manager',
        '',
        'Keep the old flag working.',
        '',
        '## Reporting',
        '',
        'When your work is done, call the `report_step_result` tool of the `kairoku-playbook` MCP server once, then end your turn.',
        '- outcome: one of `done`',
        '- outputs: `branch: string`',
        '- summary: what you did and found, in a few sentences, for the manager',
        '',
      ].join('\n'),
    );
  });

  it('leaves out what is empty, and tells a read-only role not to change files', () => {
    const text = firstMessage(effect({ prompt: 'Review it.', readOnly: true }));
    expect(text).toBe(
      [
        'Review it.',
        '',
        '## Reporting',
        '',
        'When your work is done, call the `report_step_result` tool of the `kairoku-playbook` MCP server once, then end your turn.',
        '- summary: what you did and found, in a few sentences, for the manager',
        '',
        'Your role is read-only: do not change any file in the worktree. A change fails the step.',
        '',
      ].join('\n'),
    );
  });

  it('fences a value that holds a fence with a longer one', () => {
    const text = firstMessage(effect({ inputs: [{ from: 'inputs.notes', value: 'see:\n```js\nx()\n```' }] }));
    expect(text).toContain('````\nsee:\n```js\nx()\n```\n````');
  });

  it('is the same for the same effect', () => {
    const one = effect({ inputs: [{ from: 'inputs.n', value: 3 }] });
    expect(firstMessage(one)).toBe(firstMessage(structuredClone(one)));
  });

  it('names the sources of inputs in words', () => {
    expect(sourceOf('inputs.task')).toBe('an input of the run');
    expect(sourceOf('steps.plan.outputs.plan')).toBe('an output of step plan');
    expect(sourceOf('steps.review.summary')).toBe('the summary of step review');
  });
});

describe('the title of a step agent', () => {
  it('keeps within the 40 characters Paseo takes, with the attempt after the first', () => {
    expect(agentTitle('implement', 1)).toBe('implement');
    expect(agentTitle('implement', 2)).toBe('implement #2');
    const long = agentTitle('Ship the change to production after review', 12);
    expect(long).toBe('Ship the change to production after… #12');
    expect(long.length).toBe(40);
    expect(agentTitle('  ', 1)).toBe('step');
  });
});
