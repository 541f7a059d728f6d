// The terminal's gate prompt (run on a terminal): the gate headed once, and a did-you-mean for a
// mistyped choice. (The whole dialogue, in a run: run-command.test.ts, "asks gates at the terminal".)
import { describe, expect, it } from 'vitest';
import { vecFromArray } from '@kairoku-playbook/runtime';
import type { HistoryEntry, OpenGate, RunState } from '@kairoku-playbook/runtime';
import { askGateAsync, gateLineLast } from '../src/commands/run-common.js';
import type { Terminal } from '../src/commands/terminal.js';

const gate: OpenGate = {
  type: 'open-gate',
  step: 'ship',
  attempt: 1,
  title: 'Ship it?',
  summary: 'All green.',
  choices: [
    { name: 'approve', label: null, comment: 'none' },
    { name: 'reject', label: null, comment: 'none' },
  ],
};

/** Asks the gate with these answers; what the terminal was written, and the decision. */
async function ask(answers: string[], headingShown?: boolean) {
  const written: string[] = [];
  const terminal: Terminal = {
    write: (text) => void written.push(text),
    ask: (question) => {
      written.push(question);
      return answers.shift();
    },
  };
  const decision = await askGateAsync(gate, terminal, new AbortController().signal, headingShown);
  return { text: written.join(''), decision };
}

function stateWithHistory(entries: HistoryEntry[]): RunState {
  return { history: vecFromArray(entries) } as unknown as RunState;
}

describe('the gate prompt', () => {
  it('heads the gate with its title, unless the line above does (then once, not twice)', async () => {
    const headed = await ask(['approve']);
    expect(headed.text).toBe(
      '\n? ship: Ship it?\n  All green.\n  choices (a number or a name):\n    1. approve\n    2. reject\nchoice> ',
    );
    const under = await ask(['approve'], true);
    expect(under.text).toBe(
      '  All green.\n  choices (a number or a name):\n    1. approve\n    2. reject\nchoice> ',
    );
    expect(under.decision).toEqual({ choice: 'approve' });
  });

  it('the line above heads it when the last history entry is this gate opening, and only then', () => {
    const opened: HistoryEntry = {
      at: '2026-01-01T00:00:00Z',
      kind: 'gate-opened',
      step: 'ship',
      text: 'ship is waiting for a decision: Ship it?',
    };
    const other: HistoryEntry = { at: opened.at, kind: 'step-started', step: 'docs', text: 'docs started' };
    expect(gateLineLast(stateWithHistory([opened]), gate)).toBe(true);
    // another step's line came after it (parallel steps): the prompt heads the gate itself
    expect(gateLineLast(stateWithHistory([opened, other]), gate)).toBe(false);
    expect(gateLineLast(stateWithHistory([{ ...opened, step: 'deploy' }]), gate)).toBe(false);
    expect(gateLineLast(stateWithHistory([]), gate)).toBe(false);
  });

  it('answers a mistyped choice with a did-you-mean, and a far one without', async () => {
    const { text, decision } = await ask(['aprove', 'ship it', 'APPROVE'], true);
    expect(text).toContain(
      '  "aprove" is not a choice (did you mean "approve"?); type its number (1 to 2) or one of approve, reject\n',
    );
    expect(text).toContain(
      '  "ship it" is not a choice; type its number (1 to 2) or one of approve, reject\n',
    );
    expect(decision).toEqual({ choice: 'approve' });
  });
});
