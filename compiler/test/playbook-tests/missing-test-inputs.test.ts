/**
 * PB810 (a required input the test does not give) is one diagnostic per test, and never the echo of
 * another mistake: a misspelt input is PB809's, an `inputs` that is not a mapping and a test that is not a
 * mapping are PB800's.
 */
import { describe, expect, it } from 'vitest';
import { analyzeFile, analyzeTestFile } from '../../src/index.js';

const PLAYBOOK = `version: 1
title: Ship
inputs:
  task: { type: string }
  area: { type: 'enum(frontend, backend)' }
  strict: { type: boolean, default: false }
  ticket: { type: string, required: false }
steps:
  implement:
    role: implementer
    prompt: \${{ inputs.task }} \${{ inputs.area }} \${{ inputs.strict }} \${{ inputs.ticket }}
`;

function codesOf(test: string): string[] {
  const playbook = analyzeFile('ship.yml', PLAYBOOK);
  expect(playbook.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return analyzeTestFile('ship.test.yml', test, playbook).diagnostics.map((d) => `${d.code} ${d.message}`);
}

describe('PB810', () => {
  it('names every required input without a default the test leaves out, once', () => {
    expect(codesOf('steps: {}\n')).toEqual([
      'PB810 the test gives no required inputs "task", "area": ship.yml cannot start a run without them; give them under inputs',
    ]);
    expect(codesOf('inputs: { task: x }\n')).toEqual([
      'PB810 the test gives no required input "area": ship.yml cannot start a run without it; give it under inputs',
    ]);
    expect(codesOf('')).toHaveLength(1); // an empty test still needs them
  });

  it('is quiet when they are given, whatever else is left out', () => {
    expect(codesOf('inputs: { task: x, area: backend }\n')).toEqual([]);
  });

  it('fixes what it says: the missing inputs, with example values, written where the test keeps its inputs', () => {
    const playbook = analyzeFile('ship.yml', PLAYBOOK);
    const fixed = (test: string): string => {
      const [diagnostic, ...rest] = analyzeTestFile('ship.test.yml', test, playbook).diagnostics;
      expect(rest).toEqual([]);
      expect(diagnostic?.code).toBe('PB810');
      expect(diagnostic!.fix!.title).toMatch(/^Give (task, )?area under inputs$/);
      let out = test;
      for (const { range, newText } of [...diagnostic!.fix!.edits].reverse())
        out = out.slice(0, range.start) + newText + out.slice(range.end);
      // the fixed test checks clean
      expect(analyzeTestFile('ship.test.yml', out, playbook).diagnostics).toEqual([]);
      return out;
    };
    expect(fixed('steps: {}\n')).toBe('inputs:\n  task: "a task"\n  area: "frontend"\nsteps: {}\n');
    expect(fixed('')).toBe('inputs:\n  task: "a task"\n  area: "frontend"\n');
    expect(fixed('# a test\nname: x\n')).toBe(
      '# a test\ninputs:\n  task: "a task"\n  area: "frontend"\nname: x\n',
    );
    expect(fixed('inputs: { task: x }\n')).toBe('inputs: { task: x, area: "frontend" }\n');
    expect(fixed('inputs: {}\n')).toBe('inputs: { task: "a task", area: "frontend" }\n');
    expect(fixed('inputs:\n    task: x # the task\nname: y\n')).toBe(
      'inputs:\n    area: "frontend"\n    task: x # the task\nname: y\n',
    );
  });

  it('offers no fix where the layout is not one it writes into', () => {
    const playbook = analyzeFile('ship.yml', PLAYBOOK);
    const [diagnostic, ...rest] = analyzeTestFile('ship.test.yml', '{ steps: {} }\n', playbook).diagnostics;
    expect(rest).toEqual([]);
    expect(diagnostic?.code).toBe('PB810'); // (said, without a fix: a flow mapping at the top)
    expect(diagnostic?.fix).toBeUndefined();
  });

  it('leaves a misspelt input to PB809, and a test or inputs of the wrong shape to PB800', () => {
    expect(codesOf('inputs: { tsk: x, area: backend }\n').map((c) => c.slice(0, 5))).toEqual(['PB809']);
    expect(codesOf('inputs: [task, area]\n').map((c) => c.slice(0, 5))).toEqual(['PB800']);
    expect(codesOf('~\n').map((c) => c.slice(0, 5))).toEqual(['PB800']);
    // (a misspelt key may hold them)
    expect(codesOf('inptus: { task: x, area: backend }\n').map((c) => c.slice(0, 5))).toEqual(['PB800']);
  });
});
