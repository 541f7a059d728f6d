import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeFile, compilePlaybook } from '../../src/index.js';
import { resolveName } from '../../src/playbook-tests/resolve-names.js';
import type { NameProblem, NameUse } from '../../src/playbook-tests/resolve-names.js';

const repo = new URL('../../../', import.meta.url).pathname;
const text = readFileSync(`${repo}playbooks/pr.yml`, 'utf8');

/** A problem without the owner's object (the model's and the IR's differ; their names do not). */
function named(problem: NameProblem | undefined): unknown {
  if (!problem) return undefined;
  if (problem.problem === 'unknown-outcome') return { ...problem, owner: problem.owner.name };
  if (problem.problem === 'unknown-choice') return { ...problem, gate: problem.gate.name };
  return problem;
}

describe("the rules for a test's names (resolveName)", () => {
  const ir = compilePlaybook('playbooks/pr.yml', text).ir!;
  const model = analyzeFile('playbooks/pr.yml', text).model!;
  const uses: [NameUse, unknown][] = [
    [{ kind: 'step', name: 'qa', after: false, scripted: true }, undefined],
    [
      { kind: 'step', name: 'qq', after: false, scripted: true },
      { problem: 'unknown-step', after: false, declared: ['plan', 'implement', 'qa', 'review'] },
    ],
    [
      { kind: 'step', name: 'qq', after: false, scripted: false },
      { problem: 'unknown-step', after: false, declared: ['plan', 'implement', 'qa', 'review', 'ship'] },
    ],
    [{ kind: 'step', name: 'ship', after: false, scripted: true }, { problem: 'gate-under-steps' }],
    [{ kind: 'step', name: 'ship', after: false, scripted: false }, undefined],
    [{ kind: 'step', name: 'summarize', after: true, scripted: true }, undefined],
    [
      { kind: 'step', name: 'qa', after: true, scripted: false },
      { problem: 'unknown-step', after: true, declared: ['summarize'] },
    ],
    [{ kind: 'gate', name: 'ship' }, undefined],
    [{ kind: 'gate', name: 'qa' }, { problem: 'not-a-gate' }],
    [
      { kind: 'gate', name: 'shipp' },
      { problem: 'unknown-gate', declared: ['ship'] },
    ],
    [{ kind: 'outcome', name: 'fail', step: 'qa', after: false }, undefined],
    [
      { kind: 'outcome', name: 'ok', step: 'qa', after: false },
      { problem: 'unknown-outcome', owner: 'qa', after: false, declared: ['pass', 'fail'] },
    ],
    [{ kind: 'outcome', name: 'ok', step: 'qq', after: false }, undefined],
    [
      { kind: 'outcome', name: 'yes', step: 'ship', after: false },
      { problem: 'unknown-outcome', owner: 'ship', after: false, declared: ['approve', 'reject', 'revise'] },
    ],
    [
      { kind: 'choice', name: 'yes', gate: 'ship' },
      { problem: 'unknown-choice', gate: 'ship', declared: ['approve', 'reject', 'revise'] },
    ],
    [{ kind: 'choice', name: 'yes', gate: 'qa' }, undefined],
  ];

  it.each(uses)(
    'answers %o the same for the IR (the runtime) and the model (the compiler)',
    (use, expected) => {
      expect(named(resolveName(use, ir))).toEqual(expected);
      expect(named(resolveName(use, model))).toEqual(expected);
    },
  );
});
