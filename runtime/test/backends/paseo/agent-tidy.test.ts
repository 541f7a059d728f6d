/** The agents policy (issue 25): which of a run's Paseo agents are canceled, archived or left, by the run. */
import { advance, createRun } from '@kairoku-playbook/machine';
import type { RunEvent, RunState } from '@kairoku-playbook/machine';
import { describe, expect, it } from 'vitest';
import { tidyPlan } from '../../../src/backends/paseo/agent-tidy.js';
import type { AgentInfo } from '../../../src/backends/paseo/daemon-agents.js';
import { playbook } from '../../helpers.js';

const ir = playbook(
  '  plan:\n    role: implementer\n    prompt: Plan.\n  work:\n    needs: [plan]\n    role: implementer\n    prompt: Work.\n',
);

function run(...events: RunEvent[]): RunState {
  let state = createRun(ir, { id: 't-1', inputs: {}, now: 0, backend: 'paseo' });
  for (const event of [{ type: 'start' } as const, ...events]) state = advance(state, event, 0).state;
  return state;
}

const step = (name: string, attempt: number, status = 'idle', archived = false): AgentInfo => ({
  status,
  labels: { 'kairoku.run': 't-1', 'kairoku.step': name, 'kairoku.attempt': String(attempt) },
  archived,
});
const manager = (status = 'idle'): AgentInfo => ({
  status,
  labels: { 'kairoku.run': 't-1', 'kairoku.role': 'manager' },
  archived: false,
});

const planStarted: RunEvent[] = [
  { type: 'start-step', step: 'plan' },
  { type: 'step-started', step: 'plan', attempt: 1, agent: 'a-plan' },
];
const planDone: RunEvent[] = [
  ...planStarted,
  { type: 'report', step: 'plan', attempt: 1, outcome: 'done' },
  { type: 'complete-step', step: 'plan', outcome: 'done' },
];

describe('tidyPlan', () => {
  it('leaves the agent of an attempt at work, and the manager of a run going on', () => {
    const agents = new Map([
      ['a-plan', step('plan', 1, 'running')],
      ['m', manager()],
    ]);
    expect(tidyPlan(run(...planStarted), agents, false)).toEqual({ cancel: [], archive: [], waiting: [] });
  });

  it('archives the agent of an attempt that ended with its report once it is idle; waits while its turn ends', () => {
    const state = run(...planDone);
    expect(tidyPlan(state, new Map([['a-plan', step('plan', 1)]]), false).archive).toEqual(['a-plan']);
    expect(tidyPlan(state, new Map([['a-plan', step('plan', 1, 'running')]]), false)).toEqual({
      cancel: [],
      archive: [],
      waiting: ['a-plan'],
    });
  });

  it("cancels what still works on a canceled run's attempt, and an agent of an attempt the run does not have", () => {
    const state = run(...planStarted, { type: 'cancel' });
    const agents = new Map([
      ['a-plan', step('plan', 1, 'running')],
      ['stray', step('plan', 7, 'running')],
    ]);
    expect(tidyPlan(state, agents, false)).toEqual({ cancel: ['a-plan', 'stray'], archive: [], waiting: [] });
  });

  it('archives the manager once its run ended, and nothing at all with keep (cancels still go out)', () => {
    const canceled = run(...planStarted, { type: 'cancel' });
    const agents = new Map([
      ['a-plan', step('plan', 1, 'running')],
      ['m', manager()],
      ['old', step('plan', 1, 'idle', true)],
    ]);
    expect(tidyPlan(canceled, agents, false)).toEqual({ cancel: ['a-plan'], archive: ['m'], waiting: [] });
    expect(tidyPlan(canceled, agents, true)).toEqual({ cancel: ['a-plan'], archive: [], waiting: [] });
  });
});
